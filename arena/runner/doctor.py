"""`arena doctor`: what this machine offers bots — sandbox protections, limits, interpreters."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from arena.runner.sandbox import BOT_UID_BASE, ResourceLimits, detect_protections


def _yes(flag: bool, detail: str = "") -> str:
    return ("yes" if flag else "NO") + (f" ({detail})" if detail else "")


def _version(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "?"


def report() -> list[str]:
    protections = detect_protections()
    limits = ResourceLimits()
    bwrap = shutil.which("bwrap")
    node = shutil.which("node")
    filesystem = {
        "read-only": "read-only; writable only: the bot's scratch directory and a private /tmp",
        "user-permissions": "ordinary permissions of the bot's unprivileged user",
        "none": "the harness user's own permissions (no protection)",
    }[protections.filesystem]
    lines = [
        f"sandbox mode ........... {protections.mode}",
        f"  bubblewrap ........... {bwrap + ' (' + _version([bwrap, '--version']) + ')' if bwrap else 'not installed (apt-get install bubblewrap)'}",
        f"  network isolated ..... {_yes(protections.network_isolated)}",
        f"  filesystem ........... {filesystem}",
        f"  own PID namespace .... {_yes(protections.pid_namespace, 'every process of a bot ends with it' if protections.pid_namespace else 'stray processes are found by an environment token and killed')}",
        f"  unprivileged user .... {_yes(protections.separate_user, f'one uid per bot from {BOT_UID_BASE}') if os.geteuid() == 0 else 'not root: bots run as ' + str(os.geteuid())}",
        f"  resource limits ...... yes (memory {limits.memory_bytes >> 20} MiB, CPU {limits.cpu_seconds} s, "
        f"{limits.processes} processes{'' if protections.separate_user else ' (not enforced: no uid of its own)'}, "
        f"files {limits.file_bytes >> 20} MiB, {limits.open_files} open files, no core files)",
        "  scratch directory .... yes (fresh per bot, removed after the match)",
        "  environment .......... minimal (PATH, HOME, LANG, TMPDIR, PYTHONUNBUFFERED)",
        f"python bots ............ {os.path.abspath(sys.executable)} ({sys.version.split()[0]})",
        f"javascript bots ........ {node + ' (' + _version([node, '--version']) + ')' if node else 'node not found: .js bots cannot run'}",
    ]
    if protections.mode != "bubblewrap" and protections.separate_user:
        prefix = sys.base_prefix
        if any(not os.stat(p).st_mode & 0o001 for p in _parents(prefix)):
            lines.append(f"WARNING: {prefix} is not reachable by other users; Python bots cannot start "
                         "without bubblewrap (install bubblewrap)")
    return lines


def _parents(path: str) -> list[str]:
    parts = []
    while path not in ("/", ""):
        path = os.path.dirname(path)
        parts.append(path)
    return parts
