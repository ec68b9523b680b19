"""The contest pages' reads of the results database (read-only; explicit columns; indexed).

Lists come from summary columns (``contest_submissions``, ``match_seats``, ``matches``) and
never unpack a match log; only a single match's page, or an entrant's own failures (a few
rows), read ``match_logs``. Until the contest core has a read API for pages
(`arena.contest.views`), these are the pages' reads.
"""

from __future__ import annotations

import json

from arena.results.store import Store
from arena.web import data

RECENT = 50


def entrant_by_id(store: Store, contest_id: int, entrant_id: int) -> dict | None:
    return store.one("SELECT id, name, email, withdrawn, token_sha256, bot_version_id FROM contest_entrants"
                     " WHERE contest_id = ? AND id = ?", [contest_id, entrant_id])


def entrant_by_name(store: Store, contest_id: int, name: str) -> dict | None:
    return store.one("SELECT id, name, withdrawn, bot_version_id FROM contest_entrants"
                     " WHERE contest_id = ? AND name = ?", [contest_id, name])


def bot_id(store: Store, game: str, name: str) -> int | None:
    row = store.one("SELECT id FROM bots WHERE game = ? AND name = ?", [game, name])
    return row["id"] if row else None


def bot_name(store: Store, bot: int) -> str | None:
    row = store.one("SELECT name FROM bots WHERE id = ?", [bot])
    return row["name"] if row else None


def field(store: Store, contest_id: int) -> list[dict]:
    """Entrants with an accepted version, not withdrawn: whom a test match may name."""
    return store.query("SELECT name FROM contest_entrants WHERE contest_id = ? AND withdrawn = 0"
                       " AND bot_version_id IS NOT NULL ORDER BY name", [contest_id])


def submissions(store: Store, contest_id: int, entrant_id: int | None = None, limit: int = RECENT,
                refused: bool = True) -> list[dict]:
    """Submissions newest first (one entrant's, or everyone's), with the version they made."""
    where, params = ["s.contest_id = ?"], [contest_id]
    if entrant_id is not None:
        where.append("s.entrant_id = ?")
        params.append(entrant_id)
    if not refused:
        where.append("s.status = 'accepted'")
    rows = store.query(
        "SELECT s.id, e.name AS entrant, s.inbox_id, s.filename, s.received_at, s.processed_at, s.status, s.reason,"
        " s.build_log, s.validation, v.version FROM contest_submissions s"
        " JOIN contest_entrants e ON e.id = s.entrant_id LEFT JOIN bot_versions v ON v.id = s.bot_version_id"
        f" WHERE {' AND '.join(where)} ORDER BY s.id DESC LIMIT ?", [*params, limit])
    for row in rows:
        try:
            row["validation"] = json.loads(row["validation"]) if row["validation"] else None
        except ValueError:
            row["validation"] = {"error": row["validation"]}
    return rows


def test_matches(store: Store, entrant_id: int, limit: int = RECENT) -> list[dict]:
    rows = store.query(
        "SELECT t.match_id AS id, m.status, m.ended_at FROM contest_test_matches t JOIN matches m ON m.id = t.match_id"
        " WHERE t.entrant_id = ? ORDER BY t.match_id DESC LIMIT ?", [entrant_id, limit])
    seats = data.match_seats(store, [r["id"] for r in rows])
    for row in rows:
        row["seats"] = seats.get(row["id"], [])
    return rows


def requests(store: Store, contest_id: int, entrant_id: int | None = None, limit: int = RECENT) -> list[dict]:
    where, params = ["contest_id = ?"], [contest_id]
    if entrant_id is not None:
        where.append("entrant_id = ?")
        params.append(entrant_id)
    return store.query("SELECT inbox_id, kind, payload, outcome, received_at, processed_at FROM contest_requests"
                       f" WHERE {' AND '.join(where)} ORDER BY inbox_id DESC LIMIT ?", [*params, limit])


def taken(store: Store, contest_id: int, entrant_id: int | None = None) -> set[int]:
    """Inbox ids the runner has recorded (of one entrant, or all)."""
    extra, params = "", [contest_id]
    if entrant_id is not None:
        extra, params = " AND entrant_id = ?", [contest_id, entrant_id]
    rows = store.query(f"SELECT inbox_id FROM contest_submissions WHERE contest_id = ?{extra}"
                       f" UNION ALL SELECT inbox_id FROM contest_requests WHERE contest_id = ?{extra}",
                       params + params)
    return {row["inbox_id"] for row in rows}


def entrants_overview(store: Store, contest_id: int) -> list[dict]:
    """Every entrant with counts of accepted and refused submissions and the version in play."""
    return store.query(
        "SELECT e.id, e.name, e.email, e.withdrawn, v.version,"
        " (SELECT COUNT(*) FROM contest_submissions s WHERE s.entrant_id = e.id AND s.status = 'accepted') AS accepted,"
        " (SELECT COUNT(*) FROM contest_submissions s WHERE s.entrant_id = e.id AND s.status = 'refused') AS refused"
        " FROM contest_entrants e LEFT JOIN bot_versions v ON v.id = e.bot_version_id"
        " WHERE e.contest_id = ? ORDER BY e.name", [contest_id])


def failures(store: Store, game: str, limit: int = RECENT) -> list[dict]:
    """The latest failed seats in the contest's game (no stderr: the organiser opens a match)."""
    return store.query(
        "SELECT s.match_id, m.tournament_id, m.ended_at, b.name AS bot, v.version, s.seat, s.status, s.error"
        " FROM match_seats s JOIN matches m ON m.id = s.match_id JOIN bot_versions v ON v.id = s.bot_version_id"
        " JOIN bots b ON b.id = v.bot_id WHERE m.game = ? AND s.status IS NOT NULL AND s.status != 'ok'"
        " ORDER BY s.match_id DESC LIMIT ?", [game, limit])


def ladder_progress(store: Store, ladder_id: int | None) -> dict:
    if ladder_id is None:
        return {"pending": 0, "finished": 0, "error": 0}
    counts = {"pending": 0, "finished": 0, "error": 0}
    for row in store.query("SELECT status, COUNT(*) AS n FROM matches WHERE tournament_id = ? GROUP BY status",
                           [ladder_id]):
        counts[row["status"]] = row["n"]
    return counts


def match_bot_names(store: Store, match_id: int) -> list[str]:
    """The bots (names) that played a match, by seat."""
    return [r["name"] for r in store.query(
        "SELECT b.name FROM match_seats s JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id"
        " WHERE s.match_id = ? ORDER BY s.seat", [match_id])]


def match_game(store: Store, match_id: int) -> str | None:
    row = store.one("SELECT game FROM matches WHERE id = ?", [match_id])
    return row["game"] if row else None
