"""Exporting a tournament's matches and seats: JSON lines (one match a line) or CSV (one seat a row)."""

from __future__ import annotations

import csv
import json
from typing import Iterator, TextIO

from arena.results.store import Store

FORMATS = ("jsonl", "csv")
MATCH_FIELDS = ("match_id", "tournament_id", "schedule_index", "round", "deal", "game", "players", "options", "seed",
                "status", "error", "teams", "started_at", "ended_at", "duration_ms")
SEAT_FIELDS = ("seat", "bot", "version", "team", "status", "score", "rank", "time_ms", "decisions", "error")


def matches(store: Store, tournament_id: int, logs: bool = False) -> Iterator[dict]:
    """The tournament's matches in schedule order, each with its seats (and log, if asked)."""
    store.tournament(tournament_id)  # a one-line error for an unknown id
    rows = store.query(
        "SELECT m.id AS match_id, m.tournament_id, m.schedule_index, m.round, m.deal, m.game, m.players, m.options,"
        " m.seed, m.status, m.error, m.teams, m.started_at, m.ended_at, m.duration_ms FROM matches m"
        " WHERE m.tournament_id = ? ORDER BY m.schedule_index", [tournament_id])
    seats: dict[int, list[dict]] = {}
    for seat in store.query(
            "SELECT s.match_id, s.seat, b.name AS bot, v.version, s.team, s.status, s.score, s.rank, s.time_ms,"
            " s.decisions, s.error FROM matches m JOIN match_seats s ON s.match_id = m.id"
            " JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id"
            " WHERE m.tournament_id = ? ORDER BY s.match_id, s.seat", [tournament_id]):
        seats.setdefault(seat.pop("match_id"), []).append(seat)
    for row in rows:
        row["options"] = json.loads(row["options"]) if row["options"] else {}
        row["teams"] = json.loads(row["teams"]) if row["teams"] else None
        row["seats"] = seats.get(row["match_id"], [])
        if logs and row["status"] == "finished":
            row["log"] = store.match(row["match_id"])["log"]
        yield row


def write_jsonl(rows: Iterator[dict], out: TextIO) -> int:
    count = 0
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=True, separators=(",", ":")) + "\n")
        count += 1
    return count


def write_csv(rows: Iterator[dict], out: TextIO) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*MATCH_FIELDS, *(f"seat_{field}" if field in ("status", "error") else field
                                      for field in SEAT_FIELDS)])
    count = 0
    for row in rows:
        match = [json.dumps(row[f]) if f in ("options", "teams") and row[f] is not None else row[f]
                 for f in MATCH_FIELDS]
        for seat in row["seats"]:
            writer.writerow([*match, *(seat[f] for f in SEAT_FIELDS)])
        count += 1
    return count


def export(store: Store, tournament_id: int, fmt: str, out: TextIO, logs: bool = False) -> int:
    """Write the export to ``out``; returns the number of matches written."""
    rows = matches(store, tournament_id, logs)
    return write_jsonl(rows, out) if fmt == "jsonl" else write_csv(rows, out)


__all__ = ["FORMATS", "export", "matches"]
