"""User ids for bots when the harness runs as root: one unprivileged uid per live bot process.

A uid is held through an exclusive ``flock`` on a lock file, so harness processes running at
the same time (two tournaments, a test suite and a demo) never hand out the same uid; the
kernel drops the lock when its holder dies. A uid that some live process still runs as (a
survivor of a harness that was killed) is skipped.
"""

from __future__ import annotations

import fcntl
import os
import random
import tempfile
from pathlib import Path

BOT_UID_BASE = 200_000
BOT_UID_SLOTS = 50_000
BOT_GID = 65534  # nogroup


class NoFreeUid(RuntimeError):
    pass


def _lock_folder() -> Path:
    for candidate in (Path("/run/arena-uids"), Path(tempfile.gettempdir()) / "arena-uids"):
        try:
            candidate.mkdir(mode=0o700, exist_ok=True)
            if candidate.stat().st_uid == os.geteuid() and os.access(candidate, os.W_OK):
                return candidate
        except OSError:
            continue
    raise NoFreeUid("no folder for bot uid locks (/run or the temporary folder must be writable)")


def _uids_in_use() -> set[int]:
    """Real uids of every live process (read once per allocation)."""
    used = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                used.add(os.stat(entry.path).st_uid)
            except OSError:
                continue
    return used


class BotUid:
    """A uid held for one bot process; ``release`` (or the holder's death) frees it."""

    def __init__(self) -> None:
        folder = _lock_folder()
        in_use = _uids_in_use()
        rng = random.Random(os.getpid() ^ int.from_bytes(os.urandom(4), "big"))
        start = rng.randrange(BOT_UID_SLOTS)
        for offset in range(BOT_UID_SLOTS):
            uid = BOT_UID_BASE + (start + offset) % BOT_UID_SLOTS
            if uid in in_use:
                continue
            fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise NoFreeUid(f"all {BOT_UID_SLOTS} bot uids are in use")

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
