"""Helpers for the hostile-bot suite: planted secrets, a prelude of probes for the bots, and
the checks that nothing was left behind.

Every hostile bot starts with `PRELUDE`: it reports its uid (so the test can check that no
process of that uid survives) and offers `hunt()`, which tries every secret the test planted
and prints ``LEAK <where>`` on stderr for each one it could read, and `try_write()`, which
prints ``WROTE <path>`` for each host path it managed to write.
"""

from __future__ import annotations

import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BOT_UID_RANGE = range(200_000, 250_000)

PRELUDE = r'''
import glob, json, os, signal, subprocess, sys, time
SECRET = {secret!r}
SECRET_PATHS = {paths!r}
OUTSIDE = {outside!r}
sys.stderr.write("UID %d\n" % os.getuid())
sys.stderr.flush()

def leak(where):
    sys.stderr.write("LEAK %s\n" % where)
    sys.stderr.flush()

def readable(path, limit=1 << 20):
    try:
        with open(path, "rb") as handle:
            return handle.read(limit)
    except OSError:
        return None

def hunt():
    for path in SECRET_PATHS:
        data = readable(path)
        if data is not None and SECRET.encode() in data:
            leak(path)
        try:
            for name in os.listdir(path):
                data = readable(os.path.join(path, name))
                if data and SECRET.encode() in data:
                    leak(os.path.join(path, name))
        except OSError:
            pass
    for proc in glob.glob("/proc/[0-9]*"):
        for part in ("cmdline", "environ"):
            data = readable(proc + "/" + part)
            if data and SECRET.encode() in data:
                leak(proc + "/" + part)
    if SECRET in json.dumps(dict(os.environ)):
        leak("environment")

def try_write():
    for path in OUTSIDE:
        try:
            with open(path, "w") as handle:
                handle.write("x")
            sys.stderr.write("WROTE %s\n" % path)
        except OSError:
            pass
'''


@dataclass
class Plant:
    """The secrets and canaries of one test: where they are, and how to check them."""

    secret: str
    secret_paths: list[str]
    outside: list[str]
    opponent: str
    folders: list[Path]

    def prelude(self) -> str:
        return PRELUDE.format(secret=self.secret, paths=self.secret_paths, outside=self.outside)

    def written_outside(self) -> list[str]:
        return [path for path in self.outside if os.path.exists(path)]


def plant(tmp_path: Path) -> Plant:
    """A results folder with a database, another bot, a root-only file: all holding the secret."""
    secret = "arena-secret-" + secrets.token_hex(8)
    results = tmp_path / "results"
    results.mkdir()
    (results / "arena.db").write_text(f"SQLite format 3 pretend {secret}")
    store = results / "arena.db-bots" / ("0" * 8)
    store.mkdir(parents=True)
    (store / "rival.py").write_text(f"# {secret}\n")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "key").write_text(secret)
    os.chmod(private / "key", 0o600)
    world = tmp_path / "world"  # readable by anyone on the host: only the sandbox can hide it
    world.mkdir(mode=0o755)
    (world / "note").write_text(secret)
    os.chmod(world / "note", 0o644)
    opponent_dir = tmp_path / "opponent"
    opponent_dir.mkdir(mode=0o755)
    opponent = opponent_dir / "honest.py"
    opponent.write_text(f"# {secret}\n" + (REPO / "tests" / "bots" / "greedy.py").read_text())
    os.chmod(opponent, 0o644)
    outside_dir = tmp_path / "outside"
    outside_dir.mkdir(mode=0o777)
    os.chmod(outside_dir, 0o777)
    for parent in tmp_path.parents:  # let the bots' users walk to their files (pytest's tmp is 0700)
        if str(parent).startswith("/tmp/"):
            os.chmod(parent, os.stat(parent).st_mode | 0o711)
    os.chmod(tmp_path, 0o711)
    os.environ["ARENA_HOSTILE_SECRET"] = secret  # the harness's own environment
    paths = [str(results / "arena.db"), str(store / "rival.py"), str(private / "key"), str(world / "note"),
             str(opponent), str(results), str(world), str(REPO / "README.md"), str(REPO),
             "/root", "/etc/shadow", "/proc/1/environ"]
    # /tmp, /var/tmp and /dev/shm are the bot's own inside the sandbox; what it leaves in the
    # host's ones is checked by its uid (`files_of_uid`).
    outside = [str(outside_dir / "x"), str(world / "x"), str(opponent_dir / "x"), str(REPO / "arena-hostile-x")]
    return Plant(secret, paths, outside, str(opponent), [results, private, world, opponent_dir, outside_dir])


# ---- what must be left: nothing --------------------------------------------------------------

def our_cgroups() -> list[str]:
    found = []
    prefix = f"arena-{os.getpid()}-"
    for controller in ("memory", "pids", "cpu", "cpuacct", "freezer", "unified"):
        base = Path("/sys/fs/cgroup") / controller
        if not base.is_dir():
            continue
        for folder, dirs, _ in os.walk(base):
            found += [os.path.join(folder, d) for d in dirs if d.startswith(prefix)]
            if folder.count("/") > 8:
                dirs[:] = []
    return found


def our_folders() -> list[str]:
    """Folders this test process made in /tmp for bots (stage copies, scratch directories)."""
    pid = str(os.getpid())
    return [entry.path for entry in os.scandir("/tmp")
            if entry.name.startswith(("arena-stage-" + pid, "arena-scratch-", "arena-w" + pid))]


def processes_of_uid(uid: int) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status") as handle:
                for line in handle:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) == uid:
                            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                                if stat.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                                    found.append(int(entry.name))
                        break
        except OSError:
            continue
    return found


def reported_uid(stderr: str) -> int | None:
    for line in stderr.splitlines():
        if line.startswith("UID "):
            return int(line.split()[1])
    return None


def files_of_uid(uid: int, folders=("/tmp", "/var/tmp", "/dev/shm")) -> list[str]:
    found = []
    for folder in folders:
        try:
            for entry in os.scandir(folder):
                try:
                    if entry.stat(follow_symlinks=False).st_uid == uid:
                        found.append(entry.path)
                except OSError:
                    continue
        except OSError:
            continue
    return found


def remove(plant_: Plant) -> None:
    for folder in plant_.folders:
        shutil.rmtree(folder, ignore_errors=True)
