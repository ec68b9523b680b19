"""What several benchmarks share: copies of the random bot, and a look at processes in /proc."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def random_bots(folder: Path, count: int) -> list[str]:
    """``count`` copies of the random bot, each with its own content (so its own version)."""
    source = (REPO / "bots" / "random.py").read_text()
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o755)
    paths = []
    for number in range(count):
        path = folder / f"random{number:03d}.py"
        path.write_text(source + f"\n# copy {number}\n")
        os.chmod(path, 0o644)
        paths.append(str(path))
    return paths


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    if int(handle.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        found.append(int(entry.name))
            except OSError:
                continue
    return found


def alive(pid: int) -> bool:
    """``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False
