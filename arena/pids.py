"""Whether a process id names a running process (for stale locks, folders and runs)."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True if a process ``pid`` exists, even one we may not signal; False for none, or for a
    number no process can have."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OverflowError:
        return False
    return True
