"""Scratch folders named after the process that owns them, and the sweep that removes those
whose owner is gone.

Every folder arena makes for a while — a worker's folder, staged bot copies, a build, a bot's
scratch home without bubblewrap, a copy being added to a bot store — is named
``<prefix><pid>-s<start time>-<random>``: the owner's pid and its start time (so a later
process given the same pid is not taken for the owner). A process killed with ``kill -9``
cannot remove its folders; `sweep` removes every such folder whose owner is no longer
running (a zombie included), and never touches a running owner's folder, a folder of another
user or a folder whose name says nothing of its owner.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from arena.pids import alive, start_time

WORKER = "arena-worker-"    # a tournament worker's folder (local and Dask workers)
STAGE = "arena-stage-"      # staged bot copies of a process without a worker folder
BUILD = "arena-build-"      # a build step's folder (`arena submit`)
SCRATCH = "arena-scratch-"  # a bot's home without bubblewrap (mode none)
TEMPORARY_PREFIXES = (WORKER, STAGE, BUILD, SCRATCH)  # what arena makes in the temporary folder
INCOMING = ".incoming-"     # a copy being added to a bot store (inside the store)


def owner_name(pid: int | None = None) -> str:
    """``<pid>-s<start time>`` of ``pid`` (default: this process)."""
    pid = pid or os.getpid()
    started = start_time(pid)
    return f"{pid}-s{started}" if started is not None else str(pid)


def make(prefix: str, folder: str | os.PathLike | None = None, tag: str = "", mode: int | None = None) -> Path:
    """A new folder ``<prefix><pid>-s<start>-<tag><random>`` in ``folder`` (default: the
    temporary folder), owned by this process."""
    path = Path(tempfile.mkdtemp(prefix=f"{prefix}{owner_name()}-{tag}", dir=folder))
    if mode is not None:
        os.chmod(path, mode)
    return path


def owner_of(name: str, prefix: str) -> tuple[int, int | None] | None:
    """(pid, start time or None) named by a folder ``name`` made with ``prefix``; None when the
    name says nothing of an owner."""
    if not name.startswith(prefix):
        return None
    words = name[len(prefix):].split("-")
    if not words[0].isdigit():
        return None
    started = None
    if len(words) > 2 and words[1].startswith("s") and words[1][1:].isdigit():
        started = int(words[1][1:])
    return int(words[0]), started


def orphaned(path: str | os.PathLike, prefix: str) -> bool:
    """True when ``path`` is a folder of ours made with ``prefix`` whose owner is gone."""
    owner = owner_of(os.path.basename(os.fspath(path)), prefix)
    if owner is None:
        return False
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if info.st_uid != os.geteuid() or not os.path.isdir(path) or os.path.islink(path):
        return False
    return not alive(*owner)


def sweep(folder: str | os.PathLike | None = None, prefixes: tuple[str, ...] = TEMPORARY_PREFIXES) -> list[str]:
    """Remove the folders in ``folder`` (default: the temporary folder) made with one of
    ``prefixes`` whose owner is no longer running; returns their paths."""
    from arena.runner.files import remove_tree

    folder = os.fspath(folder) if folder is not None else tempfile.gettempdir()
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        prefix = next((p for p in prefixes if entry.name.startswith(p)), None)
        if prefix is None or not orphaned(entry.path, prefix):
            continue
        try:
            remove_tree(entry.path)
            removed.append(entry.path)
        except OSError:
            continue
    return removed
