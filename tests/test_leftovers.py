"""Nothing is left behind after any kill: a zombie is a dead owner, every scratch folder names
its owner (pid and start time) and a later command removes the folders of owners that are
gone; a bot with a build step is stored once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from arena import scratch
from arena.pids import alive, start_time
from arena.results.store import Store
from arena.results.submit import submit

REPO = Path(__file__).resolve().parents[1]
RANDOM = REPO / "bots" / "random.py"
ARENA = [sys.executable, "-m", "arena"]


def wait_until(condition, what: str, process=None, seconds: float = 120.0):
    """Poll for ``condition`` (an event, not a guess at how long it takes)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the process ended before {what}: {process.communicate()}")
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.02)


def state_of(pid: int) -> bytes:
    with open(f"/proc/{pid}/stat", "rb") as handle:
        return handle.read().rsplit(b")", 1)[1].split()[0]


def private_tmp(tmp_path: Path) -> Path:
    """A temporary folder of this test's own (so other tests' folders never count), walkable by
    the bots' users."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    for path in (folder, *folder.parents):
        if str(path).startswith("/tmp/"):
            path.chmod(path.stat().st_mode | 0o711)
    return folder


def env_with_tmp(folder: Path) -> dict:
    return {**os.environ, "TMPDIR": str(folder), "PYTHONPATH": str(REPO)}


def ours(folder: Path, prefixes=scratch.TEMPORARY_PREFIXES) -> list[str]:
    return sorted(e.name for e in os.scandir(folder) if e.name.startswith(prefixes))


def test_a_zombie_owner_is_dead_and_its_folders_are_swept_but_a_live_owners_never(tmp_path):
    """Failure: `pids.alive` used `os.kill(pid, 0)`, which counts a zombie (a killed worker that
    nothing reaps) as running, so its folders were never removed; a reused pid must not keep
    a dead owner's folder either."""
    zombie = subprocess.Popen(["/bin/true"])
    try:
        wait_until(lambda: state_of(zombie.pid) == b"Z", "the child become a zombie")
        assert not alive(zombie.pid)
        assert alive(os.getpid()) and alive(os.getpid(), start_time(os.getpid()))
        assert not alive(os.getpid(), start_time(os.getpid()) + 1)  # the same pid, a later process
        folder = tmp_path / "sweep"
        folder.mkdir()
        dead = [f"{prefix}{scratch.owner_name(zombie.pid)}-abc" for prefix in scratch.TEMPORARY_PREFIXES]
        reused = f"arena-worker-{os.getpid()}-s{start_time(os.getpid()) + 1}-abc"
        kept = [f"{prefix}{scratch.owner_name()}-abc" for prefix in scratch.TEMPORARY_PREFIXES] + [
            "arena-build-nopid", f"other-{zombie.pid}-s1-x", f"arena-stage-{os.getpid()}-legacy"]
        for name in dead + [reused] + kept:
            (folder / name / "inner").mkdir(parents=True)
        removed = scratch.sweep(folder)
        assert sorted(os.path.basename(p) for p in removed) == sorted(dead + [reused])
        assert sorted(os.listdir(folder)) == sorted(kept)
    finally:
        zombie.wait()


def test_kill_9_of_the_coordinator_then_resume_leaves_no_worker_folder(tmp_path):
    """Failure: after `kill -9` of the coordinator its workers die but stay zombies (nothing
    reaps them here), and `tournament resume` kept their `arena-worker-*` folders."""
    tmp = private_tmp(tmp_path)
    db = tmp_path / "arena.db"
    command = ARENA + ["--db", str(db), "tournament", "run", "--game", "five-towers", "--bots",
                       f"{RANDOM},{REPO / 'bots' / 'five_towers_heuristic.py'}", "--players", "2",
                       "--rounds", "60", "--seed", "3", "--workers", "2"]
    process = subprocess.Popen(command, cwd=REPO, env=env_with_tmp(tmp), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_until(lambda: len(ours(tmp, (scratch.WORKER,))) >= 2, "two worker folders", process)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.communicate()
    left = ours(tmp, (scratch.WORKER,))
    assert left  # the killed workers could not remove their own folders
    resumed = subprocess.run(ARENA + ["--db", str(db), "tournament", "resume", "1", "--workers", "1"], cwd=REPO,
                             env=env_with_tmp(tmp), capture_output=True, text=True, timeout=280)
    assert resumed.returncode == 0, resumed.stderr
    assert not set(left) & set(ours(tmp, (scratch.WORKER,)))
    assert ours(tmp) == []  # and the resume's own workers removed theirs


def build_kit(folder: Path, build: str) -> Path:
    """A folder bot whose build step writes its program (no compiler needed)."""
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(f'command = "python3 bot.py"\nbuild = "{build}"\n')
    (folder / "source.py").write_text(RANDOM.read_text())
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    for parent in folder.parents:
        if str(parent).startswith("/tmp/"):
            parent.chmod(parent.stat().st_mode | 0o711)
    return folder


def test_kill_9_during_a_submit_with_a_build_is_cleaned_up_by_the_next_submit(tmp_path):
    """Failure: `kill -9` during `arena submit` of a kit with a build step left its
    `arena-build-*` and `arena-stage-*` folders (no pid in the build folder's name), and no
    later command removed them."""
    tmp = private_tmp(tmp_path)
    db = tmp_path / "arena.db"
    kit = build_kit(tmp_path / "slow", "cp source.py bot.py && sleep 600")
    process = subprocess.Popen(ARENA + ["--db", str(db), "submit", str(kit), "--game", "five-towers"], cwd=REPO,
                               env=env_with_tmp(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        # The build is running once its sandbox (bwrap, a child of the submit) exists.
        wait_until(lambda: ours(tmp, (scratch.STAGE,)) and any(
            b"bwrap" in open(f"/proc/{pid}/cmdline", "rb").read() for pid in children(process.pid)),
            "the build start", process)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.communicate()
    left = ours(tmp)
    assert any(n.startswith(scratch.BUILD) for n in left) and any(n.startswith(scratch.STAGE) for n in left)
    wait_until(lambda: not alive(process.pid), "the submit gone")
    again = subprocess.run(ARENA + ["--db", str(db), "submit", str(RANDOM), "--game", "five-towers"], cwd=REPO,
                           env=env_with_tmp(tmp), capture_output=True, text=True, timeout=280)
    assert again.returncode == 0, again.stderr
    assert ours(tmp) == []
    assert [p.name for p in (tmp_path / "arena.db-bots").iterdir() if p.name.startswith(".")] == []


def children(pid: int) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    if int(handle.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


def test_a_bot_with_a_build_step_is_stored_once_as_built(tmp_path):
    """Failure: each submit of a bot with a build step kept the pre-build copy in the bot
    store beside the built one (docs/bots.md: what the folder holds after the build is what
    is stored)."""
    kit = build_kit(tmp_path / "kit", "cp source.py bot.py")
    with Store(tmp_path / "arena.db") as store:
        outcome = submit(store, kit, "five-towers")
        assert outcome.validation["status"] == "ok"
        stored = sorted(p.name for p in store.bot_store.iterdir())
        assert stored == [outcome.version["stored_hash"]]
        assert (store.bot_path(outcome.version) / "bot.py").is_file()
        again = submit(store, kit, "five-towers")
        assert not again.created
        assert sorted(p.name for p in store.bot_store.iterdir()) == stored
