"""A database's bot store: each version's copy under its content hash, beside the database.

``results/arena.db`` keeps its copies in ``results/arena.db-bots/<sha256>/<name>``: a file
bot as that file, a folder bot as that folder. Copies are read-only, never overwritten and
never shared with another database. Adding a copy is safe against other processes adding the
same one at the same moment: it is made in a private temporary folder and renamed into place;
whoever renames second finds it there and keeps the first.
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.runner import files
from arena.scratch import INCOMING, make as make_folder


def store_copy(bot_store: Path, source: Path) -> tuple[str, str]:
    """Copy the bot at ``source`` into ``bot_store``; returns (content hash, path relative to it).

    A file bot is stored as ``<hash>/<its file name>``, a folder bot as ``<hash>/<its name>/``.
    """
    bot_store.mkdir(mode=0o755, exist_ok=True)
    os.chmod(bot_store, 0o755)  # walkable by the bots' own users, when the harness is root
    scratch = make_folder(INCOMING, bot_store)
    try:
        holder = scratch / "copy"
        if source.is_dir():
            holder.mkdir(mode=0o755)
            digest = files.copy_bot(source, holder / source.name)
        else:
            digest = files.copy_bot(source, holder)
        relative = f"{digest}/{source.name}"
        final = bot_store / digest
        if (bot_store / relative).exists():
            return digest, relative
        if final.exists():  # the same content, stored before under another name
            files.unseal(final)
            try:
                os.rename(holder / source.name, final / source.name)
            except OSError:
                if not (bot_store / relative).exists():
                    raise
            files.seal(final)
            return digest, relative
        files.seal(holder)
        try:
            os.rename(holder, final)
        except OSError:
            if not (bot_store / relative).exists():  # another process stored it a moment ago
                raise
        return digest, relative
    finally:
        files.remove_tree(scratch)


def verify(bot_store: Path, relative: str, expected: str) -> str | None:
    """None when the stored copy still has hash ``expected``; else what is wrong, in words."""
    path = bot_store / relative
    if not path.exists():
        return f"the stored copy {path} is missing"
    try:
        digest = files.content_hash(path)
    except files.BotFilesError as error:
        return f"the stored copy {path} is damaged ({error})"
    if digest != expected:
        return f"the stored copy {path} has changed (sha256 {digest[:12]}, recorded {expected[:12]})"
    return None


def migrate_v1_copies(store) -> None:
    """Move the copies of a schema-1 database (``bots/<game>/<name>/v<n>/``, shared by every
    database in the folder) into this database's own content-addressed store."""
    conn = store.db.conn
    rows = conn.execute("SELECT id, path FROM bot_versions").fetchall()
    for version_id, old_path in rows:
        source = store.root / old_path
        if not source.exists():
            continue  # stays as it is; `tournament run` names it when it is needed
        digest, relative = store_copy(store.bot_store, source)
        conn.execute("UPDATE bot_versions SET path = ?, stored_hash = ? WHERE id = ?", [relative, digest, version_id])
    # The old shared folder is left in place: other databases in the folder may still use it.
