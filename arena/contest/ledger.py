"""What the contest runner writes for each inbox row it takes: the submission (accepted or
refused, with its build and validation output) and the ladder entry it changes, a request
carried out (or why not), test matches, the organiser's actions. Each is one transaction
that also marks the inbox row taken, so a row is taken exactly once, even across a
``kill -9`` of the runner."""

from __future__ import annotations

import json
import random

from arena.results import keys
from arena.results.store import Store, now
from arena.tournament.config import MAX_SEED


def taken_ids(store: Store, contest_id: int) -> set[int]:
    """Inbox ids already recorded (as submissions or requests)."""
    rows = store.query("SELECT inbox_id FROM contest_submissions WHERE contest_id = ?"
                       " UNION ALL SELECT inbox_id FROM contest_requests WHERE contest_id = ?", [contest_id, contest_id])
    return {row["inbox_id"] for row in rows}


def record_submission(store: Store, contest: dict, entrant: dict, row: dict, *, accepted: bool,
                      reason: str | None = None, build_log: str | None = None, validation: dict | None = None,
                      version_id: int | None = None) -> None:
    """Record an upload's outcome; an accepted version replaces the entrant's in the ladder
    (unless the entrant is withdrawn)."""
    with store.write():
        conn = store.db.conn
        conn.execute(
            "INSERT OR IGNORE INTO contest_submissions (contest_id, entrant_id, inbox_id, filename, received_at,"
            " processed_at, status, reason, build_log, validation, bot_version_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [contest["id"], entrant["id"], row["id"], row["filename"], row["received_at"], now(),
             "accepted" if accepted else "refused", reason, build_log,
             json.dumps(validation) if validation is not None else None, version_id])
        if not accepted:
            return
        old = conn.execute("SELECT bot_version_id, withdrawn FROM contest_entrants WHERE id = ?",
                           [entrant["id"]]).fetchone()
        conn.execute("UPDATE contest_entrants SET bot_version_id = ? WHERE id = ?", [version_id, entrant["id"]])
        if old[0] is not None and old[0] != version_id:
            _ladder_withdraw(conn, contest["ladder_id"], old[0])
        if not old[1]:
            _ladder_add(conn, contest["ladder_id"], version_id)


def record_request(store: Store, contest_id: int, row: dict, entrant_id: int | None, outcome: str,
                   test_matches: list[list[int]] | None = None, game: str | None = None, options: dict | None = None,
                   players: int | None = None) -> list[int]:
    """Record a request or action as carried out (``outcome`` says what happened); with
    ``test_matches`` (each a list of bot version ids, by seat) also store those unrated matches
    (no tournament: they never touch a rating). Returns the new matches' ids."""
    match_ids = []
    with store.write():
        conn = store.db.conn
        conn.execute(
            "INSERT INTO contest_requests (contest_id, inbox_id, entrant_id, kind, payload, outcome, received_at,"
            " processed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [contest_id, row["id"], entrant_id, row["kind"], row.get("payload"), outcome, row["received_at"], now()])
        for seats in test_matches or []:
            seed = random.SystemRandom().randrange(MAX_SEED)
            match_id = conn.execute(
                "INSERT INTO matches (tournament_id, game, players, options, seed, status) VALUES (NULL, ?, ?, ?, ?,"
                " 'pending')", [game, players, json.dumps(options or {}, sort_keys=True),
                                keys.deal_seed(keys.secret_for("test", seed), 0)]).lastrowid
            conn.executemany("INSERT INTO match_seats (match_id, seat, bot_version_id) VALUES (?, ?, ?)",
                             [(match_id, seat, version) for seat, version in enumerate(seats)])
            conn.execute("INSERT INTO contest_test_matches (match_id, contest_id, entrant_id, inbox_id) VALUES (?, ?, ?, ?)",
                         [match_id, contest_id, entrant_id, row["id"]])
            match_ids.append(match_id)
    return match_ids


def set_entrant_withdrawn(store: Store, contest: dict, entrant_id: int, withdrawn: bool) -> None:
    """Withdraw (or reinstate) an entrant: its version leaves (or rejoins) the ladder."""
    with store.write():
        conn = store.db.conn
        conn.execute("UPDATE contest_entrants SET withdrawn = ? WHERE id = ?", [int(withdrawn), entrant_id])
        version = conn.execute("SELECT bot_version_id FROM contest_entrants WHERE id = ?", [entrant_id]).fetchone()[0]
        if version is not None:
            (_ladder_withdraw if withdrawn else _ladder_add)(conn, contest["ladder_id"], version)


def set_closed(store: Store, contest_id: int, closed_at: str | None) -> None:
    """Close submissions as of ``closed_at`` (uploads received before it still count), or open them (None)."""
    with store.write():
        store.db.conn.execute("UPDATE contests SET closed_at = ? WHERE id = ?", [closed_at, contest_id])


def set_final(store: Store, contest_id: int, tournament_id: int) -> None:
    with store.write():
        store.db.conn.execute("UPDATE contests SET final_id = ? WHERE id = ?", [tournament_id, contest_id])


def _ladder_add(conn, ladder_id: int, version_id: int) -> None:
    row = conn.execute("SELECT position FROM tournament_entries WHERE tournament_id = ? AND bot_version_id = ?",
                       [ladder_id, version_id]).fetchone()
    if row is not None:
        conn.execute("UPDATE tournament_entries SET withdrawn = 0 WHERE tournament_id = ? AND position = ?",
                     [ladder_id, row[0]])
        return
    position = conn.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM tournament_entries WHERE tournament_id = ?",
                            [ladder_id]).fetchone()[0]
    conn.execute("INSERT INTO tournament_entries (tournament_id, position, bot_version_id) VALUES (?, ?, ?)",
                 [ladder_id, position, version_id])


def _ladder_withdraw(conn, ladder_id: int, version_id: int) -> None:
    conn.execute("UPDATE tournament_entries SET withdrawn = 1 WHERE tournament_id = ? AND bot_version_id = ?",
                 [ladder_id, version_id])
