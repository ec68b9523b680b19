"""Whether a process id names a running process (for stale locks, folders and runs).

A zombie — a process that ended but was not reaped yet, as the workers of a coordinator
killed with ``kill -9`` stay where nothing reaps orphans — is not running: ``os.kill(pid, 0)``
alone would count it. Where a record also keeps the process's start time (`start_time`), a
new process that was given the same pid is not taken for the old one.
"""

from __future__ import annotations

import os


def _stat_fields(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name, or None (no such process)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def start_time(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks since boot (None when unknown): with the pid, it
    names one process for good."""
    fields = _stat_fields(pid)
    try:
        return int(fields[19]) if fields else None
    except (ValueError, IndexError):
        return None


def alive(pid: int, started: int | None = None) -> bool:
    """True if a process ``pid`` is running, even one we may not signal; False for none, a
    zombie, a number no process can have, or (with ``started``) a later process with the same
    pid."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    fields = _stat_fields(pid)
    if fields is not None:
        if fields[0] in (b"Z", b"X", b"x"):
            return False
        return started is None or start_time(pid) == started
    if os.path.isdir("/proc/self"):
        return False  # /proc is there and has no such process
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OverflowError:
        return False
    return True
