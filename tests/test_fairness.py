"""A result measures only the bots' play (issue 20), on the CPU clock with frozen bots:

* a bot that uses 90 % of its allowance plays the same tournament alike on 1 worker and on
  4 × cores workers beside two CPU hogs: no timeouts, identical logs and ratings;
* a bot that spins off its turn (threads, child processes, between its replies, while it
  waits for its next match) costs an honest opponent nothing: the honest bot's CPU time per
  decision and its wall time stay within 10 % of what they are against the random bot.

These need cgroups (the CPU clock and the freezer); without them they are skipped.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import textwrap
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.results.store import Store
from arena.runner import cgroups
from arena.runner.livebots import LiveBots
from arena.runner.match import Limits, MatchSpec, play_match, strip_timing
from arena.runner.sandbox import detect
from arena.tournament import TournamentConfig, create, run

REPO = Path(__file__).resolve().parents[1]
RANDOM = str(REPO / "bots" / "random.py")

pytestmark = pytest.mark.skipif(not cgroups.cpu_readable() or cgroups.available().freezer() is None,
                                reason="the CPU clock and the freezer need cgroups (root)")


def write(folder: Path, name: str, source: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    for parent in folder.parents:  # the bot's own user must reach it (pytest's tmp is 0700)
        if str(parent).startswith("/tmp/"):
            parent.chmod(parent.stat().st_mode | 0o711)
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    path.chmod(0o644)
    return str(path)


@contextmanager
def hogs(count: int):
    """``count`` processes that spin on the CPU for as long as they are needed."""
    started = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for hog in started:
            hog.kill()
            hog.wait()


# ---- load independence ---------------------------------------------------------------------------

# Uses 90 % of its per-decision allowance in CPU time, then picks an action from its seed and
# the step only: it plays the same whatever the machine does.
BUSY = '''
import json, sys, time
POLICY = {policy}
seed = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        seed = message["seed"]
        print(json.dumps({{"type": "ready", "matches": "many"}}), flush=True)
    elif message["type"] == "request":
        budget = 0.9 * message["time"]["decision_ms"] / 1000
        began = time.process_time()
        while time.process_time() - began < budget:
            pass
        index = POLICY if POLICY >= 0 else (seed + message["step"]) % len(message["legal"])
        print(json.dumps({{"index": index}}), flush=True)
    elif message["type"] == "quit":
        break
'''


def outcome(db: Path, bots: list[str], workers: int) -> tuple:
    from arena.results.leaderboard import tournament_leaderboard

    with Store(db) as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, rounds=2, seed=20,
                                                       options={"rounds": 2},
                                                       limits={"decision_ms": 120, "bank_ms": 0}))
        summary = run(store, tournament_id, workers=workers)
        assert summary.played == 12 and summary.errors == 0, summary
        matches = [store.match(row["id"]) for row in store.query(
            "SELECT id FROM matches WHERE tournament_id = ? ORDER BY schedule_index", [tournament_id])]
        board = [(e["bot"], e["mu"], e["sigma"]) for e in tournament_leaderboard(store, tournament_id)["entries"]]
    failures = [(m["schedule_index"], s["seat"], s["status"], s["error"]) for m in matches for s in m["seats"]
                if s["status"] != "ok"]
    assert failures == [], f"no seat may time out (workers={workers}): {failures[:3]}"
    assert {m["sandbox"]["clock"] for m in matches} == {"cpu"}
    return [strip_timing(m["log"]) for m in matches], board


def test_a_busy_bot_plays_alike_on_one_worker_and_on_a_loaded_machine(tmp_path):
    folder = tmp_path / "bots"
    bots = [write(folder, "busy_seeded", BUSY.format(policy=-1)), write(folder, "busy_low", BUSY.format(policy=0)),
            write(folder, "busy_high", BUSY.format(policy=2))]
    alone = outcome(tmp_path / "alone.db", bots, workers=1)
    with hogs(2):
        crowded = outcome(tmp_path / "crowded.db", bots, workers=4 * (os.cpu_count() or 1))
    assert crowded[0] == alone[0], "the same match logs, timings aside"
    assert crowded[1] == alone[1], "the same ratings"


# ---- bots that work off their turn ------------------------------------------------------------------

# Burns 50 ms of CPU per decision: what the spinners must not slow down.
HONEST = '''
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "request":
        began = time.process_time()
        while time.process_time() - began < 0.05:
            pass
        print(json.dumps({"index": 2}), flush=True)
    elif message["type"] == "quit":
        break
'''

LOOP = '''
import json, os, select, sys, threading, time

def spin():
    while True:
        pass

def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()
{code}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        on_start()
        reply({"type": "ready", "matches": "many"})
    elif message["type"] == "request":
        reply({"index": 0})
        after_reply()
    elif message["type"] == "quit":
        break
'''

SPINNERS = {
    # Four threads spinning from its start: between its replies and while it waits for a match.
    "threads": '''
def on_start():
    if not any(t.name == "spin" for t in threading.enumerate()):
        for _ in range(4):
            threading.Thread(target=spin, name="spin", daemon=True).start()
def after_reply():
    pass
''',
    # Four threads that work in bursts all the time (a thread pool busy off its turn): kept
    # between matches (it waits for input between bursts) and frozen there.
    "bursts": '''
def burst():
    while True:
        until = time.monotonic() + 0.01
        while time.monotonic() < until:
            pass
        time.sleep(0.01)
def on_start():
    if not any(t.name == "burst" for t in threading.enumerate()):
        for _ in range(4):
            threading.Thread(target=burst, name="burst", daemon=True).start()
def after_reply():
    pass
''',
    # Four child processes spinning forever.
    "children": '''
children = []
def on_start():
    while len(children) < 4:
        pid = os.fork()
        if pid == 0:
            spin()
        children.append(pid)
def after_reply():
    pass
''',
    # Computes between its replies until the next message arrives (pondering).
    "ponder": '''
def on_start():
    pass
def after_reply():
    while not select.select([sys.stdin], [], [], 0)[0]:
        pass
''',
}


def honest_times(result) -> tuple[list[float], list[float]]:
    """The honest bot's (seat 0) CPU and wall ms per decision."""
    assert [s.status for s in result.seats] == ["ok", "ok"], [s.error for s in result.seats]
    replies = [e for e in result.log if e["event"] == "reply" and e["seat"] == 0]
    return [e.get("cpu_ms") for e in replies], [e["ms"] for e in replies]


@contextmanager
def one_core(monkeypatch):
    """Every bot started meanwhile shares one core, and its group gets the largest CPU weight
    there is: a spinner that ran off its turn would take half of the core from the honest bot,
    while the rest of a shared machine's load (other programs) hardly blurs the comparison."""
    original = cgroups.BotGroup.create

    def create(group):
        original(group)
        if "cpu" in group.folders and group.hierarchy.version == 1:
            group._write("cpu", "cpu.shares", 262144)
        elif group.hierarchy.version == 2:
            group._write(cgroups.UNIFIED, "cpu.weight", 10000)

    monkeypatch.setattr(cgroups.BotGroup, "create", create)
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def test_spinning_off_its_turn_costs_an_honest_opponent_nothing(tmp_path, monkeypatch):
    folder = tmp_path / "bots"
    honest = write(folder, "honest", HONEST)
    spinners = {name: write(folder, f"spinner_{name}", LOOP.replace("{code}", code)) for name, code in SPINNERS.items()}
    limits = Limits(start_ms=5000, decision_ms=1000, bank_ms=1000)

    def match(opponent: str, bots: LiveBots | None = None, seed: int = 1):
        return play_match(MatchSpec("toy", [honest, opponent], seed=seed, options={"rounds": 5}, limits=limits),
                          bots=bots)

    samples: dict[str, tuple[list, list]] = {name: ([], []) for name in ["random", *SPINNERS, "idle"]}

    def add(name: str, result) -> None:
        cpu, wall = honest_times(result)
        samples[name][0].extend(cpu)
        samples[name][1].extend(wall)

    with one_core(monkeypatch):
        for rep in range(3):
            for name, spinner in spinners.items():
                add("random", match(RANDOM, seed=rep))
                add(name, match(spinner, seed=rep))
            # A restless bot waiting in the pool for its next match while another match plays.
            # (One that never stops spinning is not kept at all: it never settles after `end`.)
            pool = LiveBots(detect(), keep=4)
            try:
                play_match(MatchSpec("toy", [spinners["bursts"], RANDOM], seed=rep, options={"rounds": 1},
                                     limits=limits), bots=pool)
                assert pool.idle_count() == 2
                add("random", match(RANDOM, seed=rep))
                add("idle", match(RANDOM, bots=pool, seed=rep))
            finally:
                pool.close()
    base_cpu = statistics.median(samples["random"][0])
    base_wall = statistics.median(samples["random"][1])
    report = {name: (round(statistics.median(cpu), 1), round(statistics.median(wall), 1))
              for name, (cpu, wall) in samples.items()}
    for name in [*SPINNERS, "idle"]:
        cpu, wall = report[name]
        assert cpu <= 1.1 * base_cpu, (name, report)
        assert wall <= 1.1 * base_wall, (name, report)


@pytest.fixture
def without_cgroups(monkeypatch):
    monkeypatch.setenv("ARENA_NO_CGROUPS", "1")
    cgroups.available.cache_clear()
    yield
    monkeypatch.delenv("ARENA_NO_CGROUPS")
    cgroups.available.cache_clear()


# Sleeps through its decisions: the spinner's processes can be looked at while it decides.
SLEEPER = HONEST.replace("""        began = time.process_time()
        while time.process_time() - began < 0.05:
            pass""", """        time.sleep(0.3)""")


def test_without_cgroups_spinners_are_stopped_off_their_turn(tmp_path, without_cgroups):
    """Without cgroups a bot off its turn is stopped with SIGSTOP (to its process groups; the
    wall clock runs): while its opponent decides, no process of a spinner is running or
    runnable. (Without cgroups nothing shields a comparison of times from the rest of a
    shared machine's load, so the processes' states are looked at instead.)"""
    from botmaker import processes_with

    folder = tmp_path / "bots"
    sleeper = write(folder, "sleeper", SLEEPER)
    limits = Limits(start_ms=5000, decision_ms=1000, bank_ms=1000)
    for name, code in SPINNERS.items():
        spinner = write(folder, f"spinner_{name}", LOOP.replace("{code}", code))
        samples: list[bool] = []
        done = threading.Event()

        def watch():
            while not done.wait(0.01):
                running = False
                for pid in processes_with(f"spinner_{name}.py"):
                    try:
                        for thread in os.listdir(f"/proc/{pid}/task"):
                            with open(f"/proc/{pid}/task/{thread}/stat") as handle:
                                running |= handle.read().rsplit(")", 1)[1].split()[0] == "R"
                    except OSError:
                        continue
                samples.append(running)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            result = play_match(MatchSpec("toy", [sleeper, spinner], seed=1, options={"rounds": 8}, limits=limits))
        finally:
            done.set()
            watcher.join()
        assert result.sandbox["clock"] == "wall" and result.sandbox["resources"] == "rlimits"
        assert [s.status for s in result.seats] == ["ok", "ok"], [s.error for s in result.seats]
        # 8 decisions of 300 ms: most of the match is the sleeper's turn (the spinner runs at its
        # start-up, thawed, and answers each request at once). Not stopped, it would be running
        # in nearly every look.
        assert len(samples) > 50 and sum(samples) < 0.5 * len(samples), (name, sum(samples), len(samples))
