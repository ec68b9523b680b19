"""Write small protocol bots for tests: a standard loop with hooks for misbehaviour.

`write_bot(directory, name, on_start=..., on_request=...)` writes `name.py`, a Python bot
whose start and request handlers are the given code (indented into the loop). The default
handlers behave: `ready` on start, the first legal action on request. Files are made
world-readable, because as root the sandbox runs the bot as an unprivileged user.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

TEMPLATE = '''\
import json, os, sys, time

def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()

requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
{on_start}
    elif message["type"] == "request":
        requests += 1
{on_request}
    elif message["type"] == "quit":
        break
'''

READY = 'reply({"type": "ready"})'
FIRST_LEGAL = 'reply({"type": "action", "index": 0})'


def write_bot(directory: Path, name: str, on_start: str = READY, on_request: str = FIRST_LEGAL,
              shebang: str | None = None) -> str:
    """Write the bot; with ``shebang`` (an interpreter path) it is an executable file instead
    of a ``.py`` file run by the harness's Python."""
    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, 0o755)
    path = directory / (name if shebang else f"{name}.py")
    source = TEMPLATE.format(on_start=textwrap.indent(textwrap.dedent(on_start), " " * 8),
                             on_request=textwrap.indent(textwrap.dedent(on_request), " " * 8))
    path.write_text(f"#!{shebang}\n{source}" if shebang else source)
    os.chmod(path, 0o755 if shebang else 0o644)
    for parent in directory.parents:  # let the bot's user walk to it (pytest's tmp is 0700)
        if str(parent).startswith("/tmp/"):
            os.chmod(parent, os.stat(parent).st_mode | 0o711)
    return str(path)


def random_copies(directory: Path, count: int, stem: str = "r") -> list[str]:
    """``count`` copies of bots/random.py (``<stem>0.py`` ...), each its own bot version (a
    comment tells them apart), readable by the sandbox's user."""
    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, 0o755)
    source = (Path(__file__).resolve().parents[1] / "bots" / "random.py").read_text()
    paths = []
    for number in range(count):
        path = directory / f"{stem}{number}.py"
        path.write_text(source + f"\n# copy {number}\n")
        os.chmod(path, 0o644)
        paths.append(str(path))
    return paths


def processes_with(fragment: str) -> list[int]:
    """Pids of live processes whose command line contains ``fragment``."""
    found = []
    needle = fragment.encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in cmdline and state != b"Z":
            found.append(int(entry.name))
    return found


def zombie_children() -> list[int]:
    """Pids of this process's children that exited and were never reaped."""
    zombies = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == b"Z" and int(fields[1]) == os.getpid():
            zombies.append(int(entry.name))
    return zombies
