"""The SQLite store: the schema (all of it, in `SCHEMA` below), and every read and write.

One file (default ``results/arena.db``), WAL mode, so a leaderboard can be read while a
tournament writes. Only the coordinating process writes. A finished match — its row, its
seats, its compressed log and the rating updates it unblocks — is committed in one
transaction (`Store.record_match`).

Ratings are applied per tournament in schedule order: ``tournaments.rated_through`` is the
highest schedule index whose match is rated (or skipped because it errored); a match that
finishes before an earlier one is stored at once and rated when the gap closes. Every rated
match gets the next global ``matches.rating_seq``, the order `recompute_ratings` replays.

Bot copies live in ``bots/`` next to the database file; ``bot_versions.path`` is relative to
the database's folder, so a results folder can be moved as a whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import zlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import sqlite_utils

from arena.results import ratings as trueskill_ratings

DEFAULT_DB = "results/arena.db"
SCHEMA_VERSION = 1
SEAT_STATUSES = ("ok", "timeout", "crash", "illegal", "protocol", "limit")
FAILURE_KINDS = SEAT_STATUSES[1:]

SCHEMA = """
-- A bot is a name within a game; its submitted copies are its versions.
CREATE TABLE IF NOT EXISTS bots (
    id          INTEGER PRIMARY KEY,
    game        TEXT NOT NULL,
    name        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    UNIQUE (game, name)
);

CREATE TABLE IF NOT EXISTS bot_versions (
    id            INTEGER PRIMARY KEY,
    bot_id        INTEGER NOT NULL REFERENCES bots(id),
    version       INTEGER NOT NULL,            -- 1, 2, ... per bot
    language      TEXT,                        -- python, javascript, executable, ...
    content_hash  TEXT NOT NULL,               -- sha256 of the submitted file or directory
    path          TEXT NOT NULL,               -- the managed copy, relative to the database folder
    source        TEXT,                        -- where it was submitted from
    submitted_at  TEXT NOT NULL,
    UNIQUE (bot_id, version),
    UNIQUE (bot_id, content_hash)
);

CREATE TABLE IF NOT EXISTS tournaments (
    id             INTEGER PRIMARY KEY,
    name           TEXT,
    game           TEXT NOT NULL,
    players        INTEGER NOT NULL,
    rounds         INTEGER NOT NULL,
    seed           INTEGER NOT NULL,
    options        TEXT NOT NULL,               -- JSON, validated and complete
    config         TEXT NOT NULL,               -- JSON, the configuration as given
    status         TEXT NOT NULL CHECK (status IN ('created', 'running', 'interrupted', 'finished')),
    rated_through  INTEGER NOT NULL DEFAULT -1, -- ratings applied up to this schedule index
    runner_pid     INTEGER,                     -- the process running it, while running
    created_at     TEXT NOT NULL,
    started_at     TEXT,
    finished_at    TEXT
);

CREATE TABLE IF NOT EXISTS tournament_entries (
    tournament_id   INTEGER NOT NULL REFERENCES tournaments(id),
    position        INTEGER NOT NULL,
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    PRIMARY KEY (tournament_id, position),
    UNIQUE (tournament_id, bot_version_id)
);

-- Every scheduled match exists from the start, 'pending' until its result is committed.
CREATE TABLE IF NOT EXISTS matches (
    id              INTEGER PRIMARY KEY,
    tournament_id   INTEGER REFERENCES tournaments(id),
    schedule_index  INTEGER,
    round           INTEGER,
    game            TEXT NOT NULL,
    players         INTEGER NOT NULL,
    options         TEXT NOT NULL,              -- JSON
    seed            INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'finished', 'error')),
    error           TEXT,                       -- why the harness could not play it
    teams           TEXT,                       -- JSON list of seat lists, or NULL
    sandbox         TEXT,                       -- JSON
    started_at      TEXT,
    ended_at        TEXT,
    duration_ms     REAL,
    rating_seq      INTEGER UNIQUE,             -- order ratings were applied; NULL = unrated
    UNIQUE (tournament_id, schedule_index)
);
CREATE INDEX IF NOT EXISTS matches_by_game_rating ON matches (game, rating_seq);
CREATE INDEX IF NOT EXISTS matches_by_status ON matches (tournament_id, status);

CREATE TABLE IF NOT EXISTS match_seats (
    match_id        INTEGER NOT NULL REFERENCES matches(id),
    seat            INTEGER NOT NULL,
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    team            INTEGER,
    status          TEXT CHECK (status IN ('ok', 'timeout', 'crash', 'illegal', 'protocol', 'limit')),
    score           REAL,
    rank            INTEGER,
    time_ms         REAL,
    decisions       INTEGER,
    error           TEXT,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS match_seats_by_bot_version ON match_seats (bot_version_id);

-- The full log: every request and reply (zlib-compressed JSON list), and each seat's stderr.
CREATE TABLE IF NOT EXISTS match_logs (
    match_id  INTEGER PRIMARY KEY REFERENCES matches(id),
    encoding  TEXT NOT NULL DEFAULT 'zlib+json',
    log       BLOB NOT NULL,
    stderr    BLOB NOT NULL
);

-- Current rating and running totals per bot version and game.
CREATE TABLE IF NOT EXISTS ratings (
    game               TEXT NOT NULL,
    bot_version_id     INTEGER NOT NULL REFERENCES bot_versions(id),
    mu                 REAL NOT NULL,
    sigma              REAL NOT NULL,
    conservative       REAL NOT NULL,           -- mu - 3 * sigma, the leaderboard order
    matches            INTEGER NOT NULL DEFAULT 0,
    first_places       INTEGER NOT NULL DEFAULT 0,
    rank_sum           INTEGER NOT NULL DEFAULT 0,
    failures_timeout   INTEGER NOT NULL DEFAULT 0,
    failures_crash     INTEGER NOT NULL DEFAULT 0,
    failures_illegal   INTEGER NOT NULL DEFAULT 0,
    failures_protocol  INTEGER NOT NULL DEFAULT 0,
    failures_limit     INTEGER NOT NULL DEFAULT 0,
    updated_at         TEXT NOT NULL,
    PRIMARY KEY (game, bot_version_id)
);
CREATE INDEX IF NOT EXISTS ratings_leaderboard ON ratings (game, conservative DESC);

CREATE TABLE IF NOT EXISTS rating_history (
    match_id        INTEGER NOT NULL REFERENCES matches(id),
    seat            INTEGER NOT NULL,
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    mu_before       REAL NOT NULL,
    sigma_before    REAL NOT NULL,
    mu_after        REAL NOT NULL,
    sigma_after     REAL NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS rating_history_by_bot_version ON rating_history (bot_version_id, match_id);

-- For people browsing with sqlite3 or Datasette: the leaderboard of every game.
CREATE VIEW IF NOT EXISTS leaderboard AS
SELECT r.game, b.name AS bot, v.version, r.conservative, r.mu, r.sigma, r.matches,
       r.first_places, CAST(r.rank_sum AS REAL) / NULLIF(r.matches, 0) AS average_rank,
       r.failures_timeout, r.failures_crash, r.failures_illegal, r.failures_protocol,
       r.failures_limit
FROM ratings r JOIN bot_versions v ON v.id = r.bot_version_id JOIN bots b ON b.id = v.bot_id
ORDER BY r.game, r.conservative DESC;
"""


class StoreError(Exception):
    """A one-line problem with the database or what was asked of it."""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def default_path() -> str:
    return os.environ.get("ARENA_DB") or DEFAULT_DB


def pack(value: Any) -> bytes:
    """zlib-compressed compact JSON, the encoding of `match_logs` blobs."""
    return zlib.compress(json.dumps(value, separators=(",", ":")).encode("utf-8"), 6)


def unpack(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob).decode("utf-8"))


def pack_result_logs(result: dict) -> dict:
    """The result with its log and stderr compressed (done in the worker, off the writer)."""
    packed = dict(result)
    packed["log_blob"] = pack(packed.pop("log", []))
    packed["stderr_blob"] = pack([seat.get("stderr", "") for seat in result.get("seats", [])])
    packed["seats"] = [{k: v for k, v in seat.items() if k != "stderr"} for seat in result.get("seats", [])]
    return packed


class Store:
    """One open database. ``create=False`` refuses a missing file instead of creating it."""

    def __init__(self, path: str | os.PathLike | None = None, create: bool = True):
        self.path = Path(path or default_path())
        if not self.path.exists():
            if not create:
                raise StoreError(f"no database at {self.path} (run a tournament or submit a bot first)")
            self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(str(self.path), timeout=30)
        self.db = sqlite_utils.Database(connection)
        self.db.execute("PRAGMA foreign_keys = ON")
        self.db.execute("PRAGMA busy_timeout = 30000")
        self.db.execute("PRAGMA synchronous = NORMAL")
        if self.db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            self.db.enable_wal()
            with self.write():
                self._create_schema()
        self.root = self.path.parent

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction. IMMEDIATE takes the write lock up front, so a concurrent
        writer waits (busy_timeout) instead of failing half-way with "database is locked"."""
        self.db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self.db.conn.in_transaction:
                self.db.conn.execute("ROLLBACK")
            raise
        self.db.conn.execute("COMMIT")

    def _create_schema(self) -> None:
        for statement in _statements(SCHEMA):
            self.db.execute(statement)
        self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def query(self, sql: str, params: Sequence | dict = ()) -> list[dict]:
        return list(self.db.query(sql, params))

    def one(self, sql: str, params: Sequence | dict = ()) -> dict | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    # ---- bots -----------------------------------------------------------------------------

    def bot_version(self, version_id: int) -> dict | None:
        return self.one(_VERSION_SELECT + " WHERE v.id = ?", [version_id])

    def bot_versions(self, game: str | None = None, name: str | None = None) -> list[dict]:
        where, params = [], []
        if game:
            where.append("b.game = ?")
            params.append(game)
        if name:
            where.append("b.name = ?")
            params.append(name)
        sql = _VERSION_SELECT + (" WHERE " + " AND ".join(where) if where else "")
        return self.query(sql + " ORDER BY b.game, b.name, v.version", params)

    def find_version(self, game: str, name: str, version: int | None = None,
                     content_hash: str | None = None) -> dict | None:
        """A bot's version by number, by content, or (neither given) its latest."""
        sql = _VERSION_SELECT + " WHERE b.game = ? AND b.name = ?"
        params: list = [game, name]
        if version is not None:
            sql += " AND v.version = ?"
            params.append(version)
        if content_hash is not None:
            sql += " AND v.content_hash = ?"
            params.append(content_hash)
        return self.one(sql + " ORDER BY v.version DESC LIMIT 1", params)

    def add_bot_version(self, game: str, name: str, language: str | None, content_hash: str,
                        path: str, source: str | None) -> dict:
        """Record a new version (number = previous + 1) of bot ``name``; returns its row."""
        with self.write():
            bot = self.one("SELECT id FROM bots WHERE game = ? AND name = ?", [game, name])
            if bot is None:
                bot_id = self.db.execute("INSERT INTO bots (game, name, created_at) VALUES (?, ?, ?)",
                                         [game, name, now()]).lastrowid
            else:
                bot_id = bot["id"]
            version = self.db.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM bot_versions WHERE bot_id = ?",
                                      [bot_id]).fetchone()[0]
            version_id = self.db.execute(
                "INSERT INTO bot_versions (bot_id, version, language, content_hash, path, source, submitted_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [bot_id, version, language, content_hash, path, source, now()]).lastrowid
        return self.bot_version(version_id)

    def next_version_number(self, game: str, name: str) -> int:
        row = self.one("SELECT COALESCE(MAX(v.version), 0) + 1 AS n FROM bot_versions v"
                       " JOIN bots b ON b.id = v.bot_id WHERE b.game = ? AND b.name = ?", [game, name])
        return row["n"]

    def bot_path(self, version: dict) -> Path:
        """The absolute path of a version's managed copy."""
        return (self.root / version["path"]).resolve()

    # ---- tournaments ----------------------------------------------------------------------

    def create_tournament(self, *, name: str | None, game: str, players: int, rounds: int,
                          seed: int, options: dict, config: dict, entries: Sequence[int],
                          schedule: Iterable) -> int:
        """Store a tournament, its entries and every scheduled match (pending) at once.

        ``entries`` are bot version ids; ``schedule`` yields objects with ``index``,
        ``round``, ``seed`` and ``seats`` (positions into ``entries``).
        """
        options_json = json.dumps(options, sort_keys=True)
        with self.write():
            tournament_id = self.db.execute(
                "INSERT INTO tournaments (name, game, players, rounds, seed, options, config, status, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, 'created', ?)",
                [name, game, players, rounds, seed, options_json, json.dumps(config, sort_keys=True), now()],
            ).lastrowid
            self.db.conn.executemany(
                "INSERT INTO tournament_entries (tournament_id, position, bot_version_id) VALUES (?, ?, ?)",
                [(tournament_id, position, version_id) for position, version_id in enumerate(entries)])
            first_id = self.db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM matches").fetchone()[0]
            match_rows, seat_rows = [], []
            for offset, scheduled in enumerate(schedule):
                match_id = first_id + offset
                match_rows.append((match_id, tournament_id, scheduled.index, scheduled.round, game,
                                   players, options_json, scheduled.seed))
                seat_rows.extend((match_id, seat, entries[position]) for seat, position in enumerate(scheduled.seats))
            self.db.conn.executemany(
                "INSERT INTO matches (id, tournament_id, schedule_index, round, game, players, options, seed, status)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')", match_rows)
            self.db.conn.executemany(
                "INSERT INTO match_seats (match_id, seat, bot_version_id) VALUES (?, ?, ?)", seat_rows)
        return tournament_id

    def tournament(self, tournament_id: int) -> dict:
        row = self.one(_TOURNAMENT_SELECT + " WHERE t.id = ? GROUP BY t.id", [tournament_id])
        if row is None:
            raise StoreError(f"no tournament {tournament_id}")
        return _decode_tournament(row)

    def tournaments(self) -> list[dict]:
        return [_decode_tournament(row) for row in self.query(_TOURNAMENT_SELECT + " GROUP BY t.id ORDER BY t.id")]

    def tournament_entries(self, tournament_id: int) -> list[dict]:
        return self.query(
            "SELECT e.position, v.id AS bot_version_id, b.name AS bot, v.version, v.path, v.language"
            " FROM tournament_entries e JOIN bot_versions v ON v.id = e.bot_version_id"
            " JOIN bots b ON b.id = v.bot_id WHERE e.tournament_id = ? ORDER BY e.position", [tournament_id])

    def set_tournament_status(self, tournament_id: int, status: str, pid: int | None = None) -> None:
        stamps = {"running": ", started_at = COALESCE(started_at, :now)",
                  "finished": ", finished_at = :now"}.get(status, "")
        with self.write():
            self.db.execute(f"UPDATE tournaments SET status = :status, runner_pid = :pid{stamps} WHERE id = :id",
                            {"status": status, "pid": pid, "now": now(), "id": tournament_id})

    def pending_matches(self, tournament_id: int) -> list[dict]:
        """The tournament's unfinished matches in schedule order, with their seats' bot paths."""
        rows = self.query(
            "SELECT m.id, m.schedule_index, m.game, m.players, m.options, m.seed, s.seat, v.path"
            " FROM matches m JOIN match_seats s ON s.match_id = m.id"
            " JOIN bot_versions v ON v.id = s.bot_version_id"
            " WHERE m.tournament_id = ? AND m.status = 'pending' ORDER BY m.schedule_index, s.seat",
            [tournament_id])
        matches: dict[int, dict] = {}
        for row in rows:
            match = matches.setdefault(row["id"], {
                "id": row["id"], "schedule_index": row["schedule_index"], "game": row["game"],
                "players": row["players"], "options": json.loads(row["options"]), "seed": row["seed"],
                "bots": []})
            match["bots"].append(str((self.root / row["path"]).resolve()))
        return list(matches.values())

    # ---- recording results ----------------------------------------------------------------

    def record_match(self, match_id: int, result: dict) -> None:
        """Commit a finished match: row, seats, log, and the ratings it unblocks — one transaction.

        ``result`` is ``MatchResult.to_dict()``, optionally already passed through
        `pack_result_logs`.
        """
        if "log_blob" not in result:
            result = pack_result_logs(result)
        teams = result.get("teams")
        team_of = {seat: team for team, seats in enumerate(teams or []) for seat in seats}
        with self.write():
            match = self._pending(match_id)
            self.db.execute(
                "UPDATE matches SET status = 'finished', options = ?, teams = ?, sandbox = ?, started_at = ?,"
                " ended_at = ?, duration_ms = ? WHERE id = ?",
                [json.dumps(result.get("options", {}), sort_keys=True),
                 None if teams is None else json.dumps(teams), json.dumps(result.get("sandbox")),
                 result.get("started_at"), result.get("ended_at"), result.get("duration_ms"), match_id])
            seats = result["seats"]
            if len(seats) != match["players"]:
                raise StoreError(f"match {match_id} has {match['players']} seats, the result {len(seats)}")
            self.db.conn.executemany(
                "UPDATE match_seats SET team = ?, status = ?, score = ?, rank = ?, time_ms = ?, decisions = ?,"
                " error = ? WHERE match_id = ? AND seat = ?",
                [(team_of.get(seat["seat"]), seat["status"], seat["score"], seat["rank"], seat.get("time_ms"),
                  seat.get("decisions"), seat.get("error"), match_id, seat["seat"]) for seat in seats])
            self.db.execute("INSERT INTO match_logs (match_id, log, stderr) VALUES (?, ?, ?)",
                            [match_id, result["log_blob"], result["stderr_blob"]])
            if match["tournament_id"] is not None:
                self._advance_ratings(match["tournament_id"])

    def record_error(self, match_id: int, message: str) -> None:
        """The harness could not play the match (not a bot's fault); it is skipped by ratings."""
        with self.write():
            match = self._pending(match_id)
            self.db.execute("UPDATE matches SET status = 'error', error = ?, ended_at = ? WHERE id = ?",
                            [message, now(), match_id])
            if match["tournament_id"] is not None:
                self._advance_ratings(match["tournament_id"])

    def _pending(self, match_id: int) -> dict:
        match = self.one("SELECT tournament_id, players, status FROM matches WHERE id = ?", [match_id])
        if match is None:
            raise StoreError(f"no match {match_id}")
        if match["status"] != "pending":
            raise StoreError(f"match {match_id} is already {match['status']}")
        return match

    def _advance_ratings(self, tournament_id: int) -> None:
        """Rate the tournament's matches in schedule order, as far as they are finished."""
        cursor = self.db.execute("SELECT rated_through FROM tournaments WHERE id = ?",
                                 [tournament_id]).fetchone()[0]
        start = cursor
        while True:
            batch = self.db.execute(
                "SELECT id, schedule_index, status, game FROM matches WHERE tournament_id = ?"
                " AND schedule_index > ? ORDER BY schedule_index LIMIT 64", [tournament_id, cursor]).fetchall()
            for match_id, index, status, game in batch:
                if status == "pending":
                    break
                if status == "finished":
                    self._rate_match(match_id, game, self._next_rating_seq())
                cursor = index
            else:
                if len(batch) == 64:
                    continue
            break
        if cursor != start:
            self.db.execute("UPDATE tournaments SET rated_through = ? WHERE id = ?", [cursor, tournament_id])

    def _next_rating_seq(self) -> int:
        return self.db.execute("SELECT COALESCE(MAX(rating_seq), 0) + 1 FROM matches").fetchone()[0]

    def _rate_match(self, match_id: int, game: str, seq: int) -> None:
        seats = self.db.execute(
            "SELECT s.seat, s.bot_version_id, s.rank, s.status, r.mu, r.sigma FROM match_seats s"
            " LEFT JOIN ratings r ON r.bot_version_id = s.bot_version_id AND r.game = ?"
            " WHERE s.match_id = ? ORDER BY s.seat", [game, match_id]).fetchall()
        teams_json = self.db.execute("SELECT teams FROM matches WHERE id = ?", [match_id]).fetchone()[0]
        before = [None if mu is None else (mu, sigma) for _, _, _, _, mu, sigma in seats]
        ranks = [rank for _, _, rank, _, _, _ in seats]
        after = trueskill_ratings.rate(before, ranks, json.loads(teams_json) if teams_json else None)
        default = (trueskill_ratings.MU, trueskill_ratings.SIGMA)
        stamp = now()
        self.db.execute("UPDATE matches SET rating_seq = ? WHERE id = ?", [seq, match_id])
        history, upserts = [], []
        for (seat, version_id, rank, status, _, _), old, (mu, sigma) in zip(seats, before, after):
            old = old or default
            history.append((match_id, seat, version_id, old[0], old[1], mu, sigma))
            failures = [int(status == kind) for kind in FAILURE_KINDS]
            upserts.append((game, version_id, mu, sigma, trueskill_ratings.conservative(mu, sigma),
                            int(rank == 1), rank, *failures, stamp))
        self.db.conn.executemany(
            "INSERT INTO rating_history (match_id, seat, bot_version_id, mu_before, sigma_before, mu_after,"
            " sigma_after) VALUES (?, ?, ?, ?, ?, ?, ?)", history)
        self.db.conn.executemany(_RATING_UPSERT, upserts)

    def recompute_ratings(self, game: str | None = None) -> dict:
        """Rebuild ratings (and their history) from the stored results, in the recorded order.

        Returns ``{"matches": n, "bots": n, "max_change": float}`` where ``max_change`` is
        the largest difference in μ or σ against the ratings before — 0.0 when nothing was
        tampered with.
        """
        where, params = ("AND game = ?", [game]) if game else ("", [])
        with self.write():
            old = {(r["game"], r["bot_version_id"]): (r["mu"], r["sigma"])
                   for r in self.query(f"SELECT game, bot_version_id, mu, sigma FROM ratings WHERE 1 {where}", params)}
            rated = self.db.execute(
                f"SELECT id, game, rating_seq FROM matches WHERE rating_seq IS NOT NULL {where}"
                " ORDER BY rating_seq", params).fetchall()
            self.db.execute(f"DELETE FROM rating_history WHERE match_id IN"
                            f" (SELECT id FROM matches WHERE rating_seq IS NOT NULL {where})", params)
            self.db.execute(f"DELETE FROM ratings WHERE 1 {where}", params)
            self.db.execute(f"UPDATE matches SET rating_seq = NULL WHERE rating_seq IS NOT NULL {where}", params)
            for match_id, match_game, seq in rated:
                self._rate_match(match_id, match_game, seq)
            new = {(r["game"], r["bot_version_id"]): (r["mu"], r["sigma"])
                   for r in self.query(f"SELECT game, bot_version_id, mu, sigma FROM ratings WHERE 1 {where}", params)}
        keys = set(old) | set(new)
        change = max((max(abs(a - b) for a, b in zip(old.get(k, (0.0, 0.0)), new.get(k, (0.0, 0.0))))
                      for k in keys), default=0.0)
        return {"matches": len(rated), "bots": len(new), "max_change": change}

    # ---- reading matches ------------------------------------------------------------------

    def match(self, match_id: int, with_log: bool = True) -> dict:
        """A match with its seats (bot names and versions) and, by default, its log and stderr."""
        match = self.one("SELECT * FROM matches WHERE id = ?", [match_id])
        if match is None:
            raise StoreError(f"no match {match_id}")
        for key in ("options", "teams", "sandbox"):
            match[key] = json.loads(match[key]) if match[key] else None
        match["seats"] = self.query(
            "SELECT s.seat, s.bot_version_id, b.name AS bot, v.version, s.team, s.status, s.score, s.rank,"
            " s.time_ms, s.decisions, s.error FROM match_seats s JOIN bot_versions v ON v.id = s.bot_version_id"
            " JOIN bots b ON b.id = v.bot_id WHERE s.match_id = ? ORDER BY s.seat", [match_id])
        if with_log:
            logs = self.one("SELECT log, stderr FROM match_logs WHERE match_id = ?", [match_id])
            match["log"] = unpack(logs["log"]) if logs else []
            stderr = unpack(logs["stderr"]) if logs else []
            for seat in match["seats"]:
                seat["stderr"] = stderr[seat["seat"]] if seat["seat"] < len(stderr) else ""
        return match


def _statements(script: str) -> list[str]:
    """Split the schema into statements (sqlite3.complete_statement knows where each ends)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return [s for s in statements if s]


def _decode_tournament(row: dict) -> dict:
    row["options"] = json.loads(row["options"])
    row["config"] = json.loads(row["config"])
    if row["status"] == "running" and row["runner_pid"] and not _alive(row["runner_pid"]):
        row["status"] = "interrupted"  # its process died without saying so (kill -9, power cut)
    return row


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_VERSION_SELECT = (
    "SELECT v.id, b.id AS bot_id, b.game, b.name, v.version, v.language, v.content_hash, v.path,"
    " v.source, v.submitted_at FROM bot_versions v JOIN bots b ON b.id = v.bot_id")

_TOURNAMENT_SELECT = (
    "SELECT t.*, COUNT(m.id) AS matches_total,"
    " COALESCE(SUM(m.status = 'finished'), 0) AS matches_finished,"
    " COALESCE(SUM(m.status = 'error'), 0) AS matches_error,"
    " COALESCE(SUM(m.status = 'pending'), 0) AS matches_pending,"
    " (SELECT COUNT(*) FROM tournament_entries e WHERE e.tournament_id = t.id) AS entries"
    " FROM tournaments t LEFT JOIN matches m ON m.tournament_id = t.id")

_RATING_UPSERT = (
    "INSERT INTO ratings (game, bot_version_id, mu, sigma, conservative, matches, first_places, rank_sum,"
    " failures_timeout, failures_crash, failures_illegal, failures_protocol, failures_limit, updated_at)"
    " VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (game, bot_version_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
    " conservative = excluded.conservative, matches = matches + 1,"
    " first_places = first_places + excluded.first_places, rank_sum = rank_sum + excluded.rank_sum,"
    " failures_timeout = failures_timeout + excluded.failures_timeout,"
    " failures_crash = failures_crash + excluded.failures_crash,"
    " failures_illegal = failures_illegal + excluded.failures_illegal,"
    " failures_protocol = failures_protocol + excluded.failures_protocol,"
    " failures_limit = failures_limit + excluded.failures_limit, updated_at = excluded.updated_at")
