"""Bot tokens: the mark every process of a bot carries in its environment (``ARENA_BOT_TOKEN``),
and finding or killing processes by it. Where there are no cgroups this is how a bot's
processes are found, even one that left its process group or session. Knows nothing of
sandboxes, bots or games (the sandbox and the process transport both build on it).
"""

from __future__ import annotations

import os
import signal
import uuid

ENVIRONMENT_KEY = "ARENA_BOT_TOKEN"


def new_token() -> str:
    return uuid.uuid4().hex


def pids_with_token(token: str) -> list[int]:
    """Live processes whose environment carries ``token`` (zombies have no environment)."""
    needle = f"{ENVIRONMENT_KEY}={token}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as handle:
                if needle in handle.read():
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


def signal_token(token: str, signum: int) -> int:
    """Send ``signum`` to every process carrying ``token``; returns how many were signalled."""
    sent = 0
    for pid in pids_with_token(token):
        try:
            os.kill(pid, signum)
            sent += 1
        except OSError:
            continue
    return sent


def kill_by_token(token: str) -> int:
    """SIGKILL every process whose environment carries ``token`` (a double-forked child that
    left the process group included). Returns how many were signalled."""
    return signal_token(token, signal.SIGKILL)
