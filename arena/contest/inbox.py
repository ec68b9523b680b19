"""The contest's inbox: what the web process receives, kept until the runner has taken it.

A contest's folder (`folder_for`: ``<database>-contests/<contest>/``) holds ``inbox.sqlite``
and ``uploads/``. The web process (or the command line) is the only writer here; the runner
only reads it and records what it did in the results database, so an inbox row is never
changed or deleted and "taken" means "recorded there". Rows:

* ``upload``: an entrant's file, under ``uploads/<random>/<sanitised name>``;
* ``test``: an entrant asks for test matches, ``{"opponents": [names], "matches": n}``;
* ``action``: the organiser's ``{"do": "withdraw"|"reinstate"|"close"|"open"|"deadline"|"final", ...}``,
  or ``{"do": "entrants", "rows": [{"name", "email", "token_sha256"}]}`` (entrants added on
  the web page: the web process makes the tokens and shows the links once; only digests travel).

Durability: an upload is written to a temporary file and fsynced, renamed into place (the
folder fsynced), and its row committed (``synchronous = FULL``) before `add_upload` returns:
once acknowledged, a ``kill -9`` or a power cut loses nothing. The rate limits (uploads per
day, test requests per hour) are checked in the same write transaction as the row, so two
requests at once cannot both slip under a limit.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from arena.contest.uploads import safe_filename
from arena.results.store import now

INBOX_SCHEMA = """
CREATE TABLE IF NOT EXISTS inbox (
    id           INTEGER PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('upload', 'test', 'action')),
    entrant      TEXT,                 -- the entrant's name; NULL: the organiser
    filename     TEXT,                 -- upload: the sanitised name it was sent as
    path         TEXT,                 -- upload: relative to the contest's folder
    size         INTEGER,
    payload      TEXT,                 -- JSON (test, action)
    received_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS inbox_by_entrant ON inbox (entrant, kind, received_at);
"""
CHUNK = 1 << 20
ACTIONS = ("withdraw", "reinstate", "close", "open", "deadline", "final", "entrants")


class InboxRefusal(Exception):
    """An upload or request the inbox will not take; the message says why (for the page)."""


@dataclass
class Received:
    id: int
    received_at: str


def folder_for(store_path: str | os.PathLike, contest_name: str) -> Path:
    """The contest's own folder, beside its results database (like the bot store)."""
    return Path(str(store_path) + "-contests") / contest_name


class Inbox:
    """One open inbox. ``readonly`` for the runner (it never writes here)."""

    def __init__(self, folder: str | os.PathLike, readonly: bool = False):
        self.folder = Path(folder)
        self.path = self.folder / "inbox.sqlite"
        self.uploads = self.folder / "uploads"
        if readonly:
            if not self.path.exists():
                self.conn = None
                return
            self.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None, timeout=30)
        else:
            self.uploads.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=30)
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = FULL")
            self.conn.executescript(INBOX_SCHEMA)
        self.conn.row_factory = sqlite3.Row

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def __enter__(self) -> "Inbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self):
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # ---- writing (the web process, the command line) ----------------------------------------

    def add_upload(self, entrant: str, filename: str, data, max_bytes: int, per_day: int) -> Received:
        """Keep an entrant's upload (``data``: bytes or a binary file object); returns its row.

        Refuses (`InboxRefusal`) an upload over ``max_bytes`` or beyond ``per_day`` uploads in
        the last 24 hours. Returns only once the file and its row are on disk."""
        name = safe_filename(filename)
        folder = self.uploads / secrets.token_hex(8)
        folder.mkdir()
        temporary = folder / ".incoming"
        try:
            size = _write_synced(temporary, data, max_bytes)
            with self._write():
                since = _ago(hours=24)
                count = self.conn.execute("SELECT COUNT(*) FROM inbox WHERE entrant = ? AND kind = 'upload'"
                                          " AND received_at > ?", [entrant, since]).fetchone()[0]
                if count >= per_day:
                    raise InboxRefusal(f"you have uploaded {count} times in the last 24 hours; the limit is {per_day}"
                                       " (try again later)")
                os.replace(temporary, folder / name)
                _fsync_folder(folder)
                _fsync_folder(self.uploads)
                received = now()
                row_id = self.conn.execute(
                    "INSERT INTO inbox (kind, entrant, filename, path, size, received_at) VALUES ('upload', ?, ?, ?, ?, ?)",
                    [entrant, name, str((folder / name).relative_to(self.folder)), size, received]).lastrowid
        except BaseException:
            for leftover in (temporary, folder / name):
                with contextlib.suppress(OSError):
                    leftover.unlink()
            with contextlib.suppress(OSError):
                folder.rmdir()
            raise
        return Received(row_id, received)

    def add_test_request(self, entrant: str, opponents: list[str], matches: int, per_hour: int) -> Received:
        """Ask for ``matches`` unrated matches against ``opponents`` (names); `InboxRefusal`
        beyond ``per_hour`` requests in the last hour. The runner checks the names."""
        with self._write():
            count = self.conn.execute("SELECT COUNT(*) FROM inbox WHERE entrant = ? AND kind = 'test'"
                                      " AND received_at > ?", [entrant, _ago(hours=1)]).fetchone()[0]
            if count >= per_hour:
                raise InboxRefusal(f"you have asked for {count} test matches in the last hour; the limit is {per_hour}"
                                   " (try again later)")
            received = now()
            row_id = self.conn.execute(
                "INSERT INTO inbox (kind, entrant, payload, received_at) VALUES ('test', ?, ?, ?)",
                [entrant, json.dumps({"opponents": list(opponents), "matches": matches}), received]).lastrowid
        return Received(row_id, received)

    def add_action(self, do: str, **details) -> Received:
        """An organiser's action for the runner: withdraw/reinstate (``entrant=NAME``), close,
        open, deadline (``deadline=ISO`` or None), final (close submissions, start the final),
        entrants (``rows=[{"name", "email", "token_sha256"}]``: see `add_entrants`)."""
        if do not in ACTIONS:
            raise InboxRefusal(f"unknown action {do!r} (known: {', '.join(ACTIONS)})")
        with self._write():
            received = now()
            row_id = self.conn.execute(
                "INSERT INTO inbox (kind, payload, received_at) VALUES ('action', ?, ?)",
                [json.dumps({"do": do, **details}), received]).lastrowid
        return Received(row_id, received)

    def add_entrants(self, rows: list[dict]) -> Received:
        """Entrants for the runner to add, as the organiser's page sends them: each row a name,
        an e-mail and the SHA-256 of a token the web process made (never the token itself).
        The runner adds all of them or none (its outcome says why)."""
        return self.add_action("entrants", rows=[{"name": r["name"], "email": r["email"],
                                                  "token_sha256": r["token_sha256"]} for r in rows])

    # ---- reading (the runner, the pages) ----------------------------------------------------

    def rows_after(self, after_id: int, limit: int = 500) -> list[dict]:
        """Rows with an id above ``after_id``, oldest first."""
        if self.conn is None:
            return []
        return [dict(row) for row in self.conn.execute(
            "SELECT * FROM inbox WHERE id > ? ORDER BY id LIMIT ?", [after_id, limit])]

    def rows(self, ids) -> list[dict]:
        ids = list(ids)
        if self.conn is None or not ids:
            return []
        return [dict(row) for row in self.conn.execute(
            f"SELECT * FROM inbox WHERE id IN ({','.join('?' * len(ids))}) ORDER BY id", ids)]

    def waiting_for(self, entrant: str, taken: set[int]) -> list[dict]:
        """An entrant's rows the runner has not taken yet (``taken``: ids it has), for a page."""
        if self.conn is None:
            return []
        return [dict(row) for row in self.conn.execute(
            "SELECT id, kind, filename, size, payload, received_at FROM inbox WHERE entrant = ? ORDER BY id DESC"
            " LIMIT 50", [entrant]) if row["id"] not in taken]

    def file_of(self, row: dict) -> Path:
        return self.folder / row["path"]


def _ago(**delta) -> str:
    return (dt.datetime.now(dt.timezone.utc) - dt.timedelta(**delta)).isoformat(timespec="milliseconds")


def _write_synced(path: Path, data, max_bytes: int) -> int:
    """Write ``data`` to ``path`` and fsync it; `InboxRefusal` past ``max_bytes``."""
    size = 0
    with open(path, "xb") as out:
        chunks = [data] if isinstance(data, (bytes, bytearray, memoryview)) else iter(lambda: data.read(CHUNK), b"")
        for chunk in chunks:
            size += len(chunk)
            if size > max_bytes:
                raise InboxRefusal(f"the upload is larger than the limit of {_size(max_bytes)}")
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    if size == 0:
        raise InboxRefusal("the upload is empty")
    return size


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"
