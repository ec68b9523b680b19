"""The database's one kind of error, `StoreError`, and the one-line text of an SQLite or file
problem naming the file (`describe_error`, `database_errors`).

Its own light module (the standard library only), so that a reader that does not need the
whole `arena.results.store` (`arena.results.matchread`) raises the same error.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Iterator


class StoreError(Exception):
    """A one-line problem with the database or what was asked of it."""


def describe_error(path: Path, error: BaseException) -> str:
    """One line for a database problem, naming the file."""
    text = str(error)
    if isinstance(error, sqlite3.DatabaseError):
        lowered = text.lower()
        if "not a database" in lowered or "file is encrypted" in lowered:
            return f"{path} is not an SQLite database (or it is damaged)"
        if "malformed" in lowered or "corrupt" in lowered:
            return f"{path} is corrupted ({text}); restore it from a copy"
        if "disk is full" in lowered or "database or disk is full" in lowered:
            return f"no space left for {path} (the disk is full); free some space and run the command again"
        if "readonly" in lowered or "read-only" in lowered:
            return f"{path} cannot be written (read-only file, folder or file system)"
        if "locked" in lowered or "busy" in lowered:
            return f"{path} is busy: another arena process holds it too long ({text})"
        if "unable to open" in lowered:
            return f"cannot open {path} ({text})"
        if "disk i/o" in lowered:
            return f"cannot read or write {path}: disk I/O error (is the disk full or failing?)"
    if isinstance(error, OSError):
        return f"{path}: {error.strerror or text}"
    return f"{path}: {text}"


@contextlib.contextmanager
def database_errors(path: Path) -> Iterator[None]:
    """Turn SQLite and file errors into a `StoreError` naming the file."""
    try:
        yield
    except StoreError:
        raise
    except (sqlite3.Error, OSError) as error:
        raise StoreError(describe_error(path, error)) from None
