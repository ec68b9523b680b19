"""The contest pages' reads of the results database (read-only; explicit columns; indexed).

The pages read mostly through the contest core's `arena.contest.views`; these are the few
reads it does not have (who is signed in, name lookups, the field for test matches, whose seats
are whose). Each is one indexed query; none unpacks a match log.
"""

from __future__ import annotations

from arena.results.store import Store

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


def requests(store: Store, contest_id: int, entrant_id: int | None = None, limit: int = RECENT) -> list[dict]:
    where, params = ["contest_id = ?"], [contest_id]
    if entrant_id is not None:
        where.append("entrant_id = ?")
        params.append(entrant_id)
    return store.query("SELECT inbox_id, kind, payload, outcome, received_at, processed_at FROM contest_requests"
                       f" WHERE {' AND '.join(where)} ORDER BY inbox_id DESC LIMIT ?", [*params, limit])


def ladder_progress(store: Store, ladder_id: int | None) -> dict:
    if ladder_id is None:
        return {"pending": 0, "finished": 0, "error": 0}
    counts = {"pending": 0, "finished": 0, "error": 0}
    for row in store.query("SELECT status, COUNT(*) AS n FROM matches WHERE tournament_id = ? GROUP BY status",
                           [ladder_id]):
        counts[row["status"]] = row["n"]
    return counts


def own_seats(store: Store, contest_id: int, match_id: int, entrant_id: int) -> set[int]:
    """The seats an entrant's versions (any they submitted to this contest) held in a match."""
    return {row["seat"] for row in store.query(
        "SELECT s.seat FROM match_seats s WHERE s.match_id = ? AND s.bot_version_id IN"
        " (SELECT bot_version_id FROM contest_submissions WHERE contest_id = ? AND entrant_id = ?"
        "  AND bot_version_id IS NOT NULL)", [match_id, contest_id, entrant_id])}


def match(store: Store, match_id: int) -> dict:
    """A match with its seats (names, versions, results), without its log or stderr: what every
    visitor of its page needs (`arena.web.data.match` also unpacks every seat's stderr)."""
    from arena.results.store import StoreError
    from arena.web.data import NotFound, game_info

    try:
        found = store.match(match_id, with_log=False)
    except StoreError:
        raise NotFound(f"no match {match_id}") from None
    for seat in found["seats"]:
        seat.pop("bot_version_id", None)
    found["game_title"] = game_info(found["game"])["title"]
    return found


def stderr_texts(store: Store, match_id: int) -> list[str]:
    """Every seat's stderr in a match (one unpack of its stderr blob)."""
    from arena.results.store import unpack

    row = store.one("SELECT stderr FROM match_logs WHERE match_id = ?", [match_id])
    texts = unpack(row["stderr"]) if row else []
    return [text if isinstance(text, str) else "" for text in texts]
