"""Staged bots and arena's game rules on a tmpfs private to the process that stages them, so
that a bot reading ``/proc/self/mountinfo`` learns no host path from them.

Linux reports every bind mount with its source's path inside the source's file system (the
4th field of ``mountinfo``). A staged copy bound at ``/bot`` from a folder on the host's disk
so shows the harness's temporary folder and its process id; arena's rules bound from the
checkout show the checkout's path. A copy on a tmpfs of its own shows only its path inside
that tmpfs (``/<content hash>``).

As root, `mount_private` makes the calling thread enter a mount namespace of its own (once
per thread: ``unshare(CLONE_NEWNS)``, every mount made private so nothing propagates back to
the host) and mounts a tmpfs on the given folder there. Linux keeps the mount namespace per
thread: the other threads of the process (the Dask worker's, or OpenBLAS's idle ones started
when ``sqlite_utils`` imports numpy) stay where they were; threads and processes the calling
thread starts afterwards (bubblewrap) inherit its namespace. So the folder's content is seen
only by that thread and what it starts: a `StageCache` is used by the thread that made it
(`owned`). Nothing else sees that tmpfs: not the host, not the other workers; it disappears
with the last process of the namespace (the thread's process and the bots it started, which
die with it), even after ``kill -9``. The empty mount point stays on the host's disk and is
swept like any other scratch folder (`arena.scratch`).

Not done, and the folder stays an ordinary folder (as before), when:

* the process is not root (rootless harness: no right to mount; bubblewrap then works in a
  user namespace, and the staged copy's host path stays visible in ``mountinfo``);
* ``ARENA_PRIVATE_STAGE=0`` is set, or the kernel refuses.

The tmpfs has the kernel's default size (half the memory); its pages count as the process's
memory (and its cgroup's). Knows nothing of bots.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import threading
from pathlib import Path

CLONE_NEWNS = 0x00020000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
MNT_DETACH = 2

_libc = None
_entered: set[tuple[int, int]] = set()  # (pid, thread) that entered a mount namespace of its own


def _c():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        _libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
        _libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    return _libc


def _me() -> tuple[int, int]:
    return os.getpid(), threading.get_native_id()


def wanted() -> bool:
    """Whether this process may stage on a private tmpfs (root, not turned off)."""
    return os.environ.get("ARENA_PRIVATE_STAGE", "1") != "0" and hasattr(os, "geteuid") and os.geteuid() == 0


def owned() -> bool:
    """True in the thread that entered its own mount namespace (a forked child has not)."""
    return _me() in _entered


def _enter_namespace() -> bool:
    if owned():
        return True
    libc = _c()
    if libc.unshare(CLONE_NEWNS) != 0:
        return False
    # From now on no mount made here reaches the host, and none made there reaches us.
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return False  # a namespace of our own anyway: mounts on top of it stay ours only
    _entered.add(_me())
    return True


def mount_private(folder: str | os.PathLike) -> bool:
    """Mount a tmpfs private to this process on the existing, empty ``folder`` (mode 0755).
    False when not done (see the module docstring): the folder is then an ordinary one."""
    if not wanted() or not _enter_namespace():
        return False
    return _c().mount(b"arena", os.fsencode(folder), b"tmpfs", 0, b"mode=0755") == 0


def unmount(folder: str | os.PathLike) -> None:
    """Detach the tmpfs on ``folder`` (its files go with it); nothing when none is there."""
    if owned():
        _c().umount2(os.fsencode(folder), MNT_DETACH)


def copy_engine(target: Path, package: Path) -> Path:
    """Copy arena's ``__init__.py`` and its pure-rules ``games`` package (``package``: the
    ``arena`` folder) to ``target/arena``; returns ``target/arena``."""
    arena = target / "arena"
    arena.mkdir(parents=True, mode=0o755)
    shutil.copyfile(package / "__init__.py", arena / "__init__.py")
    shutil.copytree(package / "games", arena / "games", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for root, dirs, names in os.walk(target):
        os.chmod(root, 0o755)
        for name in names:
            os.chmod(os.path.join(root, name), 0o644)
    return arena


__all__ = ["copy_engine", "mount_private", "unmount", "wanted"]
