"""Every database read the web viewer makes, returned as plain JSON-ready dicts.

The store is opened only by `open_store`, and only to read. Queries name their columns.
Tournaments' secrets are not in the database at all (`arena.results.keyfile`). Bot copies'
paths and submission sources are not served.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from arena.pids import alive as process_alive
from arena.games import UnknownGame, game_names, get_game
from arena.results.describe import format_text
from arena.results.timings import clock_of
from arena.results.errors import StoreError
from arena.results.matchread import open_readonly, read_match, unpack
from arena.results.schema import FAILURE_KINDS, SEAT_STATUSES

from arena.web.safe import tail

if TYPE_CHECKING:  # imported where a store is opened: `arena replay` starts without it
    from arena.results.store import Store

__all__ = ["NotFound", "open_store", "StoreError"]

RECENT_MATCHES = 25
RECENT_FAILURES = 20
HEAD_TO_HEAD_MAX = 16
TOURNAMENT_COLUMNS = ("id", "name", "game", "players", "rounds", "seed", "options", "status", "rated_through",
                      "runner_pid", "created_at", "started_at", "finished_at", "format")


class NotFound(Exception):
    """No such game, bot, tournament or match (a 404)."""


def open_store(path: str | os.PathLike) -> Store:
    """The store at ``path``, for reading only (the web never writes, and cannot); a missing
    file is refused (`StoreError`). It sees matches committed after it opened."""
    from arena.results.store import Store

    return Store(path, readonly=True, live=True)


# ---- games and leaderboards -----------------------------------------------------------------

def game_info(name: str) -> dict:
    try:
        game = get_game(name)
    except UnknownGame:
        return {"name": name, "title": name, "description": "", "player_counts": [], "known": False}
    return {"name": game.name, "title": game.title, "description": game.description,
            "player_counts": list(game.player_counts), "known": True}


def games(store: Store) -> list[dict]:
    """Every registered game and every game the database holds, with counts."""
    bots = {r["game"]: r for r in store.query(
        "SELECT b.game, COUNT(DISTINCT b.id) AS bots, COUNT(v.id) AS versions FROM bots b"
        " LEFT JOIN bot_versions v ON v.bot_id = b.id GROUP BY b.game")}
    rated = {r["game"]: r["n"] for r in store.query("SELECT game, COUNT(*) AS n FROM ratings GROUP BY game")}
    matches = {r["game"]: r["n"] for r in store.query(
        "SELECT game, COUNT(rating_seq) AS n FROM matches WHERE rating_seq IS NOT NULL GROUP BY game")}
    tournaments = {r["game"]: r["n"] for r in store.query(
        "SELECT game, COUNT(*) AS n FROM tournaments GROUP BY game")}
    names = list(game_names())
    names += sorted((set(bots) | set(tournaments)) - set(names))
    result = []
    for name in names:
        info = game_info(name)
        info.update({"bots": bots.get(name, {}).get("bots", 0), "versions": bots.get(name, {}).get("versions", 0),
                     "rated_versions": rated.get(name, 0), "rated_matches": matches.get(name, 0),
                     "tournaments": tournaments.get(name, 0)})
        result.append(info)
    return result


def known_game(store: Store, name: str) -> dict:
    """The game's info; `NotFound` unless it is registered or in the database."""
    info = game_info(name)
    if not info["known"] and not store.one("SELECT 1 AS x FROM bots WHERE game = ? UNION"
                                           " SELECT 1 FROM tournaments WHERE game = ? LIMIT 1", [name, name]):
        raise NotFound(f"no game {name!r}")
    return info


def _latest_versions(store: Store, game: str) -> set[int]:
    return {r["id"] for r in store.query(
        "SELECT v.id FROM bot_versions v JOIN bots b ON b.id = v.bot_id WHERE b.game = ?"
        " AND v.version = (SELECT MAX(w.version) FROM bot_versions w WHERE w.bot_id = v.bot_id)", [game])}


def _bot_ids(store: Store, version_ids: list[int]) -> dict[int, int]:
    if not version_ids:
        return {}
    marks = ",".join("?" * len(version_ids))
    return {r["id"]: r["bot_id"] for r in store.query(
        f"SELECT id, bot_id FROM bot_versions WHERE id IN ({marks})", version_ids)}


def _finish_board(store: Store, board: dict, versions: str, limit: int | None) -> dict:
    entries = board["entries"]
    latest = _latest_versions(store, board["game"])
    for entry in entries:
        entry["latest"] = entry["bot_version_id"] in latest
    if versions == "latest":
        entries = [e for e in entries if e["latest"]]
        for number, entry in enumerate(entries, 1):
            entry["rank"] = number
    if limit:
        entries = entries[:limit]
    bot_of = _bot_ids(store, [e["bot_version_id"] for e in entries])
    for entry in entries:
        entry["bot_id"] = bot_of.get(entry["bot_version_id"])
    # The common scale of the mu +- 3 sigma bars drawn beside the numbers.
    scale = [min((e["mu"] - 3 * e["sigma"] for e in entries), default=0.0),
             max((e["mu"] + 3 * e["sigma"] for e in entries), default=1.0)]
    return {"game": board["game"], "tournament": board["tournament"], "versions": versions, "scale": scale,
            "standings": board.get("standings", "trueskill"), "entries": entries}


def leaderboard(store: Store, game: str, versions: str = "latest", limit: int | None = None,
                humans: bool = True) -> dict:
    """A game's leaderboard: every rated version (``versions="all"``) or each bot's latest;
    people who played bots (`arena.results.humans`) only with ``humans``."""
    known_game(store, game)
    from arena.results.leaderboard import game_leaderboard

    board = _finish_board(store, game_leaderboard(store, game, versions="all", humans=humans), versions, limit)
    return {**board, "humans": humans}


def tournament_standings(store: Store, tournament_id: int, versions: str = "all", limit: int | None = None) -> dict:
    tournament_row(store, tournament_id)  # NotFound first
    from arena.results.leaderboard import tournament_leaderboard

    return _finish_board(store, tournament_leaderboard(store, tournament_id), versions, limit)


# ---- bots -------------------------------------------------------------------------------------

def bots(store: Store, game: str) -> list[dict]:
    known_game(store, game)
    return store.query(
        "SELECT b.id, b.name, b.created_at, COUNT(v.id) AS versions, MAX(v.version) AS latest_version"
        " FROM bots b LEFT JOIN bot_versions v ON v.bot_id = b.id WHERE b.game = ? GROUP BY b.id ORDER BY b.name",
        [game])


def playable_games(store: Store) -> list[dict]:
    """Every game with the bots a person may play (each bot's name; people left out)."""
    from arena.games import all_games
    from arena.results.humans import NOT_HUMAN_SQL

    games = []
    for game in all_games():
        names = [row["name"] for row in store.query(
            "SELECT DISTINCT b.name FROM bots b JOIN bot_versions v ON v.bot_id = b.id"
            f" WHERE b.game = ? AND b.withdrawn = 0 AND v.withdrawn = 0 AND {NOT_HUMAN_SQL} ORDER BY b.name",
            [game.name])]
        games.append({"name": game.name, "title": game.title, "player_counts": list(game.player_counts),
                      "bots": names})
    return games


def bots_named(store: Store, name: str, game: str | None = None) -> list[dict]:
    """The bots called ``name`` (one per game; only ``game``'s when given): ``[{id, game}]``."""
    sql = "SELECT id, game FROM bots WHERE name = ?" + (" AND game = ?" if game else "") + " ORDER BY game"
    return store.query(sql, [name, game] if game else [name])


def bot(store: Store, bot_id: int) -> dict:
    """A bot with its versions, each with its rating, totals and rank in the game."""
    row = store.one("SELECT id, game, name, created_at FROM bots WHERE id = ?", [bot_id])
    if row is None:
        raise NotFound(f"no bot {bot_id}")
    failures = ", ".join(f"r.failures_{kind}" for kind in FAILURE_KINDS)
    versions = store.query(
        f"SELECT v.id, v.version, v.language, v.content_hash, v.submitted_at, r.mu, r.sigma, r.conservative,"
        f" r.matches, r.first_places, r.rank_sum, r.updated_at, {failures}"
        f" FROM bot_versions v LEFT JOIN ratings r ON r.bot_version_id = v.id AND r.game = ?"
        f" WHERE v.bot_id = ? ORDER BY v.version", [row["game"], bot_id])
    for version in versions:
        if version["mu"] is None:
            version["rating"] = None
        else:
            rank = store.one("SELECT COUNT(*) + 1 AS n FROM ratings WHERE game = ? AND conservative > ?",
                             [row["game"], version["conservative"]])["n"]
            matches = version["matches"] or 0
            version["rating"] = {
                "mu": version["mu"], "sigma": version["sigma"], "conservative": version["conservative"],
                "rank": rank, "matches": matches, "first_places": version["first_places"],
                "average_rank": version["rank_sum"] / matches if matches else None,
                "failures": {kind: version[f"failures_{kind}"] for kind in FAILURE_KINDS},
                "updated_at": version["updated_at"]}
        for key in ("mu", "sigma", "conservative", "matches", "first_places", "rank_sum", "updated_at",
                    *[f"failures_{kind}" for kind in FAILURE_KINDS]):
            del version[key]
    row["versions"] = versions
    row["game_title"] = game_info(row["game"])["title"]
    return row


def bot_matches(store: Store, bot_id: int, limit: int = RECENT_MATCHES, offset: int = 0) -> list[dict]:
    """The bot's played matches, newest first, each with every seat."""
    rows = store.query(
        "SELECT m.id, m.tournament_id, m.game, m.players, m.status, m.ended_at, m.duration_ms, s.seat,"
        " v.version FROM bot_versions v CROSS JOIN match_seats s ON s.bot_version_id = v.id"
        " JOIN matches m ON m.id = s.match_id WHERE v.bot_id = ? AND m.status != 'pending'"
        " ORDER BY m.id DESC, s.seat LIMIT ? OFFSET ?", [bot_id, limit, offset])
    seats = match_seats(store, sorted({r["id"] for r in rows}))
    for row in rows:
        row["seats"] = seats.get(row["id"], [])
        mine = next((s for s in row["seats"] if s["seat"] == row["seat"]), {})
        row.update({"status_of_bot": mine.get("status"), "rank_of_bot": mine.get("rank"),
                    "score_of_bot": mine.get("score")})
    return rows


def match_seats(store: Store, match_ids: list[int]) -> dict[int, list[dict]]:
    if not match_ids:
        return {}
    marks = ",".join("?" * len(match_ids))
    result: dict[int, list[dict]] = {}
    for seat in store.query(
            f"SELECT s.match_id, s.seat, b.id AS bot_id, b.name AS bot, v.version, s.team, s.status, s.score,"
            f" s.rank, s.time_ms, s.decisions, s.error FROM match_seats s"
            f" JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id"
            f" WHERE s.match_id IN ({marks}) ORDER BY s.match_id, s.seat", match_ids):
        result.setdefault(seat.pop("match_id"), []).append(seat)
    return result


def _stderr_of(store: Store, match_id: int, seat: int) -> str:
    row = store.one("SELECT stderr FROM match_logs WHERE match_id = ?", [match_id])
    if row is None:
        return ""
    texts = unpack(row["stderr"])
    return texts[seat] if seat < len(texts) and isinstance(texts[seat], str) else ""


def bot_failures(store: Store, bot_id: int, limit: int = RECENT_FAILURES, with_stderr: bool = True) -> list[dict]:
    """The bot's failed seats, newest first: status, error and the end of its stderr."""
    rows = store.query(
        "SELECT m.id AS match_id, m.tournament_id, m.ended_at, v.version, s.seat, s.status, s.error"
        " FROM bot_versions v CROSS JOIN match_seats s ON s.bot_version_id = v.id JOIN matches m ON m.id = s.match_id"
        " WHERE v.bot_id = ? AND s.status IS NOT NULL AND s.status != 'ok' ORDER BY m.id DESC LIMIT ?",
        [bot_id, limit])
    if with_stderr:
        for row in rows:
            row["stderr_tail"] = tail(_stderr_of(store, row["match_id"], row["seat"]))
    return rows


def failure_counts(store: Store, bot_id: int) -> dict:
    counts = {kind: 0 for kind in FAILURE_KINDS}
    for row in store.query(
            "SELECT s.status, COUNT(*) AS n FROM bot_versions v CROSS JOIN match_seats s ON s.bot_version_id = v.id"
            " WHERE v.bot_id = ? AND s.status IS NOT NULL AND s.status != 'ok' GROUP BY s.status", [bot_id]):
        counts[row["status"]] = row["n"]
    return counts


def rating_history(store: Store, bot_id: int) -> list[dict]:
    """Per version, the rating after each rated match, in rating order."""
    rows = store.query(
        "SELECT v.version, h.match_id, m.rating_seq, h.mu_before, h.sigma_before, h.mu_after, h.sigma_after"
        " FROM bot_versions v CROSS JOIN rating_history h ON h.bot_version_id = v.id"
        " JOIN matches m ON m.id = h.match_id"
        " WHERE v.bot_id = ? ORDER BY m.rating_seq", [bot_id])
    series: dict[int, dict] = {}
    for row in rows:
        entry = series.setdefault(row["version"], {"version": row["version"], "start": None, "points": []})
        if entry["start"] is None:
            entry["start"] = {"mu": row["mu_before"], "sigma": row["sigma_before"]}
        entry["points"].append({"match_id": row["match_id"], "rating_seq": row["rating_seq"],
                                "mu": row["mu_after"], "sigma": row["sigma_after"]})
    return [series[v] for v in sorted(series)]


# ---- tournaments ------------------------------------------------------------------------------


def _decode_tournament(row: dict) -> dict:
    row["options"] = json.loads(row["options"]) if row.get("options") else {}
    if row["status"] == "running" and row["runner_pid"] and not process_alive(row["runner_pid"]):
        row["status"] = "interrupted"  # as the CLI shows it: its process is gone
    del row["runner_pid"]
    return row


_TOURNAMENT_SELECT = "SELECT " + ", ".join(f"t.{c}" for c in TOURNAMENT_COLUMNS) + (
    ", (SELECT COUNT(*) FROM tournament_entries e WHERE e.tournament_id = t.id) AS entries FROM tournaments t")


def _progress(store: Store, ids: list[int] | None) -> dict[int, dict]:
    where, params = "", []
    if ids is not None:
        if not ids:
            return {}
        where = f" WHERE tournament_id IN ({','.join('?' * len(ids))})"
        params = ids
    result: dict[int, dict] = {}
    where = where.replace("tournament_id IN", "id IN")
    for row in store.query(f"SELECT id, matches_total, matches_finished, matches_error FROM tournaments{where}",
                           params):  # counts the store keeps with every write
        result[row["id"]] = {"total": row["matches_total"], "finished": row["matches_finished"],
                             "error": row["matches_error"],
                             "pending": row["matches_total"] - row["matches_finished"] - row["matches_error"]}
    return result


def _with_progress(row: dict, counts: dict | None) -> dict:
    counts = counts or {"pending": 0, "finished": 0, "error": 0, "total": 0}
    row.update({"matches_total": counts["total"], "matches_finished": counts["finished"],
                "matches_error": counts["error"], "matches_pending": counts["pending"]})
    return row


def tournaments(store: Store, game: str | None = None, limit: int | None = None) -> list[dict]:
    sql, params = _TOURNAMENT_SELECT, []
    if game:
        sql += " WHERE t.game = ?"
        params.append(game)
    sql += " ORDER BY t.id DESC"
    if limit:
        sql += " LIMIT ?"
        params.append(limit)
    rows = [_decode_tournament(r) for r in store.query(sql, params)]
    progress = _progress(store, [r["id"] for r in rows])
    return [_with_progress(r, progress.get(r["id"])) for r in rows]


FINALS_NOTE = ("A Swiss with finals: its final standings put the last final's finalists first, then the other"
               " finalists of each final before, then the rest, each group in the refit's order.")


def tournament_row(store: Store, tournament_id: int) -> dict:
    row = store.one(_TOURNAMENT_SELECT + " WHERE t.id = ?", [tournament_id])
    if row is None:
        raise NotFound(f"no tournament {tournament_id}")
    return _decode_tournament(row)


def tournament_progress(store: Store, tournament_id: int) -> dict:
    """What a page polls while a tournament runs: status and match counts."""
    row = tournament_row(store, tournament_id)
    _with_progress(row, _progress(store, [tournament_id]).get(tournament_id))
    return {key: row[key] for key in ("id", "status", "started_at", "finished_at", "rated_through", "matches_total",
                                      "matches_finished", "matches_error", "matches_pending")}


def swiss_account(store: Store, tournament_id: int, entries: list[dict]) -> dict:
    """A Swiss tournament's standings by Swiss points and its rounds (arena.results.swiss)."""
    from arena.results import swiss

    label = {e["bot_version_id"]: {"bot": e["bot"], "version": e["version"], "bot_id": e["bot_id"]} for e in entries}
    return {
        "standings": [{**label[r.version], "place": r.place, "points": r.points, "buchholz": r.buchholz,
                       "first_places": r.first_places, "matches": r.matches, "byes": r.byes}
                      for r in swiss.standings(store, tournament_id)],
        "rounds": [{"number": r.number, "finished": r.finished, "groups": [[label[v] for v in g] for g in r.groups],
                    "byes": [label[v] for v in r.byes]} for r in swiss.rounds(store, tournament_id)],
    }


def tournament(store: Store, tournament_id: int, versions: str = "all") -> dict:
    """A tournament: configuration, progress, standings, head-to-head, failures, errors."""
    row = tournament_row(store, tournament_id)
    _with_progress(row, _progress(store, [tournament_id]).get(tournament_id))
    row["game_title"] = game_info(row["game"])["title"]
    config = store.one("SELECT config FROM tournaments WHERE id = ?", [tournament_id])["config"]
    row["format_text"] = format_text({**row, "config": json.loads(config) if config else {}}, row["entries"])
    row["finals_note"] = (FINALS_NOTE if (json.loads(config) if config else {}).get("finals") else None)
    row["entries_list"] = store.query(
        "SELECT e.position, v.id AS bot_version_id, b.id AS bot_id, b.name AS bot, v.version, v.language"
        " FROM tournament_entries e JOIN bot_versions v ON v.id = e.bot_version_id JOIN bots b ON b.id = v.bot_id"
        " WHERE e.tournament_id = ? ORDER BY e.position", [tournament_id])
    statuses = {status: 0 for status in SEAT_STATUSES}
    for r in store.query("SELECT s.status, COUNT(*) AS n FROM matches m CROSS JOIN match_seats s ON s.match_id = m.id"
                         " WHERE m.tournament_id = ? AND s.status IS NOT NULL GROUP BY s.status", [tournament_id]):
        statuses[r["status"]] = r["n"]
    row["seat_statuses"] = statuses
    row["standings"] = tournament_standings(store, tournament_id, versions)
    row["swiss"] = swiss_account(store, tournament_id, row["entries_list"]) if row.get("format") == "swiss" else None
    row["head_to_head"] = head_to_head(store, tournament_id, row["standings"]["entries"][:HEAD_TO_HEAD_MAX])
    row["failures"] = store.query(
        "SELECT m.id AS match_id, m.schedule_index, s.seat, b.id AS bot_id, b.name AS bot, v.version, s.status, s.error"
        " FROM matches m CROSS JOIN match_seats s ON s.match_id = m.id JOIN bot_versions v ON v.id = s.bot_version_id"
        " JOIN bots b ON b.id = v.bot_id WHERE m.tournament_id = ? AND s.status IS NOT NULL AND s.status != 'ok'"
        " ORDER BY m.id DESC LIMIT ?", [tournament_id, 50])
    row["errors"] = store.query(
        "SELECT id AS match_id, schedule_index, error FROM matches WHERE tournament_id = ? AND status = 'error'"
        " ORDER BY schedule_index LIMIT 50", [tournament_id])
    row["recent_matches"] = matches(store, tournament_id=tournament_id, limit=20)
    return row


def head_to_head(store: Store, tournament_id: int, entries: list[dict]) -> dict:
    """For the given standings entries, pairwise results in the tournament's finished matches:
    ``cells[a][b] = [wins, draws, losses]`` of entry a against entry b (ranked above, equal,
    below in the same match)."""
    ids = [e["bot_version_id"] for e in entries]
    cells: dict[str, dict[str, list[int]]] = {str(a): {} for a in ids}
    if len(ids) >= 2:
        marks = ",".join("?" * len(ids))
        for r in store.query(
                f"SELECT a.bot_version_id AS a, b.bot_version_id AS b, SUM(a.rank < b.rank) AS w,"
                f" SUM(a.rank = b.rank) AS d, SUM(a.rank > b.rank) AS l"
                f" FROM matches m CROSS JOIN match_seats a ON a.match_id = m.id"
                f" JOIN match_seats b ON b.match_id = m.id AND b.seat != a.seat"
                f" WHERE m.tournament_id = ? AND m.status = 'finished' AND a.bot_version_id IN ({marks})"
                f" AND b.bot_version_id IN ({marks}) GROUP BY a.bot_version_id, b.bot_version_id",
                [tournament_id, *ids, *ids]):
            cells[str(r["a"])][str(r["b"])] = [r["w"], r["d"], r["l"]]
    return {"entries": [{"bot_version_id": e["bot_version_id"], "bot": e["bot"], "version": e["version"],
                         "bot_id": e.get("bot_id")} for e in entries], "cells": cells}


# ---- matches ----------------------------------------------------------------------------------

def matches(store: Store, tournament_id: int | None = None, game: str | None = None, limit: int = 50,
            offset: int = 0) -> list[dict]:
    """Played matches (finished or error), the latest first, with their seats."""
    where, params = ["m.status != 'pending'"], []
    if tournament_id is not None:
        where.append("m.tournament_id = ?")
        params.append(tournament_id)
    if game:
        where.append("m.game = ?")
        params.append(game)
    rows = store.query(
        "SELECT m.id, m.tournament_id, m.schedule_index, m.round, m.game, m.players, m.status, m.error, m.ended_at,"
        f" m.duration_ms FROM matches m WHERE {' AND '.join(where)} ORDER BY m.id DESC LIMIT ? OFFSET ?",
        [*params, limit, offset])
    seats = match_seats(store, [r["id"] for r in rows])
    for row in rows:
        row["seats"] = seats.get(row["id"], [])
    return rows


def match(store: Store, match_id: int, with_log: bool = False) -> dict:
    """A match with its seats (each with its stderr) and, with ``with_log``, its log."""
    try:
        found = store.match(match_id, with_log=with_log)
    except StoreError:
        raise NotFound(f"no match {match_id}") from None
    if not with_log:
        row = store.one("SELECT stderr FROM match_logs WHERE match_id = ?", [match_id])
        texts = unpack(row["stderr"]) if row else []
        for seat in found["seats"]:
            number = seat["seat"]
            seat["stderr"] = texts[number] if number < len(texts) and isinstance(texts[number], str) else ""
    names = match_seats(store, [match_id]).get(match_id, [])
    bot_ids = {s["seat"]: s["bot_id"] for s in names}
    for seat in found["seats"]:
        seat["bot_id"] = bot_ids.get(seat["seat"])
        seat.pop("bot_version_id", None)
    found["game_title"] = game_info(found["game"])["title"]
    return found


def match_for_file(path: str | os.PathLike, match_id: int) -> dict:
    """`match` with its log, for `arena replay`: the database opened for reading only with
    plain sqlite3 (`arena.results.matchread.open_readonly`), not as a `Store` — the command
    starts without sqlite-utils and numpy."""
    connection = open_readonly(path)
    try:
        try:
            found = read_match(connection, match_id, with_log=True)
        except StoreError:
            raise NotFound(f"no match {match_id}") from None
        bot_ids = dict(connection.execute(
            "SELECT s.seat, v.bot_id FROM match_seats s JOIN bot_versions v ON v.id = s.bot_version_id"
            " WHERE s.match_id = ?", [match_id]).fetchall())
    finally:
        connection.close()
    for seat in found["seats"]:
        seat["bot_id"] = bot_ids.get(seat["seat"])
        seat.pop("bot_version_id", None)
    found["game_title"] = game_info(found["game"])["title"]
    return found


def match_summary(found: dict) -> dict[str, Any]:
    """The match row as the API serves it (no log, no sandbox internals beyond its mode)."""
    keys = ("id", "tournament_id", "schedule_index", "round", "game", "game_title", "players", "options", "seed",
            "status", "error", "teams", "started_at", "ended_at", "duration_ms", "rating_seq")
    summary = {key: found.get(key) for key in keys}
    summary["sandbox"] = (found.get("sandbox") or {}).get("mode") if isinstance(found.get("sandbox"), dict) else None
    summary["clock"] = clock_of(found) if isinstance(found.get("sandbox"), dict) else None
    summary["seats"] = [{key: seat.get(key) for key in ("seat", "bot_id", "bot", "version", "team", "status", "score",
                                                          "rank", "time_ms", "decisions", "error")}
                        for seat in found["seats"]]
    return summary
