"""A stop signal at every moment of a run — before the tournament is stored, the instant after,
while the sandbox is checked, while the copies are checked, between two SPRT steps, at the
start of a resume — ends the command with 128 + the signal; once the tournament exists it is
marked interrupted and the command names `arena tournament resume N`.

Each moment is reached exactly: `paused_arena.py` runs `arena` with one function wrapped to
wait there; the test sends the signal, waits until the process has taken it (it is no longer
pending), then lets it go on. No timing is guessed.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.results.store import Store
from arena.tournament import TournamentConfig, create
from botmaker import random_copies

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
RANDOM_BOT = str(REPO / "bots" / "random.py")
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def pending(pid: int, signum: int) -> bool:
    """Is ``signum`` still waiting to be taken by ``pid`` (not yet handled)?"""
    try:
        with open(f"/proc/{pid}/status") as handle:
            fields = dict(line.split(":", 1) for line in handle if ":" in line)
    except OSError:
        return False
    mask = int(fields["SigPnd"], 16) | int(fields["ShdPnd"], 16)
    return bool(mask & (1 << (signum - 1)))


def wait_for(predicate, process, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert process.poll() is None, f"arena ended before {what}: {process.communicate()}"
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.01)


def signalled_at(tmp_path, point: str, signum: int, args: list[str], nth: int = 1, when: str = "before"):
    """Run `arena ARGS`, send ``signum`` to its process group when it reaches ``point``;
    returns (exit code, stdout, stderr)."""
    folder = tmp_path / f"pause-{signum}"
    folder.mkdir()
    env = {**os.environ, "PAUSE_AT": point, "PAUSE_DIR": str(folder), "PAUSE_NTH": str(nth), "PAUSE_WHEN": when}
    process = subprocess.Popen([sys.executable, str(TESTS / "paused_arena.py"), *args], cwd=REPO, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for((folder / "paused").exists, process, f"the pause at {point}")
        os.killpg(process.pid, signum)
        # Taken: either the process ended at once, or its handler has the signal.
        deadline = time.monotonic() + 60
        while process.poll() is None and pending(process.pid, signum) and time.monotonic() < deadline:
            time.sleep(0.005)
        (folder / "go").write_text("")
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return process.returncode, out, err


def run_args(db, bots, *more) -> list[str]:
    return ["--db", str(db), "tournament", "run", "--game", "toy", "--bots", ",".join(bots), "--rounds", "2",
            "--seed", "3", "--workers", "2", *more]


def interrupted_line(signum: int, tournament_id: int = 1) -> re.Pattern:
    name = signal.Signals(signum).name
    return re.compile(rf"^tournament {tournament_id} interrupted by {name}: \d+ matches played, \d+ left;"
                      rf" continue with: arena tournament resume {tournament_id}$", re.M)


def assert_interrupted_and_resumable(db, signum, code, out, err, expected_exit: int = 0) -> None:
    assert code == 128 + signum, (out, err)
    assert interrupted_line(signum).search(out), (out, err)
    assert "Traceback" not in err
    with Store(db, readonly=True) as store:
        assert store.tournament(1)["status"] == "interrupted"
    resumed = CliRunner().invoke(main, ["--db", str(db), "tournament", "resume", "1", "--workers", "2"])
    assert resumed.exit_code == expected_exit, resumed.output
    with Store(db, readonly=True) as store:
        assert store.tournament(1)["status"] == "finished" and store.tournament(1)["matches_pending"] == 0


@pytest.fixture
def bots(tmp_path):
    return random_copies(tmp_path / "bots", 2)


@pytest.mark.parametrize("signum", STOPS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_before_the_tournament_is_stored_ends_in_one_line_and_stores_nothing(tmp_path, bots, signum):
    db = tmp_path / "arena.db"
    # The command line's sandbox check: the first thing before anything is written.
    code, out, err = signalled_at(tmp_path, "arena.runner.sandbox.detect", signum, run_args(db, bots))
    assert code == 128 + signum, (out, err)
    name = signal.Signals(signum).name
    assert err.strip().splitlines() == [f"interrupted by {name} before a tournament was stored: nothing to resume"]
    if db.exists():
        with Store(db, readonly=True) as store:
            assert store.tournaments() == []


MOMENTS = {
    # The instant the tournament's row is committed, before `create` even returns.
    "row stored": ("arena.results.store.Store.create_tournament", 1, "after"),
    # The coordinator checks the sandbox (its second check in the command).
    "sandbox check": ("arena.runner.sandbox.detect", 2, "before"),
    # The coordinator checks every entry's stored copy.
    "copies check": ("arena.tournament.coordinator._check_copies", 1, "before"),
    # The coordinator claims the tournament.
    "claim": ("arena.results.store.Store.claim_tournament", 1, "after"),
}


@pytest.mark.parametrize("signum", STOPS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("moment", list(MOMENTS))
def test_a_signal_once_the_tournament_exists_marks_it_interrupted_and_names_the_resume_command(
        tmp_path, bots, moment, signum):
    db = tmp_path / "arena.db"
    point, nth, when = MOMENTS[moment]
    code, out, err = signalled_at(tmp_path, point, signum, run_args(db, bots), nth, when)
    assert_interrupted_and_resumable(db, signum, code, out, err)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=lambda s: signal.Signals(s).name)
def test_a_signal_between_two_sprt_steps_marks_the_test_interrupted_and_resume_gives_the_verdict(
        tmp_path, bots, signum):
    db = tmp_path / "arena.db"
    args = ["--db", str(db), "sprt", "--game", "toy", "--bots", ",".join(bots), "--elo1", "60", "--batch", "4",
            "--seed", "5", "--workers", "2"]
    # The second step is planned while nothing is pending: the first batch is all stored.
    code, out, err = signalled_at(tmp_path, "arena.tournament.plans.next_step", signum, args, 2, "before")
    assert_interrupted_and_resumable(db, signum, code, out, err, expected_exit=3)  # H0: exit code 3


@pytest.mark.parametrize("signum", STOPS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_at_the_start_of_a_resume_names_the_resume_command(tmp_path, bots, signum):
    db = tmp_path / "arena.db"
    with Store(db) as store:
        create(store, TournamentConfig(game="toy", bots=bots, rounds=2, seed=3))
    args = ["--db", str(db), "tournament", "resume", "1"]
    code, out, err = signalled_at(tmp_path, "arena.tournament.coordinator._check_copies", signum, args)
    assert_interrupted_and_resumable(db, signum, code, out, err)
