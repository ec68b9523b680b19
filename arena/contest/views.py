"""Reads for the contest's pages (the web app) and `arena contest show`: fast by design.

Every list is one or two indexed queries over summary rows (submissions, seats, ratings):
no list unpacks a match log, and the leaderboard reads the ladder's running ratings
(``tournament_ratings``) instead of rebuilding anything. Only the detail of one match
(`seat_detail`) unpacks that one match's stderr and log.

Each function takes a `arena.results.store.Store` (read-only is enough: the web process opens
``Store(path, readonly=True, live=True)``) and the contest (`arena.contest.records.contest`).
Privacy is the caller's job, with the help of `match_access`: an entrant may see only their
own submissions, stderr and debug text; `seat_detail` returns only the asking entrant's seats.
"""

from __future__ import annotations

import json

from arena.results.ratings import conservative
from arena.results.store import Store, unpack

RECENT = 50
HISTORY_POINTS = 500
STDERR_TAIL = 64 << 10


def summary(store: Store, contest: dict) -> dict:
    """The contest's state: game, settings that pages show, counts, the ladder and the final."""
    config = contest["config"]
    counts = store.one(
        "SELECT (SELECT COUNT(*) FROM contest_entrants WHERE contest_id = :c) AS entrants,"
        " (SELECT COUNT(*) FROM contest_entrants WHERE contest_id = :c AND bot_version_id IS NOT NULL) AS with_bot,"
        " (SELECT COUNT(*) FROM contest_submissions WHERE contest_id = :c) AS submissions,"
        " (SELECT COUNT(*) FROM contest_submissions WHERE contest_id = :c AND status = 'refused') AS refused",
        {"c": contest["id"]})
    ladder = store.one("SELECT matches_total, matches_finished, matches_error FROM tournaments WHERE id = ?",
                       [contest["ladder_id"]])
    final = None
    if contest["final_id"] is not None:
        final = store.one("SELECT id, status, format, matches_total, matches_finished, matches_error FROM tournaments"
                          " WHERE id = ?", [contest["final_id"]])
    return {"id": contest["id"], "name": contest["name"], "game": contest["game"], "players": contest["players"],
            "deadline": config.deadline, "closed_at": contest["closed_at"], "open": contest["closed_at"] is None,
            "public_replays": config.public_replays, "limits": {
                key: getattr(config, key) for key in ("upload_bytes", "unpacked_bytes", "files_per_upload",
                                                      "submissions_per_day", "test_matches_per_hour",
                                                      "test_opponents_max", "test_repeats_max")},
            **counts, "ladder": ladder, "final": final}


def leaderboard(store: Store, contest: dict) -> list[dict]:
    """The running ladder's standings of every entrant's current version (withdrawn left out),
    by conservative rating (μ − 3σ); entrants whose version has no rated match yet come last."""
    rows = store.query(
        "SELECT e.id AS entrant_id, e.name, v.version, r.mu, r.sigma, COALESCE(r.matches, 0) AS matches,"
        " COALESCE(r.first_places, 0) AS first_places, r.rank_sum,"
        " COALESCE(r.failures_timeout + r.failures_crash + r.failures_illegal + r.failures_protocol"
        "  + r.failures_limit, 0) AS failures"
        " FROM contest_entrants e JOIN bot_versions v ON v.id = e.bot_version_id"
        " LEFT JOIN tournament_ratings r ON r.tournament_id = ? AND r.bot_version_id = e.bot_version_id"
        " WHERE e.contest_id = ? AND e.withdrawn = 0", [contest["ladder_id"], contest["id"]])
    for row in rows:
        row["rating"] = None if row["mu"] is None else conservative(row["mu"], row["sigma"])
        row["average_rank"] = row.pop("rank_sum") / row["matches"] if row["matches"] else None
    rows.sort(key=lambda r: (r["rating"] is None, -(r["rating"] or 0.0), r["name"]))
    for place, row in enumerate(rows, 1):
        row["rank"] = place if row["rating"] is not None else None
    return rows


def entrant_by_name(store: Store, contest: dict, name: str) -> dict | None:
    """An entrant's public row: id, name, withdrawn, current version (never the e-mail or token)."""
    return store.one("SELECT e.id, e.name, e.withdrawn, e.bot_version_id, v.version FROM contest_entrants e"
                     " LEFT JOIN bot_versions v ON v.id = e.bot_version_id WHERE e.contest_id = ? AND e.name = ?",
                     [contest["id"], name])


def submissions(store: Store, contest: dict, entrant_id: int, limit: int = RECENT) -> list[dict]:
    """An entrant's uploads as the runner recorded them, newest first: status, refusal reason,
    build output and validation (status, error, stderr, notes), and the version it made."""
    rows = store.query(
        "SELECT s.id, s.inbox_id, s.filename, s.received_at, s.processed_at, s.status, s.reason, s.build_log,"
        " s.validation, v.version, s.bot_version_id, (e.bot_version_id = s.bot_version_id) AS current"
        " FROM contest_submissions s JOIN contest_entrants e ON e.id = s.entrant_id"
        " LEFT JOIN bot_versions v ON v.id = s.bot_version_id"
        " WHERE s.entrant_id = ? AND s.contest_id = ? ORDER BY s.id DESC LIMIT ?", [entrant_id, contest["id"], limit])
    for row in rows:
        row["validation"] = json.loads(row["validation"]) if row["validation"] else None
        row["current"] = bool(row["current"])
    return rows


def waiting(inbox, store: Store, contest: dict, entrant_name: str) -> list[dict]:
    """An entrant's uploads and requests still in the inbox (not taken by the runner yet)."""
    rows = inbox.waiting_for(entrant_name, set())
    if not rows:
        return []
    ids = [row["id"] for row in rows]
    marks = ",".join("?" * len(ids))
    taken = {row["inbox_id"] for row in store.query(
        f"SELECT inbox_id FROM contest_submissions WHERE contest_id = ? AND inbox_id IN ({marks})"
        f" UNION ALL SELECT inbox_id FROM contest_requests WHERE contest_id = ? AND inbox_id IN ({marks})",
        [contest["id"], *ids, contest["id"], *ids])}
    return [row for row in rows if row["id"] not in taken]


def requests(store: Store, contest: dict, entrant_id: int, limit: int = RECENT) -> list[dict]:
    """An entrant's test-match requests and what became of them, newest first."""
    rows = store.query("SELECT inbox_id, payload, outcome, received_at, processed_at FROM contest_requests"
                       " WHERE contest_id = ? AND entrant_id = ? ORDER BY inbox_id DESC LIMIT ?",
                       [contest["id"], entrant_id, limit])
    for row in rows:
        row["payload"] = json.loads(row["payload"]) if row["payload"] else None
    return rows


def _versions_of(store: Store, contest: dict, entrant_id: int) -> list[int]:
    return [row["bot_version_id"] for row in store.query(
        "SELECT DISTINCT bot_version_id FROM contest_submissions WHERE entrant_id = ? AND contest_id = ?"
        " AND bot_version_id IS NOT NULL", [entrant_id, contest["id"]])]


def rating_history(store: Store, contest: dict, entrant_id: int, limit: int = HISTORY_POINTS) -> list[dict]:
    """The entrant's ladder rating after each of its rated ladder matches, oldest first (the
    last ``limit``): match id, version, μ, σ, conservative rating, when."""
    versions = _versions_of(store, contest, entrant_id)
    if not versions:
        return []
    rows = store.query(
        "SELECT h.match_id, v.version, h.mu_after AS mu, h.sigma_after AS sigma, m.ended_at FROM rating_history h"
        " JOIN matches m ON m.id = h.match_id JOIN bot_versions v ON v.id = h.bot_version_id"
        f" WHERE h.bot_version_id IN ({','.join('?' * len(versions))}) AND m.tournament_id = ?"
        " ORDER BY h.match_id DESC LIMIT ?", [*versions, contest["ladder_id"], limit])
    rows.reverse()
    for row in rows:
        row["rating"] = conservative(row["mu"], row["sigma"])
    return rows


def matches(store: Store, contest: dict, entrant_id: int, limit: int = RECENT, before: int | None = None) -> list[dict]:
    """The entrant's matches, newest first (pages of ``limit``; ``before``: a match id): kind
    (ladder, test, final), status, the entrant's own seat (status, rank, score, error) and
    everyone's names, versions and ranks."""
    versions = _versions_of(store, contest, entrant_id)
    if not versions:
        return []
    marks = ",".join("?" * len(versions))
    rows = store.query(
        "SELECT m.id, m.tournament_id, m.status, m.ended_at, m.rating_seq, s.seat, s.status AS seat_status, s.rank,"
        " s.score, s.error FROM match_seats s JOIN matches m ON m.id = s.match_id"
        f" WHERE s.bot_version_id IN ({marks}) AND s.match_id < ? ORDER BY s.match_id DESC LIMIT ?",
        [*versions, before or (1 << 62), limit])
    ids = [row["id"] for row in rows]
    if not ids:
        return []
    tests = {row["match_id"] for row in store.query(
        f"SELECT match_id FROM contest_test_matches WHERE match_id IN ({','.join('?' * len(ids))})", ids)}
    seats = _seats(store, ids)
    for row in rows:
        row["kind"] = ("test" if row["id"] in tests else "ladder" if row["tournament_id"] == contest["ladder_id"]
                       else "final" if row["tournament_id"] == contest["final_id"] else "other")
        row["seats"] = seats.get(row["id"], [])
    return [row for row in rows if row["kind"] != "other"]


def _seats(store: Store, match_ids: list[int]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    for row in store.query(
            "SELECT s.match_id, s.seat, b.name, v.version, s.status, s.rank, s.score FROM match_seats s"
            " JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id"
            f" WHERE s.match_id IN ({','.join('?' * len(match_ids))}) ORDER BY s.match_id, s.seat", match_ids):
        found.setdefault(row.pop("match_id"), []).append(row)
    return found


def failures(store: Store, contest: dict, entrant_id: int | None = None, limit: int = RECENT) -> list[dict]:
    """Failed seats, newest first (an entrant's own, or — for the organiser — everyone's in the
    contest's ladder, final and test matches): match, seat, name, version, status, error. No
    stderr here: `seat_detail` reads it for one match."""
    if entrant_id is not None:
        versions = _versions_of(store, contest, entrant_id)
        if not versions:
            return []
        where = f"s.bot_version_id IN ({','.join('?' * len(versions))})"
        params: list = list(versions)
    else:
        where = ("(m.tournament_id IN (?, ?) OR m.id IN (SELECT match_id FROM contest_test_matches"
                 " WHERE contest_id = ?))")
        params = [contest["ladder_id"], contest["final_id"] or -1, contest["id"]]
    # CROSS JOIN keeps the failed seats outermost: newest first along the partial index of
    # failed seats (schema's match_seats_failed), stopping at the limit.
    join = "CROSS JOIN" if entrant_id is None else "JOIN"
    return store.query(
        "SELECT m.id AS match_id, m.tournament_id, m.ended_at, s.seat, b.name, v.version, s.status, s.error"
        f" FROM match_seats s {join} matches m ON m.id = s.match_id JOIN bot_versions v ON v.id = s.bot_version_id"
        f" JOIN bots b ON b.id = v.bot_id WHERE {where} AND s.status IS NOT NULL AND s.status != 'ok'"
        " ORDER BY s.match_id DESC LIMIT ?", [*params, limit])


def match_access(store: Store, contest: dict, match_id: int, entrant_id: int | None) -> str | None:
    """What a viewer may see of a match: ``"own"`` (an entrant who played in it: the full view,
    and their own seats' stderr and debug text), ``"public"`` (a finished ladder or final match
    when the contest makes full views public), ``"result"`` (ranks only), or None (not this
    contest's match). Nobody but the seat's own entrant sees its stderr or debug text."""
    row = store.one("SELECT m.tournament_id, m.status, (SELECT contest_id FROM contest_test_matches t"
                    " WHERE t.match_id = m.id) AS test_contest FROM matches m WHERE m.id = ?", [match_id])
    if row is None:
        return None
    ours = row["tournament_id"] in (contest["ladder_id"], contest["final_id"]) or row["test_contest"] == contest["id"]
    if not ours:
        return None
    if entrant_id is not None:
        versions = _versions_of(store, contest, entrant_id)
        if versions and store.one(
                f"SELECT 1 AS x FROM match_seats WHERE match_id = ? AND bot_version_id IN ({','.join('?' * len(versions))})",
                [match_id, *versions]):
            return "own"
    if row["status"] == "finished" and contest["config"].public_replays and row["test_contest"] is None:
        return "public"
    return "result"


def seat_detail(store: Store, contest: dict, match_id: int, entrant_id: int | None) -> list[dict]:
    """The entrant's own seats in one match (``entrant_id=None``: every seat, for the
    organiser only): status, error, stderr (its last 64 KiB) and the debug text of each of its
    decisions (step, text). Unpacks this one match's log."""
    if entrant_id is None:
        seats = store.query("SELECT s.seat, b.name, s.status, s.error, s.rank, s.score FROM match_seats s"
                            " JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id"
                            " WHERE s.match_id = ? ORDER BY s.seat", [match_id])
        if not seats or match_access(store, contest, match_id, None) is None:
            return []
    else:
        versions = _versions_of(store, contest, entrant_id)
        if not versions:
            return []
        seats = store.query(
            f"SELECT seat, status, error, rank, score FROM match_seats WHERE match_id = ? AND bot_version_id IN"
            f" ({','.join('?' * len(versions))}) ORDER BY seat", [match_id, *versions])
    if not seats:
        return []
    logs = store.one("SELECT log, stderr FROM match_logs WHERE match_id = ?", [match_id])
    stderr = unpack(logs["stderr"]) if logs else []
    events = unpack(logs["log"]) if logs else []
    for seat in seats:
        number = seat["seat"]
        text = stderr[number] if number < len(stderr) and isinstance(stderr[number], str) else ""
        seat["stderr"] = text[-STDERR_TAIL:]
        seat["debug"] = [{"step": e.get("step"), "text": e["debug"]} for e in events
                         if isinstance(e, dict) and e.get("seat") == number and e.get("debug")]
    return seats


# ---- the organiser's lists ---------------------------------------------------------------------

def entrants(store: Store, contest: dict, limit: int = -1, offset: int = 0) -> list[dict]:
    """Entrants by name (every one, or ``limit`` from ``offset``) with counts: submissions
    (accepted, refused), current version, whether a link was issued, and the last upload's
    status."""
    return store.query(
        "SELECT e.id, e.name, e.email, e.withdrawn, v.version, (e.token_sha256 IS NOT NULL) AS has_link,"
        " COUNT(s.id) AS submissions, COALESCE(SUM(s.status = 'accepted'), 0) AS accepted,"
        " COALESCE(SUM(s.status = 'refused'), 0) AS refused, MAX(s.processed_at) AS last_processed"
        " FROM (SELECT * FROM contest_entrants WHERE contest_id = ? ORDER BY name LIMIT ? OFFSET ?) e"
        " LEFT JOIN bot_versions v ON v.id = e.bot_version_id"
        " LEFT JOIN contest_submissions s ON s.entrant_id = e.id"
        " GROUP BY e.id ORDER BY e.name", [contest["id"], limit, offset])


def entrant_counts(store: Store, contest: dict) -> dict:
    """``entrants``, ``withdrawn``, ``playing`` (with an accepted version), ``submissions``."""
    return store.one(
        "SELECT COUNT(*) AS entrants, COALESCE(SUM(withdrawn != 0), 0) AS withdrawn,"
        " COALESCE(SUM(bot_version_id IS NOT NULL AND withdrawn = 0), 0) AS playing,"
        " (SELECT COUNT(*) FROM contest_submissions WHERE contest_id = :c) AS submissions"
        " FROM contest_entrants WHERE contest_id = :c", {"c": contest["id"]})


def all_submissions(store: Store, contest: dict, limit: int = 200, before: int | None = None) -> list[dict]:
    """Every entrant's submissions, newest first (no build output: one entrant's page has it)."""
    return store.query(
        "SELECT s.id, e.name, s.filename, s.received_at, s.processed_at, s.status, s.reason, v.version"
        " FROM contest_submissions s JOIN contest_entrants e ON e.id = s.entrant_id"
        " LEFT JOIN bot_versions v ON v.id = s.bot_version_id"
        " WHERE s.contest_id = ? AND s.id < ? ORDER BY s.id DESC LIMIT ?",
        [contest["id"], before or (1 << 62), limit])


def queue(inbox, store: Store, contest: dict) -> dict:
    """What waits: inbox rows not yet taken (uploads building or queued, requests), pending
    test matches, and the ladder's (or final's) pending matches."""
    recent = _recent_inbox(inbox) if inbox is not None else []
    ids = [row["id"] for row in recent]
    taken = set()
    if ids:
        marks = ",".join("?" * len(ids))
        taken = {row["inbox_id"] for row in store.query(
            f"SELECT inbox_id FROM contest_submissions WHERE contest_id = ? AND inbox_id IN ({marks})"
            f" UNION ALL SELECT inbox_id FROM contest_requests WHERE contest_id = ? AND inbox_id IN ({marks})",
            [contest["id"], *ids, contest["id"], *ids])}
    pending = store.one(
        "SELECT (SELECT COUNT(*) FROM contest_test_matches t JOIN matches m ON m.id = t.match_id"
        "  WHERE t.contest_id = :c AND m.status = 'pending') AS test_matches,"
        " (SELECT COUNT(*) FROM matches WHERE tournament_id = :l AND status = 'pending') AS ladder_matches,"
        " (SELECT COUNT(*) FROM matches WHERE tournament_id = :f AND status = 'pending') AS final_matches",
        {"c": contest["id"], "l": contest["ladder_id"], "f": contest["final_id"] or -1})
    return {"inbox": [row for row in recent if row["id"] not in taken], **pending}


def _recent_inbox(inbox, limit: int = 1000) -> list[dict]:
    if inbox.conn is None:
        return []
    return [dict(row) for row in inbox.conn.execute(
        "SELECT id, kind, entrant, filename, size, payload, received_at FROM inbox ORDER BY id DESC LIMIT ?", [limit])]
