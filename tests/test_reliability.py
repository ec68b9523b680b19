"""The runner under stress: no hang in hundreds of short tournaments, clean stops on every signal
(to the process or its group, once or twice), no process or folder left, kill -9 of the
coordinator, and two arena processes on one database at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.results.store import Store
from arena.tournament import TournamentConfig, create, run
from botmaker import write_bot
from synthetic import result
from waiting import PATIENCE

REPO = Path(__file__).resolve().parents[1]
RANDOM_BOT = str(REPO / "bots" / "random.py")
ARENA = [sys.executable, "-m", "arena"]


def quick_play(spec, bots=None):
    """A stand-in for a match: no processes, a result in a millisecond (the executor is tested)."""
    from types import SimpleNamespace

    scores = [float((spec.seed >> (5 * seat)) % 7) for seat in range(len(spec.bots))]
    return SimpleNamespace(to_dict=lambda: result(scores, game=spec.game))


def worker_folders() -> set[str]:
    """Worker folders whose worker is gone: what a run must never leave behind."""
    left = set()
    for entry in os.scandir("/tmp"):
        if entry.name.startswith("arena-worker-"):
            owner = entry.name.split("-")[2]
            if owner.isdigit() and not alive(int(owner)):
                left.add(entry.name)
    return left


def test_two_hundred_short_tournaments_in_a_row_never_hang(tmp_path):
    bots = [write_bot(tmp_path / "src", "a"), write_bot(tmp_path / "src", "b")]
    with Store(tmp_path / "arena.db") as store:
        for number in range(200):
            tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, seed=number))
            began = time.monotonic()
            summary = run(store, tournament_id, workers=2, play=quick_play)
            assert summary.played == 2 and not summary.interrupted
            assert time.monotonic() - began < 20, f"tournament {number} took too long"


def test_twenty_short_tournaments_with_real_bots_never_hang_and_leave_nothing(tmp_path):
    before = worker_folders()
    bots = [write_bot(tmp_path / "src", "a"), RANDOM_BOT]
    with Store(tmp_path / "arena.db") as store:
        for number in range(20):
            tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, seed=number))
            summary = run(store, tournament_id, workers=2)
            assert summary.played == 2
    assert worker_folders() <= before


# ---- signals -------------------------------------------------------------------------------------

def start(db: Path, *extra, rounds=6, workers=2, game="five-towers"):
    db.parent.mkdir(exist_ok=True)
    command = ARENA + ["--db", str(db), "tournament", "run", "--game", game, "--bots",
                       f"{RANDOM_BOT},{REPO / 'bots' / 'five_towers_heuristic.py'}", "--players", "2",
                       "--rounds", str(rounds), "--seed", "5", "--workers", str(workers), *extra]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def finished(db: Path) -> int:
    try:
        with Store(db, readonly=True) as store:
            return store.one("SELECT COUNT(*) AS n FROM matches WHERE status = 'finished'")["n"]
    except Exception:
        return 0


def wait_for(db: Path, count: int, process, seconds: float = PATIENCE) -> None:
    deadline = time.monotonic() + seconds
    while finished(db) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.05)


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
                if int(fields[1]) == pid and fields[0] != b"Z":
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def gone(pids, seconds=PATIENCE) -> bool:
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def arena(db, *args, timeout=PATIENCE):
    return subprocess.run(ARENA + ["--db", str(db), *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)


def leaderboard(db) -> list:
    out = arena(db, "leaderboard", "--game", "five-towers", "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["entries"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    db = tmp_path_factory.mktemp("whole") / "arena.db"
    process = start(db)
    assert process.wait(timeout=PATIENCE) == 0, process.communicate()
    return leaderboard(db)


@pytest.mark.slow
@pytest.mark.parametrize("signum,to_group,twice", [
    (signal.SIGINT, True, False), (signal.SIGTERM, True, False), (signal.SIGTERM, False, True),
    (signal.SIGHUP, True, True), (signal.SIGINT, False, True)])
def test_a_stop_signal_stops_cleanly_and_resume_equals_an_uninterrupted_run(tmp_path, uninterrupted, signum,
                                                                          to_group, twice):
    before = worker_folders()
    db = tmp_path / "arena.db"
    process = start(db)
    wait_for(db, 2, process)
    workers = children_of(process.pid)
    (os.killpg if to_group else os.kill)(process.pid, signum)
    if twice:
        time.sleep(0.05)
        try:
            (os.killpg if to_group else os.kill)(process.pid, signum)
        except ProcessLookupError:
            pass
    out, err = process.communicate(timeout=PATIENCE)
    assert process.returncode == 128 + signum, err
    assert "Traceback" not in err
    assert "continue with: arena tournament resume 1" in out
    assert gone(workers), "a worker outlived the stop"
    # Its own workers' folders (a test run side by side may be killing workers of its own).
    assert {name for name in worker_folders() - before if int(name.split("-")[2]) in workers} == set()
    with Store(db, readonly=True) as store:
        info = store.tournament(1)
        assert info["status"] == "interrupted" and info["matches_error"] == 0
    resumed = arena(db, "tournament", "resume", "1")
    assert resumed.returncode == 0, resumed.stderr
    assert leaderboard(db) == uninterrupted


@pytest.mark.slow
def test_ctrl_c_right_at_the_start_is_one_line(tmp_path):
    process = start(tmp_path / "arena.db")
    time.sleep(0.1)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=PATIENCE)
    # 130, or ended by SIGINT itself (-2: what Python does when a KeyboardInterrupt meets it while
    # it exits; a shell shows 130 either way), or 0 if the run was over already.
    assert process.returncode in (130, -signal.SIGINT, 0), err
    assert "Traceback" not in err


@pytest.mark.slow
def test_after_kill_9_of_the_coordinator_its_workers_end_by_themselves(tmp_path):
    db = tmp_path / "arena.db"
    process = start(db)
    wait_for(db, 1, process)
    workers = children_of(process.pid)
    assert workers
    process.kill()
    process.wait(timeout=PATIENCE)
    assert gone(workers), "workers survived their coordinator"
    with Store(db, readonly=True) as store:
        assert store.tournament(1)["status"] == "interrupted"


# ---- several arena processes on one database -----------------------------------------------------

@pytest.mark.slow
def test_two_tournaments_at_once_on_one_new_database_with_the_same_new_bots(tmp_path):
    source = tmp_path / "src"
    bots = [write_bot(source, "one"), write_bot(source, "two", on_request='reply({"index": 1})')]
    db = tmp_path / "arena.db"
    command = ARENA + ["--db", str(db), "tournament", "run", "--game", "toy", "--bots", ",".join(bots),
                       "--workers", "1"]
    processes = [subprocess.Popen(command + ["--seed", str(n)], cwd=REPO, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for n in range(3)]
    outcomes = [p.communicate(timeout=PATIENCE) + (p.returncode,) for p in processes]
    for out, err, code in outcomes:
        assert code == 0, err
        assert "Traceback" not in err
    with Store(db, readonly=True) as store:
        assert len(store.bot_versions("toy")) == 2
        assert all(t["status"] == "finished" for t in store.tournaments())
        for version in store.bot_versions("toy"):
            assert store.bot_path(version).exists()


def test_a_tournament_cannot_be_run_by_two_processes(tmp_path):
    from arena.results.store import StoreError

    bots = [write_bot(tmp_path / "src", "a"), RANDOM_BOT]
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, seed=1))
        sleeper = subprocess.Popen(["sleep", "30"])
        try:
            store.claim_tournament(tournament_id, sleeper.pid)
            with pytest.raises(StoreError, match=f"being run by process {sleeper.pid}"):
                run(store, tournament_id, workers=1, play=quick_play)
        finally:
            sleeper.kill()
            sleeper.wait()
        assert run(store, tournament_id, workers=1, play=quick_play).played == 2
