"""Reading stored matches with the standard library's sqlite3 alone: the read-only connection
every reader uses, one match with its seats, log and stderr (`read_match`), and the log
blobs' decoding (`unpack`).

`arena.results.store.Store` reads matches through here; so does `arena replay`, which opens
the database with `open_readonly` instead of a whole `Store` and so starts without
sqlite-utils (and the numpy it imports): its start-up is part of its speed (docs/web.md).
"""

from __future__ import annotations

import json
import os
import sqlite3
import urllib.parse
import zlib
from pathlib import Path
from typing import Any

import orjson

from arena.results.errors import StoreError, database_errors

BUSY_TIMEOUT_MS = 30_000

# orjson reads an integer beyond 64 bits as a float. A positive integer of 19 digits always
# fits (< 10**19 < 2**64), so only 20 digits in a row, or 19 after a minus, may not: a 63-bit
# seed, which every log holds, fits. Digits are found by mapping every digit to "0" and
# looking for a run of zeros (1 ms for 1 MB; the regex \d{20} took 12 ms).
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")


def _maybe_beyond_64_bits(text: bytes) -> bool:
    zeros = text.translate(_DIGITS_AS_ZERO)
    return zeros.find(b"0" * 20) >= 0 or zeros.find(b"-" + b"0" * 19) >= 0


def unpack(blob: bytes) -> Any:
    """A `match_logs` blob (zlib-compressed JSON) read back, exactly as the standard library
    reads it; orjson (twice as fast, which a 1 MB log feels: 8 ms instead of 16 of a match
    page's first request) where it reads the same."""
    text = zlib.decompress(blob)
    if not _maybe_beyond_64_bits(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:  # NaN, a lone surrogate: read by the standard library
            pass
    return json.loads(text.decode("utf-8"))


def connect_readonly(path: Path, live: bool = False) -> sqlite3.Connection:
    """A connection that never writes. With ``live`` (a server that reads for long) it sees
    what is written after it opened."""
    quoted = urllib.parse.quote(str(path.resolve()))
    if not live and not Path(str(path) + "-wal").exists():
        # Nobody is writing (a WAL database loses its -wal file when its last writer
        # closes): read the file as it is, without making -wal and -shm files beside it.
        return sqlite3.connect(f"file:{quoted}?mode=ro&immutable=1", uri=True, isolation_level=None)
    connection = sqlite3.connect(f"file:{quoted}?mode=ro", uri=True, isolation_level=None,
                                 timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return connection
    except sqlite3.OperationalError as error:
        # A WAL database on a read-only file system (no -shm can be made) or an immutable
        # file: read it as a fixed file, which needs no locks and no side files.
        connection.close()
        if "not a database" in str(error).lower():
            raise
        return sqlite3.connect(f"file:{quoted}?mode=ro&immutable=1", uri=True, isolation_level=None)


class _Checked:
    """What `arena.results.schema.check_or_create` reads of a store, for a bare connection."""

    readonly = True

    def __init__(self, connection: sqlite3.Connection, path: Path):
        self.db = type("Database", (), {"conn": connection})()
        self.path = path


def open_readonly(path: str | os.PathLike) -> sqlite3.Connection:
    """The database at ``path`` for reading only, refused as `Store(path, readonly=True)`
    refuses it (missing, a folder, another program's, a newer schema): `StoreError`."""
    from arena.results.schema import check_or_create

    path = Path(path)
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a database file")
    if not path.exists():
        raise StoreError(f"no database at {path} (run a tournament or submit a bot first)")
    with database_errors(path):
        connection = connect_readonly(path)
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        check_or_create(_Checked(connection, path))
    return connection


def _rows(connection: sqlite3.Connection, sql: str, params: list) -> list[dict]:
    cursor = connection.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor]


def read_match(connection: sqlite3.Connection, match_id: int, with_log: bool = True) -> dict:
    """A match with its seats (bot names and versions) and, with ``with_log``, its log and
    each seat's stderr; `StoreError` if there is no such match or its log is damaged."""
    found = _rows(connection, "SELECT * FROM matches WHERE id = ?", [match_id])
    if not found:
        raise StoreError(f"no match {match_id}")
    match = found[0]
    for key in ("options", "teams", "sandbox"):
        match[key] = json.loads(match[key]) if match[key] else None
    match["seats"] = _rows(
        connection,
        "SELECT s.seat, s.bot_version_id, b.name AS bot, v.version, s.team, s.status, s.score, s.rank,"
        " s.time_ms, s.decisions, s.error FROM match_seats s JOIN bot_versions v ON v.id = s.bot_version_id"
        " JOIN bots b ON b.id = v.bot_id WHERE s.match_id = ? ORDER BY s.seat", [match_id])
    if with_log:
        logs = _rows(connection, "SELECT log, stderr FROM match_logs WHERE match_id = ?", [match_id])
        try:
            match["log"] = unpack(logs[0]["log"]) if logs else []
            stderr = unpack(logs[0]["stderr"]) if logs else []
        except (zlib.error, ValueError) as error:
            raise StoreError(f"the stored log of match {match_id} is damaged ({error})") from None
        for seat in match["seats"]:
            seat["stderr"] = stderr[seat["seat"]] if seat["seat"] < len(stderr) else ""
    return match
