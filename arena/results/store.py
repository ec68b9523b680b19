"""The SQLite store: the connection, and every read and write (the schema and its upgrades are
in `arena.results.schema`).

One file (default ``results/arena.db``), WAL mode, so a leaderboard can be read while a
tournament writes. Only the coordinating process writes. A finished match — its row, its
seats, its compressed log and the rating updates it unblocks — is committed in one
transaction (`Store.record_match`).

Ratings are applied per tournament in schedule order: ``tournaments.rated_through`` is the
highest schedule index whose match is rated (or skipped because it errored); a match that
finishes before an earlier one is stored at once and rated when the gap closes. Every rated
match gets the next global ``matches.rating_seq``, the order `recompute_ratings` replays.
``tournament_ratings`` keeps each entry's rating and totals within its tournament.

Each database owns its bot store: the folder ``<database file>-bots/`` beside it, where the
copy of each bot version lives under its content hash (`arena.results.botstore`);
``bot_versions.path`` is relative to that folder, so a database moved with its store keeps
working.

Opening for reading (`Store(path, readonly=True)`) never writes: it needs no write access to
the file or its folder (an immutable file or a read-only file system is read as it is).
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

from arena.pids import alive as process_alive
from arena.results.errors import StoreError, database_errors  # noqa: F401 (StoreError: also imported from here)
from arena.results.matchread import BUSY_TIMEOUT_MS, connect_readonly, read_match, unpack  # noqa: F401 (unpack: also from here)
from arena.results import keyfile, ratings as trueskill_ratings
from arena.results.schema import (APPLICATION_ID, ARENA_TABLES, FAILURE_KINDS, READABLE_FROM, SCHEMA,  # noqa: F401
                                  RECOUNT, SCHEMA_VERSION, SEAT_STATUSES)

DEFAULT_DB = "results/arena.db"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def default_path() -> str:
    return os.environ.get("ARENA_DB") or DEFAULT_DB


LOG_LEVEL = 1  # zlib's fastest level: 3x quicker than 6 for logs about 2x larger (~20 KB)


def pack(value: Any) -> bytes:
    """zlib-compressed compact JSON, the encoding of `match_logs` blobs."""
    return zlib.compress(json.dumps(value, separators=(",", ":")).encode("utf-8"), LOG_LEVEL)


def pack_result_logs(result: dict) -> dict:
    """The result with its log and stderr compressed (done in the worker, off the writer)."""
    packed = dict(result)
    log = packed.pop("log", [])
    if hasattr(log, "to_json"):  # the match kept the lines it sent: no second encoding
        packed["log_blob"] = zlib.compress(log.to_json(), LOG_LEVEL)
    else:
        packed["log_blob"] = pack(log)
    packed["stderr_blob"] = pack([seat.get("stderr", "") for seat in result.get("seats", [])])
    packed["seats"] = [{k: v for k, v in seat.items() if k != "stderr"} for seat in result.get("seats", [])]
    return packed


class Store:
    """One open database.

    ``create=False`` refuses a missing file instead of creating it; ``readonly=True`` opens
    without ever writing (read commands), and implies ``create=False``; with ``live`` as well
    (a server that reads for long) it sees what is written after it opened. A missing folder
    is only made with ``make_folder`` (the default ``results/`` folder); else it is an error.
    """

    def __init__(self, path: str | os.PathLike | None = None, create: bool = True, readonly: bool = False,
                 make_folder: bool = False, live: bool = False):
        self.path = Path(path or default_path())
        if make_folder and create and not readonly and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True)
        self.readonly = readonly
        self.live = live  # a long-lived reader (the web app) must see later writes
        self.root = self.path.parent
        self.bot_store = Path(str(self.path) + "-bots")
        self.db = None
        with database_errors(self.path):
            self._open(create and not readonly)

    # -- opening --------------------------------------------------------------------------

    def _open(self, create: bool) -> None:
        path = self.path
        if path.is_dir():
            raise StoreError(f"{path} is a folder, not a database file")
        if not path.exists():
            if not create:
                raise StoreError(f"no database at {path} (run a tournament or submit a bot first)")
            if not path.parent.is_dir():
                what = "is a file, not a folder" if path.parent.exists() else "does not exist"
                raise StoreError(f"cannot create {path}: its folder {path.parent} {what}")
        if self.readonly:
            connection = self._connect_readonly()
        else:
            folder = path.parent if str(path.parent) else Path(".")
            try:
                read_only_fs = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
            except OSError:
                read_only_fs = False
            if read_only_fs:
                raise StoreError(f"{path} cannot be written (read-only file system)")
            connection = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        self.db = sqlite_utils.Database(connection)
        self.db.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self._check_or_create_schema()
        if not self.readonly:
            self.db.conn.execute("PRAGMA foreign_keys = ON")
            self.db.conn.execute("PRAGMA synchronous = NORMAL")

    def _connect_readonly(self) -> sqlite3.Connection:
        return connect_readonly(self.path, self.live)

    def _check_or_create_schema(self) -> None:
        from arena.results.schema import check_or_create

        check_or_create(self)

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction. IMMEDIATE takes the write lock up front, so a concurrent
        writer waits (busy_timeout) instead of failing half-way with "database is locked"."""
        if self.readonly:
            raise StoreError(f"{self.path} is open for reading only")
        conn = self.db.conn
        with database_errors(self.path):
            conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise
        with database_errors(self.path):
            try:
                conn.execute("COMMIT")
            except sqlite3.Error:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        if self.db is not None:
            try:
                self.db.close()
            except sqlite3.Error:
                pass
            self.db = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def query(self, sql: str, params: Sequence | dict = ()) -> list[dict]:
        with database_errors(self.path):
            return list(self.db.query(sql, params))

    def one(self, sql: str, params: Sequence | dict = ()) -> dict | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def execute(self, sql: str, params: Sequence | dict = ()):
        with database_errors(self.path):
            return self.db.conn.execute(sql, params)

    # ---- bots -----------------------------------------------------------------------------

    def bot_version(self, version_id: int) -> dict | None:
        return self.one(_VERSION_SELECT + " WHERE v.id = ?", [version_id])

    def bot_versions(self, game: str | None = None, name: str | None = None,
                     include_withdrawn: bool = True) -> list[dict]:
        where, params = [], []
        if game:
            where.append("b.game = ?")
            params.append(game)
        if name:
            where.append("b.name = ?")
            params.append(name)
        if not include_withdrawn:
            where.append("b.withdrawn = 0 AND v.withdrawn = 0")
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

    def names_by_source(self, game: str, source: str) -> list[str]:
        """Names of the game's bots that have a version submitted from ``source``."""
        return [row["name"] for row in self.query(
            "SELECT DISTINCT b.name FROM bot_versions v JOIN bots b ON b.id = v.bot_id"
            " WHERE b.game = ? AND v.source = ? ORDER BY v.id DESC", [game, source])]

    def sources_of(self, game: str, name: str) -> set[str]:
        return {row["source"] for row in self.query(
            "SELECT DISTINCT v.source FROM bot_versions v JOIN bots b ON b.id = v.bot_id"
            " WHERE b.game = ? AND b.name = ?", [game, name]) if row["source"]}

    def add_bot_version(self, game: str, name: str, language: str | None, content_hash: str,
                        path: str, source: str | None, stored_hash: str | None = None,
                        build_log: str | None = None, check_copy: bool = True) -> tuple[dict, bool]:
        """Record a version (number = previous + 1) of bot ``name``; returns (row, created).

        The same content already recorded (by another process, a moment ago) is that version.
        """
        with self.write():
            existing = self.one(_VERSION_SELECT + " WHERE b.game = ? AND b.name = ? AND v.content_hash = ?",
                                [game, name, content_hash])
            if existing is not None:
                return existing, False
            if check_copy and not (self.bot_store / path).exists():
                # Removed a moment ago by a process whose submission of the same content failed.
                raise StoreError(f"the stored copy {self.bot_store / path} disappeared; submit again")
            bot = self.one("SELECT id FROM bots WHERE game = ? AND name = ?", [game, name])
            if bot is None:
                bot_id = self.db.conn.execute("INSERT INTO bots (game, name, created_at) VALUES (?, ?, ?)",
                                              [game, name, now()]).lastrowid
            else:
                bot_id = bot["id"]
            version = self.db.conn.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM bot_versions WHERE bot_id = ?",
                                           [bot_id]).fetchone()[0]
            version_id = self.db.conn.execute(
                "INSERT INTO bot_versions (bot_id, version, language, content_hash, path, source, submitted_at,"
                " stored_hash, build_log) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [bot_id, version, language, content_hash, path, source, now(), stored_hash or content_hash,
                 build_log]).lastrowid
        return self.bot_version(version_id), True

    def bot_path(self, version: dict) -> Path:
        """The absolute path of a version's stored copy."""
        return self.bot_store / version["path"]

    def set_withdrawn(self, game: str, name: str, version: int | None, withdrawn: bool) -> int:
        """Withdraw (or reinstate) a bot, or one version; returns how many rows changed."""
        with self.write():
            if version is None:
                cursor = self.db.conn.execute("UPDATE bots SET withdrawn = ? WHERE game = ? AND name = ?",
                                              [int(withdrawn), game, name])
            else:
                cursor = self.db.conn.execute(
                    "UPDATE bot_versions SET withdrawn = ? WHERE version = ? AND bot_id ="
                    " (SELECT id FROM bots WHERE game = ? AND name = ?)", [int(withdrawn), version, game, name])
            return cursor.rowcount

    # ---- tournaments ----------------------------------------------------------------------

    def create_tournament(self, *, name: str | None, game: str, players: int, rounds: int,
                          seed: int, options: dict, config: dict, entries: Sequence[int],
                          schedule: Iterable, secret: str, format: str = "round-robin",
                          roles: Sequence[str | None] | None = None, format_state: dict | None = None) -> int:
        """Store a tournament, its entries and its scheduled matches (pending) at once.

        ``entries`` are bot version ids; ``schedule`` yields objects with ``index``,
        ``round``, ``seed``, ``seats`` (positions into ``entries``) and optionally ``deal``.
        """
        options_json = json.dumps(options, sort_keys=True)
        with self.write():
            tournament_id = self.db.conn.execute(
                "INSERT INTO tournaments (name, game, players, rounds, seed, options, config, status, created_at,"
                " secret_sha256, format, format_state) VALUES (?, ?, ?, ?, ?, ?, ?, 'created', ?, ?, ?, ?)",
                [name, game, players, rounds, seed, options_json, json.dumps(config, sort_keys=True), now(),
                 keyfile.commitment(secret), format, json.dumps(format_state) if format_state is not None else None],
            ).lastrowid
            try:
                keyfile.save(self.path, {tournament_id: secret})  # before the commit: never a tournament without it
            except (OSError, keyfile.KeyFileError) as error:
                raise StoreError(f"cannot keep the tournament's secret in {keyfile.path_for(self.path)}"
                                 f" ({getattr(error, 'strerror', None) or error})") from None
            roles = list(roles or [None] * len(entries))
            self.db.conn.executemany(
                "INSERT INTO tournament_entries (tournament_id, position, bot_version_id, role) VALUES (?, ?, ?, ?)",
                [(tournament_id, position, version_id, roles[position]) for position, version_id in enumerate(entries)])
            self._insert_schedule(tournament_id, game, players, options_json, list(entries), schedule)
        return tournament_id

    def add_matches(self, tournament_id: int, schedule: Iterable, format_state: dict | None = None) -> int:
        """Append scheduled matches to a tournament (formats that plan as they go); returns how many."""
        tournament = self.tournament(tournament_id)
        entries = [row["bot_version_id"] for row in self.tournament_entries(tournament_id)]
        with self.write():
            added = self._insert_schedule(tournament_id, tournament["game"], tournament["players"],
                                          json.dumps(tournament["options"], sort_keys=True), entries, schedule)
            if format_state is not None:
                self.db.conn.execute("UPDATE tournaments SET format_state = ? WHERE id = ?",
                                     [json.dumps(format_state), tournament_id])
        return added

    def _insert_schedule(self, tournament_id: int, game: str, players: int, options_json: str,
                         entries: list[int], schedule: Iterable) -> int:
        first_id = self.db.conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM matches").fetchone()[0]
        match_rows, seat_rows = [], []
        for offset, scheduled in enumerate(schedule):
            match_id = first_id + offset
            match_rows.append((match_id, tournament_id, scheduled.index, scheduled.round, game,
                               players, options_json, scheduled.seed, getattr(scheduled, "deal", None)))
            seat_rows.extend((match_id, seat, entries[position]) for seat, position in enumerate(scheduled.seats))
        self.db.conn.executemany(
            "INSERT INTO matches (id, tournament_id, schedule_index, round, game, players, options, seed, status, deal)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)", match_rows)
        self.db.conn.executemany(
            "INSERT INTO match_seats (match_id, seat, bot_version_id) VALUES (?, ?, ?)", seat_rows)
        self.db.conn.execute("UPDATE tournaments SET matches_total = matches_total + ? WHERE id = ?",
                             [len(match_rows), tournament_id])
        return len(match_rows)

    def add_entry(self, tournament_id: int, version_id: int, role: str | None = None) -> int:
        """Add a bot version to a running ladder (or reinstate it there); returns its position."""
        with self.write():
            row = self.db.conn.execute("SELECT position FROM tournament_entries WHERE tournament_id = ? AND"
                                       " bot_version_id = ?", [tournament_id, version_id]).fetchone()
            if row is not None:
                self.db.conn.execute("UPDATE tournament_entries SET withdrawn = 0 WHERE tournament_id = ? AND"
                                     " position = ?", [tournament_id, row[0]])
                return row[0]
            position = self.db.conn.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM tournament_entries"
                                            " WHERE tournament_id = ?", [tournament_id]).fetchone()[0]
            self.db.conn.execute("INSERT INTO tournament_entries (tournament_id, position, bot_version_id, role)"
                                 " VALUES (?, ?, ?, ?)", [tournament_id, position, version_id, role])
            return position

    def withdraw_entry(self, tournament_id: int, version_id: int) -> bool:
        """Leave an entry out of a ladder's next batches (its matches so far stay)."""
        with self.write():
            return self.db.conn.execute("UPDATE tournament_entries SET withdrawn = 1 WHERE tournament_id = ? AND"
                                        " bot_version_id = ?", [tournament_id, version_id]).rowcount > 0

    def tournament(self, tournament_id: int) -> dict:
        row = self.one(_TOURNAMENT_SELECT + " WHERE t.id = ?", [tournament_id])
        if row is None:
            raise StoreError(f"no tournament {tournament_id}")
        return _decode_tournament(row, self.path)

    def tournament_secret(self, tournament_id: int) -> str | None:
        """Its secret, from the key file beside the database (None: a tournament from before secrets)."""
        row = self.one("SELECT secret_sha256 FROM tournaments WHERE id = ?", [tournament_id])
        if row is None:
            raise StoreError(f"no tournament {tournament_id}")
        if row["secret_sha256"] is None:
            return None
        try:
            return keyfile.secret_of(self.path, tournament_id, row["secret_sha256"])
        except keyfile.KeyFileError as error:
            raise StoreError(str(error)) from None

    def tournaments(self) -> list[dict]:
        return [_decode_tournament(row, self.path) for row in self.query(_TOURNAMENT_SELECT + " ORDER BY t.id")]

    def tournament_entries(self, tournament_id: int) -> list[dict]:
        return self.query(
            "SELECT e.position, v.id AS bot_version_id, b.name AS bot, v.version, v.path, v.language,"
            " v.content_hash, v.stored_hash, e.role, e.withdrawn FROM tournament_entries e"
            " JOIN bot_versions v ON v.id = e.bot_version_id"
            " JOIN bots b ON b.id = v.bot_id WHERE e.tournament_id = ? ORDER BY e.position", [tournament_id])

    def set_tournament_status(self, tournament_id: int, status: str, pid: int | None = None) -> None:
        stamps = {"running": ", started_at = COALESCE(started_at, :now)",
                  "finished": ", finished_at = :now"}.get(status, "")
        try:
            with self.write():
                self.db.conn.execute(f"UPDATE tournaments SET status = :status, runner_pid = :pid{stamps}"
                                     " WHERE id = :id", {"status": status, "pid": pid, "now": now(), "id": tournament_id})
        finally:
            if status != "running":  # even if the write failed (a full disk): this process runs it no more
                _RUNS_HERE.discard((os.path.abspath(self.path), tournament_id))

    def recount_matches(self) -> None:
        """Recompute every tournament's match counts from its matches (after bulk edits)."""
        with self.write():
            self.db.conn.execute(RECOUNT)

    def set_tournament_config(self, tournament_id: int, config: dict) -> None:
        """Change a tournament's stored configuration (a ladder's new stopping rule)."""
        with self.write():
            self.db.conn.execute("UPDATE tournaments SET config = ? WHERE id = ?",
                                 [json.dumps(config, sort_keys=True), tournament_id])

    def claim_tournament(self, tournament_id: int, pid: int) -> None:
        """Mark the tournament running by ``pid``, unless a live process runs it already."""
        with self.write():
            row = self.one("SELECT status, runner_pid FROM tournaments WHERE id = ?", [tournament_id])
            if row is None:
                raise StoreError(f"no tournament {tournament_id}")
            runner = row["runner_pid"]
            if row["status"] == "running" and runner and runner != pid and process_alive(runner):
                raise StoreError(f"tournament {tournament_id} is being run by process {runner}")
            self.db.conn.execute("UPDATE tournaments SET status = 'running', runner_pid = ?,"
                                 " started_at = COALESCE(started_at, ?) WHERE id = ?", [pid, now(), tournament_id])
        if pid == os.getpid():
            _RUNS_HERE.add((os.path.abspath(self.path), tournament_id))

    def pending_matches(self, tournament_id: int, after_index: int = -1, limit: int | None = None) -> list[dict]:
        """The tournament's unfinished matches in schedule order, with their seats' bots."""
        sql = ("SELECT m.id, m.schedule_index, m.game, m.players, m.options, m.seed, m.deal FROM matches m"
               " WHERE m.tournament_id = ? AND m.status = 'pending' AND m.schedule_index > ?"
               " ORDER BY m.schedule_index")
        params: list = [tournament_id, after_index]
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        matches = {row["id"]: {**row, "options": json.loads(row["options"]), "bots": [], "hashes": [],
                               "versions": []} for row in self.query(sql, params)}
        if not matches:
            return []
        ids = list(matches)
        for chunk in range(0, len(ids), 500):
            part = ids[chunk:chunk + 500]
            for row in self.query(
                    "SELECT s.match_id, s.seat, v.id AS version_id, v.path, v.stored_hash FROM match_seats s"
                    " JOIN bot_versions v ON v.id = s.bot_version_id"
                    f" WHERE s.match_id IN ({','.join('?' * len(part))}) ORDER BY s.match_id, s.seat", part):
                match = matches[row["match_id"]]
                match["bots"].append(str(self.bot_store / row["path"]))
                match["hashes"].append(row["stored_hash"])
                match["versions"].append(row["version_id"])
        return list(matches.values())

    def pending_count(self, tournament_id: int) -> int:
        return self.one("SELECT COUNT(*) AS n FROM matches WHERE tournament_id = ? AND status = 'pending'",
                        [tournament_id])["n"]

    def reset_errors(self, tournament_id: int) -> int:
        """Make the tournament's matches stored as harness errors pending again; returns how many."""
        with self.write():
            count = self.db.conn.execute(
                "UPDATE matches SET status = 'pending', error = NULL, ended_at = NULL"
                " WHERE tournament_id = ? AND status = 'error'", [tournament_id]).rowcount
            self.db.conn.execute("UPDATE tournaments SET matches_error = matches_error - ? WHERE id = ?",
                                 [count, tournament_id])
            return count

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
            seats = result["seats"]
            if len(seats) != match["players"]:
                raise StoreError(f"match {match_id} has {match['players']} seats, the result {len(seats)}")
            conn = self.db.conn
            conn.execute(
                "UPDATE matches SET status = 'finished', options = ?, teams = ?, sandbox = ?, started_at = ?,"
                " ended_at = ?, duration_ms = ? WHERE id = ?",
                [json.dumps(result.get("options", {}), sort_keys=True),
                 None if teams is None else json.dumps(teams), json.dumps(result.get("sandbox")),
                 result.get("started_at"), result.get("ended_at"), result.get("duration_ms"), match_id])
            conn.executemany(
                "UPDATE match_seats SET team = ?, status = ?, score = ?, rank = ?, time_ms = ?, decisions = ?,"
                " error = ? WHERE match_id = ? AND seat = ?",
                [(team_of.get(seat["seat"]), seat["status"], seat["score"], seat["rank"], seat.get("time_ms"),
                  seat.get("decisions"), seat.get("error"), match_id, seat["seat"]) for seat in seats])
            conn.execute("INSERT INTO match_logs (match_id, log, stderr) VALUES (?, ?, ?)",
                         [match_id, result["log_blob"], result["stderr_blob"]])
            if match["tournament_id"] is not None:
                conn.execute("UPDATE tournaments SET matches_finished = matches_finished + 1 WHERE id = ?",
                             [match["tournament_id"]])
                self._advance_ratings(match["tournament_id"], match["schedule_index"])

    def record_error(self, match_id: int, message: str) -> None:
        """The harness could not play the match (not a bot's fault); it is skipped by ratings."""
        with self.write():
            match = self._pending(match_id)
            self.db.conn.execute("UPDATE matches SET status = 'error', error = ?, ended_at = ? WHERE id = ?",
                                 [message, now(), match_id])
            if match["tournament_id"] is not None:
                self.db.conn.execute("UPDATE tournaments SET matches_error = matches_error + 1 WHERE id = ?",
                                     [match["tournament_id"]])
                self._advance_ratings(match["tournament_id"], match["schedule_index"])

    def _pending(self, match_id: int) -> dict:
        match = self.db.conn.execute("SELECT tournament_id, players, status, schedule_index FROM matches WHERE id = ?",
                                     [match_id]).fetchone()
        if match is None:
            raise StoreError(f"no match {match_id}")
        tournament_id, players, status, index = match
        if status != "pending":
            raise StoreError(f"match {match_id} is already {status}")
        return {"tournament_id": tournament_id, "players": players, "schedule_index": index}

    def _advance_ratings(self, tournament_id: int, index: int) -> None:
        """Rate the tournament's matches in schedule order, as far as they are finished.

        A match stored after the cursor passed its place (a retried harness error) is rated
        at once, after everything rated before it.
        """
        conn = self.db.conn
        cursor = conn.execute("SELECT rated_through FROM tournaments WHERE id = ?", [tournament_id]).fetchone()[0]
        if index <= cursor:
            row = conn.execute("SELECT id, status, game FROM matches WHERE tournament_id = ? AND schedule_index = ?",
                               [tournament_id, index]).fetchone()
            if row and row[1] == "finished":
                self._rate_match(row[0], row[2], self._next_rating_seq(), tournament_id)
            return
        if index != cursor + 1:
            return  # an earlier match is still pending: this one waits for the gap to close
        start = cursor
        while True:
            batch = conn.execute(
                "SELECT id, schedule_index, status, game FROM matches WHERE tournament_id = ?"
                " AND schedule_index > ? ORDER BY schedule_index LIMIT 64", [tournament_id, cursor]).fetchall()
            for match_id, match_index, status, game in batch:
                if status == "pending" or match_index != cursor + 1:
                    break
                if status == "finished":
                    self._rate_match(match_id, game, self._next_rating_seq(), tournament_id)
                cursor = match_index
            else:
                if len(batch) == 64:
                    continue
            break
        if cursor != start:
            conn.execute("UPDATE tournaments SET rated_through = ? WHERE id = ?", [cursor, tournament_id])

    def _next_rating_seq(self) -> int:
        return self.db.conn.execute("SELECT COALESCE(MAX(rating_seq), 0) + 1 FROM matches").fetchone()[0]

    def _rate_match(self, match_id: int, game: str, seq: int, tournament_id: int | None) -> None:
        conn = self.db.conn
        seats = conn.execute(
            "SELECT s.seat, s.bot_version_id, s.rank, s.status, r.mu, r.sigma FROM match_seats s"
            " LEFT JOIN ratings r ON r.bot_version_id = s.bot_version_id AND r.game = ?"
            " WHERE s.match_id = ? ORDER BY s.seat", [game, match_id]).fetchall()
        teams_json = conn.execute("SELECT teams FROM matches WHERE id = ?", [match_id]).fetchone()[0]
        before = [None if mu is None else (mu, sigma) for _, _, _, _, mu, sigma in seats]
        ranks = [rank for _, _, rank, _, _, _ in seats]
        after = trueskill_ratings.rate(before, ranks, json.loads(teams_json) if teams_json else None)
        default = (trueskill_ratings.MU, trueskill_ratings.SIGMA)
        stamp = now()
        conn.execute("UPDATE matches SET rating_seq = ? WHERE id = ?", [seq, match_id])
        history, upserts, per_tournament = [], [], []
        for (seat, version_id, rank, status, _, _), old, (mu, sigma) in zip(seats, before, after):
            old = old or default
            history.append((match_id, seat, version_id, old[0], old[1], mu, sigma))
            failures = [int(status == kind) for kind in FAILURE_KINDS]
            upserts.append((game, version_id, mu, sigma, trueskill_ratings.conservative(mu, sigma),
                            int(rank == 1), rank, *failures, stamp))
            if tournament_id is not None:
                per_tournament.append((tournament_id, version_id, mu, sigma, int(rank == 1), rank, *failures))
        conn.executemany(
            "INSERT INTO rating_history (match_id, seat, bot_version_id, mu_before, sigma_before, mu_after,"
            " sigma_after) VALUES (?, ?, ?, ?, ?, ?, ?)", history)
        conn.executemany(_RATING_UPSERT, upserts)
        if per_tournament:
            conn.executemany(_TOURNAMENT_RATING_UPSERT, per_tournament)

    def recompute_ratings(self, game: str | None = None) -> dict:
        """Rebuild ratings (and their history) from the stored results, in the recorded order.

        Returns ``{"matches": n, "bots": n, "max_change": float}`` where ``max_change`` is
        the largest difference in μ or σ against the ratings before — 0.0 when nothing was
        tampered with.
        """
        where, params = ("AND game = ?", [game]) if game else ("", [])
        conn = self.db.conn
        with self.write():
            old = {(r["game"], r["bot_version_id"]): (r["mu"], r["sigma"])
                   for r in self.query(f"SELECT game, bot_version_id, mu, sigma FROM ratings WHERE 1 {where}", params)}
            rated = conn.execute(
                f"SELECT id, game, rating_seq, tournament_id FROM matches WHERE rating_seq IS NOT NULL {where}"
                " ORDER BY rating_seq", params).fetchall()
            conn.execute(f"DELETE FROM rating_history WHERE match_id IN"
                         f" (SELECT id FROM matches WHERE rating_seq IS NOT NULL {where})", params)
            conn.execute(f"DELETE FROM ratings WHERE 1 {where}", params)
            conn.execute(f"DELETE FROM tournament_ratings WHERE tournament_id IN"
                         f" (SELECT id FROM tournaments WHERE 1 {where})", params)
            conn.execute(f"UPDATE matches SET rating_seq = NULL WHERE rating_seq IS NOT NULL {where}", params)
            for match_id, match_game, seq, tournament_id in rated:
                self._rate_match(match_id, match_game, seq, tournament_id)
            new = {(r["game"], r["bot_version_id"]): (r["mu"], r["sigma"])
                   for r in self.query(f"SELECT game, bot_version_id, mu, sigma FROM ratings WHERE 1 {where}", params)}
        keys = set(old) | set(new)
        change = max((max(abs(a - b) for a, b in zip(old.get(k, (0.0, 0.0)), new.get(k, (0.0, 0.0))))
                      for k in keys), default=0.0)
        return {"matches": len(rated), "bots": len(new), "max_change": change}

    # ---- reading matches ------------------------------------------------------------------

    def match(self, match_id: int, with_log: bool = True) -> dict:
        """A match with its seats (bot names and versions) and, by default, its log and stderr."""
        with database_errors(self.path):
            return read_match(self.db.conn, match_id, with_log)

    def failures(self, game: str | None = None, bot: str | None = None, tournament_id: int | None = None,
                 limit: int | None = None) -> list[dict]:
        """Failed seats and harness errors, newest first, with their error (stderr by `match`)."""
        where, params = ["(s.status IS NOT NULL AND s.status != 'ok' OR m.status = 'error')"], []
        if game:
            where.append("m.game = ?")
            params.append(game)
        if bot:
            where.append("b.name = ?")
            params.append(bot)
        if tournament_id is not None:
            where.append("m.tournament_id = ?")
            params.append(tournament_id)
        sql = ("SELECT m.id AS match_id, m.tournament_id, m.schedule_index, m.game, m.status AS match_status,"
               " m.error AS match_error, s.seat, b.name AS bot, v.version, s.status, s.error, m.ended_at"
               " FROM matches m JOIN match_seats s ON s.match_id = m.id"
               " JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id"
               f" WHERE {' AND '.join(where)} ORDER BY m.id DESC, s.seat")
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        rows = self.query(sql, params)
        # A harness error belongs to the match, not to one seat: list it once.
        seen, listed = set(), []
        for row in rows:
            if row["match_status"] == "error":
                if row["match_id"] in seen:
                    continue
                seen.add(row["match_id"])
            listed.append(row)
        return listed

    def stderr_of(self, match_id: int, seat: int) -> str:
        logs = self.one("SELECT stderr FROM match_logs WHERE match_id = ?", [match_id])
        if not logs:
            return ""
        try:
            stderr = unpack(logs["stderr"])
        except (zlib.error, ValueError):
            return ""
        return stderr[seat] if seat < len(stderr) else ""


# The tournaments this process is running now, as (database path, id): a tournament whose row
# names this process as its runner but that it no longer runs (its last status write failed,
# say on a full disk) is interrupted, as one whose runner died is.
_RUNS_HERE: set[tuple[str, int]] = set()


def _decode_tournament(row: dict, path: Path | None = None) -> dict:
    row["options"] = json.loads(row["options"])
    row["config"] = json.loads(row["config"])
    row["format_state"] = json.loads(row["format_state"]) if row.get("format_state") else None
    runner = row["runner_pid"]
    if row["status"] == "running" and runner:
        if not process_alive(runner):
            row["status"] = "interrupted"  # its process died without saying so (kill -9, power cut)
        elif runner == os.getpid() and path is not None and (os.path.abspath(path), row["id"]) not in _RUNS_HERE:
            row["status"] = "interrupted"  # we ran it, and stopped without being able to say so
    return row


_VERSION_SELECT = (
    "SELECT v.id, b.id AS bot_id, b.game, b.name, v.version, v.language, v.content_hash, v.stored_hash, v.path,"
    " v.source, v.submitted_at, v.build_log, v.withdrawn AS version_withdrawn, b.withdrawn AS bot_withdrawn"
    " FROM bot_versions v JOIN bots b ON b.id = v.bot_id")

# The tournament's columns that commands show (its secret is not in the database at all).
_TOURNAMENT_SELECT = (
    "SELECT t.id, t.name, t.game, t.players, t.rounds, t.seed, t.options, t.config, t.status, t.rated_through,"
    " t.runner_pid, t.created_at, t.started_at, t.finished_at, t.format, t.format_state,"
    " t.matches_total, t.matches_finished, t.matches_error,"
    " t.matches_total - t.matches_finished - t.matches_error AS matches_pending,"
    " (SELECT COUNT(*) FROM tournament_entries e WHERE e.tournament_id = t.id) AS entries"
    " FROM tournaments t")

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

_TOURNAMENT_RATING_UPSERT = (
    "INSERT INTO tournament_ratings (tournament_id, bot_version_id, mu, sigma, matches, first_places, rank_sum,"
    " failures_timeout, failures_crash, failures_illegal, failures_protocol, failures_limit)"
    " VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (tournament_id, bot_version_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
    " matches = matches + 1, first_places = first_places + excluded.first_places,"
    " rank_sum = rank_sum + excluded.rank_sum,"
    " failures_timeout = failures_timeout + excluded.failures_timeout,"
    " failures_crash = failures_crash + excluded.failures_crash,"
    " failures_illegal = failures_illegal + excluded.failures_illegal,"
    " failures_protocol = failures_protocol + excluded.failures_protocol,"
    " failures_limit = failures_limit + excluded.failures_limit")
