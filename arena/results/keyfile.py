"""The tournaments' secrets, kept out of the database: in a key file beside it.

Every deal and bot seed of a tournament is keyed by its secret (`arena.results.keys`). The
secret must survive with the database (``resume`` and formats that plan as they go compute
the same deals again) but must not be in it: the database is what people browse (Datasette,
``sqlite3``, the web app) and copy. So each database has a key file,
``<database file>-secrets`` (like its bot store ``<database file>-bots/``), readable and
writable by its owner only (0600), holding ``{"format": 1, "secrets": {"<tournament id>":
"<secret hex>"}}``. The ``tournaments`` table keeps only ``secret_sha256``, the SHA-256 of
the secret: it tells nothing about the secret, and it ties the key file's entry to its
tournament, so a key file that does not belong to the database (an older copy, another
database's) is caught instead of silently giving other deals.

The file is rewritten whole (a temporary file, fsync, rename) inside the database's write
transaction, so writers are serialised by the database's own lock and a reader always sees a
complete file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

FORMAT = 1


class KeyFileError(Exception):
    """A tournament's secret cannot be read or kept; one line naming the key file."""


def path_for(database: str | os.PathLike) -> Path:
    return Path(str(database) + "-secrets")


def commitment(secret: str) -> str:
    """What the database stores of a secret: its SHA-256 (hex)."""
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def load(database: str | os.PathLike) -> dict[str, str]:
    """The secrets by tournament id (as text); empty when there is no key file yet."""
    path = path_for(database)
    try:
        content = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise KeyFileError(f"cannot read the tournaments' key file {path} ({error})") from None
    if not isinstance(content, dict) or content.get("format") != FORMAT or not isinstance(content.get("secrets"), dict):
        raise KeyFileError(f"{path} is not an arena key file")
    return content["secrets"]


def save(database: str | os.PathLike, secrets_by_id: dict[int, str]) -> None:
    """Add (or replace) these tournaments' secrets in the key file, made 0600 if new."""
    path = path_for(database)
    kept = load(database)
    kept.update({str(tournament_id): secret for tournament_id, secret in secrets_by_id.items()})
    text = json.dumps({"format": FORMAT, "secrets": kept}, indent=1, sort_keys=True) + "\n"
    fd, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def secret_of(database: str | os.PathLike, tournament_id: int, expected_sha256: str) -> str:
    """Tournament ``tournament_id``'s secret from the key file, checked against the database."""
    path = path_for(database)
    secret = load(database).get(str(tournament_id))
    if secret is None:
        raise KeyFileError(f"the secret of tournament {tournament_id} is not in {path}: keep that file with the"
                           " database (it holds the secrets its deals are made from)")
    if commitment(secret) != expected_sha256:
        raise KeyFileError(f"{path} holds another secret for tournament {tournament_id} than the one its deals"
                           " were made with: the key file does not belong to this database")
    return secret


def move_out_of(store) -> int:
    """Schema 2 to 3: move every tournament's secret from the ``tournaments`` table into the key
    file, keep its SHA-256, and drop the column (its old bytes overwritten). Runs inside the
    store's write transaction; returns how many secrets moved."""
    conn = store.db.conn
    columns = {row[1] for row in conn.execute("PRAGMA table_info(tournaments)")}
    if "secret" not in columns:
        return 0  # moved already (a database whose later schema step was undone, or re-run)
    conn.execute("PRAGMA secure_delete = ON")  # freed space is zeroed, so no copy stays in the file
    conn.execute("ALTER TABLE tournaments ADD COLUMN secret_sha256 TEXT")
    rows = conn.execute("SELECT id, secret FROM tournaments WHERE secret IS NOT NULL").fetchall()
    if rows:
        save(store.path, {tournament_id: secret for tournament_id, secret in rows})
    conn.executemany("UPDATE tournaments SET secret_sha256 = ? WHERE id = ?",
                     [(commitment(secret), tournament_id) for tournament_id, secret in rows])
    conn.execute("UPDATE tournaments SET secret = NULL")
    conn.execute("ALTER TABLE tournaments DROP COLUMN secret")
    return len(rows)
