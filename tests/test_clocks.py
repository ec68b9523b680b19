"""The clocks (issue 20): the CPU-time clock and its wall-time cap, the wall clock, freezing a
bot that is not deciding (cgroup freezer, or SIGSTOP without cgroups), what each request says
about the clock, what is recorded, the `clock` option, and /proc showing nothing of the host."""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.runner import cgroups
from arena.runner import clock as clocks
from arena.runner.freezing import SignalFreezer
from arena.runner.livebots import LiveBots
from arena.runner.match import Limits, MatchSpec, play_match
from arena.runner.sandbox import detect
from arena.runner.tokens import new_token
from botmaker import write_bot

REPO = Path(__file__).resolve().parents[1]
RANDOM = str(REPO / "bots" / "random.py")
HAS_CGROUPS = cgroups.available() is not None and cgroups.cpu_readable()
needs_cgroups = pytest.mark.skipif(not HAS_CGROUPS, reason="the CPU clock and the freezer need cgroups (root)")
QUICK = Limits(start_ms=3000, decision_ms=100, bank_ms=50)

SPIN = '''
def spin(seconds):
    began = time.process_time()
    while time.process_time() - began < seconds:
        pass
'''


def wait_until(condition, timeout: float = 10.0, step: float = 0.002) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def play(path: str, limits: Limits = QUICK, other: str = RANDOM, game: str = "toy", rounds: int = 3, **kwargs):
    options = {"rounds": rounds} if game == "toy" else {}
    return play_match(MatchSpec(game, [path, other], seed=5, options=options, limits=limits, **kwargs))


# ---- the arithmetic --------------------------------------------------------------------------

def test_the_cpu_clock_charges_cpu_time_and_caps_the_wall_time():
    turn = clocks.Turn("cpu", 1.0, 0.15, cpu0=0, began=100.0, cpus=1.0, what="decision")
    assert turn.wall_deadline == pytest.approx(100.0 + clocks.WALL_FACTOR * 1.15 + clocks.WALL_GRACE_S)
    assert turn.charge(0.9, 5.0) == pytest.approx(0.9)               # slow machine: CPU counts
    assert turn.charge(0.01, 21.0) == pytest.approx(2.0)             # a sleeper: (21 - 1) / 10
    assert turn.over(int(1.1e9), 101.5) is None                      # 1,100 ms of 1,150 ms
    assert turn.over(int(1.155e9), 101.5) is None                    # within the 10 ms margin
    words = turn.over(int(1.21e9), 101.5)
    assert words == ("its limit was 1,150 ms of CPU time (decision limit 1,000 ms + 150 ms left in its time bank);"
                     " it used 1,210 ms, more than 10 ms over (CPU clock)")
    capped = turn.over(int(0.012e9), 100.0 + 12.6)
    assert capped == ("over the wall-time cap of 12,500 ms = 10 × (decision limit 1,000 ms + 150 ms left in its"
                      " time bank) + 1,000 ms: 12,600 ms of wall time while using only 12 ms of CPU time"
                      " (it slept or waited; CPU clock)")


def test_the_wall_clock_is_the_allowance_plus_the_bank():
    turn = clocks.Turn("wall", 0.2, 0.3, cpu0=None, began=0.0, cpus=1.0, what="decision")
    assert turn.wall_deadline == pytest.approx(0.5) and turn.next_check(None, 0.0) == pytest.approx(0.5)
    assert turn.over(None, 0.49) is None
    assert turn.over(None, 0.6) == ("its limit was 500 ms of wall time (decision limit 200 ms + 300 ms left in its"
                                    " time bank); it took 600 ms (wall clock)")


def test_a_start_up_timeout_names_its_limit_and_that_it_has_no_bank():
    turn = clocks.Turn("wall", 5.0, 0.0, cpu0=None, began=0.0, cpus=1.0, what="start-up")
    assert turn.over(None, 5.01) == ("its limit was 5,000 ms of wall time (the start-up limit, which has no bank);"
                                     " it took 5,010 ms (wall clock)")


def test_the_bank_pays_what_a_decision_uses_beyond_its_allowance():
    seat = clocks.SeatClock("cpu", 5000, 100, 50, 1.0)
    event = {}
    seat.finished(seat.decision(0, 0.0), 0.5, event)
    seat.settle(int(0.13e9))  # 130 ms of CPU: 30 ms from the bank
    assert event["cpu_ms"] == 130.0
    assert seat.bank_s == pytest.approx(0.02) and seat.charged_s == pytest.approx(0.13)
    assert seat.for_request() == {"clock": "cpu", "decision_ms": 100, "bank_ms": 20, "wall_cap_ms": 2200}


def test_the_clock_is_cpu_where_cgroups_read_it_and_wall_otherwise():
    assert clocks.choose(None, True) == "cpu" and clocks.choose("cpu", True) == "cpu"
    assert clocks.choose("wall", True) == "wall"
    assert clocks.choose(None, False) == "wall" and clocks.choose("cpu", False) == "wall"
    with pytest.raises(ValueError):
        clocks.choose("sundial", True)


# ---- freezing ---------------------------------------------------------------------------------

@needs_cgroups
def test_a_frozen_group_uses_no_cpu_and_is_thawed_before_it_is_killed():
    group = cgroups.BotGroup(cgroups.available(), cgroups.GroupLimits(256 << 20, 16, 1.0))
    group.create()
    spinner = subprocess.Popen(["/bin/sh", "-c", 'for f; do echo 0 > "$f"; done; exec "$0" -c "while True: pass"',
                                sys.executable, *group.procs_files()])
    try:
        assert wait_until(lambda: (group.cpu_ns() or 0) > 20e6), "the spinner runs"
        group.freeze()
        assert wait_until(group.is_frozen), "frozen"
        before = group.cpu_ns()
        time.sleep(0.2)
        assert group.cpu_ns() == before, "a frozen process uses no CPU"
        group.thaw()
        assert wait_until(lambda: group.cpu_ns() > before + 20e6), "a thawed one runs again"
        group.freeze()
        assert group.kill(), "a frozen group can be killed"
        assert spinner.wait(5) == -signal.SIGKILL
    finally:
        group.kill()
        group.remove()
    assert not any(folder.exists() for folder in group.folders.values()), "nothing is left"


def test_without_cgroups_a_bot_is_stopped_by_signals():
    token = new_token()
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True,
                               env={**os.environ, "ARENA_BOT_TOKEN": token})
    freezer = SignalFreezer(token)
    freezer.leader = spinner.pid

    def state() -> str:
        with open(f"/proc/{spinner.pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    try:
        assert wait_until(lambda: state() == "R"), "it spins"
        freezer.freeze()
        assert wait_until(lambda: state() == "T"), "stopped"
        freezer.thaw()
        assert wait_until(lambda: state() in "RS"), "running again"
    finally:
        spinner.kill()
        spinner.wait()


RESTLESS = """
import threading, time
def burn():
    while True:  # bursts of work, all the time (it waits for input between them, so it is kept)
        until = time.monotonic() + 0.01
        while time.monotonic() < until:
            pass
        time.sleep(0.01)
if not any(thread.name == "burner" for thread in threading.enumerate()):
    threading.Thread(target=burn, name="burner", daemon=True).start()
reply({"type": "ready", "matches": "many"})"""


@needs_cgroups
def test_all_of_a_bots_cpu_time_is_in_its_turns_and_an_idle_process_is_frozen(tmp_path):
    """A bot whose thread spins all the time: frozen between its turns and between matches,
    it gets no CPU time outside its turns (each charged to it) but while it reads `end`."""
    path = write_bot(tmp_path, "restless", on_start=RESTLESS)
    bots = LiveBots(detect(), keep=4)
    try:
        result = play_match(MatchSpec("toy", [path, RANDOM], seed=1, options={"rounds": 3}, limits=QUICK), bots=bots)
        assert [s.status for s in result.seats] == ["ok", "ok"], result.seats[0].error
        turns_ns = sum(e["cpu_ms"] for e in result.log if e["event"] in ("ready", "reply") and e["seat"] == 0) * 1e6
        process = next(p for p in bots.idle_processes() if p.label == "seat 0")
        group = process.launch.group
        assert group.frozen and wait_until(group.is_frozen), "an idle process is frozen"
        total = group.cpu_ns()
        # Its turns are charged all it used in them; the rest it used reading `end`, thawed.
        assert turns_ns - 1e6 <= total, "every turn was charged its CPU time"
        if group.confined is not None:  # only the bot's own processes are frozen, not bubblewrap's
            outside = (group.folders[cgroups.UNIFIED] / "cgroup.procs").read_text().split()
            inside = (group.confined / "cgroup.procs").read_text().split()
            assert len(outside) == 2 and inside
            assert all(Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"bwrap") for pid in outside)
            assert not any(Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"bwrap") for pid in inside)
        time.sleep(0.3)
        assert group.cpu_ns() == total, "it used nothing while it waited for its next match"
        again = play_match(MatchSpec("toy", [path, RANDOM], seed=2, options={"rounds": 3}, limits=QUICK), bots=bots)
        assert [s.status for s in again.seats] == ["ok", "ok"], "the reused process is thawed for its match"
        assert "restless" in again.seats[0].bot
    finally:
        bots.close()
    from hostile_kit import our_cgroups

    assert our_cgroups() == [], "every group is removed"


# ---- timeouts and what is recorded -----------------------------------------------------------

@needs_cgroups
def test_a_bot_over_its_cpu_time_times_out_saying_what_it_used(tmp_path):
    path = write_bot(tmp_path, "hog", on_request=SPIN + '''
spin(1.0)
reply({"index": 0})''')
    result = play(path)
    seat = result.seats[0]
    assert seat.status == "timeout", seat.error
    assert seat.error.startswith("step 0: no reply in time: its limit was 150 ms of CPU time (decision limit"
                                 " 100 ms + 50 ms left in its time bank); it used ")
    assert seat.error.endswith(" ms, more than 10 ms over (CPU clock)")
    used = int(seat.error.split("it used ")[1].split(" ms")[0].replace(",", ""))
    assert 150 <= used < 400, "stopped soon after its time ran out"


@needs_cgroups
def test_a_sleeping_bot_is_stopped_by_the_wall_time_cap(tmp_path):
    path = write_bot(tmp_path, "sleeper", on_request='''
time.sleep(3600)''')
    limits = Limits(start_ms=3000, decision_ms=20, bank_ms=0)
    began = time.monotonic()
    result = play(path, limits)
    took = time.monotonic() - began
    seat = result.seats[0]
    assert seat.status == "timeout"
    assert ("over the wall-time cap of 1,200 ms = 10 × (decision limit 20 ms + 0 ms left in its time bank)"
            " + 1,000 ms: ") in seat.error and seat.error.endswith("(it slept or waited; CPU clock)")
    assert 1.2 <= took < 10, "the cap is 10 × 20 ms + 1 s"


@needs_cgroups
def test_start_up_is_timed_on_the_cpu_clock_too(tmp_path):
    path = write_bot(tmp_path, "slow_start", on_start=SPIN + '''
spin(1.0)
reply({"type": "ready"})''')
    seat = play(path, replace(QUICK, start_ms=300)).seats[0]
    assert seat.status == "timeout"
    assert seat.error.startswith("start-up: no ready answer in time: its limit was 300 ms of CPU time (the"
                                 " start-up limit, which has no bank); it used ")


@needs_cgroups
def test_a_sleeping_bot_is_not_charged_its_sleep_on_the_cpu_clock(tmp_path):
    path = write_bot(tmp_path, "napper", on_request='''
time.sleep(0.3)
reply({"index": 0})''')
    result = play(path)  # 300 ms of sleep against 100 ms + a 50 ms bank
    assert result.seats[0].status == "ok", result.seats[0].error
    assert result.seats[0].wall_ms >= 900 and result.seats[0].cpu_ms < 100


def test_every_decision_records_its_times_and_every_request_its_clock(tmp_path):
    result = play(RANDOM)
    clock = result.sandbox["clock"]
    assert clock == ("cpu" if HAS_CGROUPS else "wall")
    requests = [e["message"] for e in result.log if e["event"] == "request"]
    assert requests and all(r["time"]["clock"] == clock and r["time"]["decision_ms"] == 100 for r in requests)
    assert all(0 <= r["time"]["bank_ms"] <= 50 for r in requests)
    start = next(e["message"] for e in result.log if e["event"] == "start")
    assert start["limits"]["clock"] == clock
    replies = [e for e in result.log if e["event"] == "reply"]
    assert replies and all("ms" in e and "harness_ms" in e for e in replies)
    if HAS_CGROUPS:
        assert all(e["cpu_ms"] >= 0 for e in replies)
        assert all(e.get("cpu_ms", 0) > 0 for e in result.log if e["event"] == "ready"), "start-up CPU too"
        seat = result.seats[0]
        assert seat.cpu_ms == pytest.approx(sum(e["cpu_ms"] for e in replies if e["seat"] == 0), abs=0.01)


def test_the_wall_clock_can_be_chosen_and_is_recorded(tmp_path):
    result = play(RANDOM, replace(QUICK, clock="wall"))
    assert result.sandbox["clock"] == "wall"
    assert {e["message"]["time"]["clock"] for e in result.log if e["event"] == "request"} == {"wall"}


def test_without_cgroups_the_match_runs_on_the_wall_clock_and_says_so(monkeypatch):
    monkeypatch.setenv("ARENA_NO_CGROUPS", "1")
    cgroups.available.cache_clear()
    try:
        result = play(RANDOM, replace(QUICK, clock="cpu"))
    finally:
        monkeypatch.delenv("ARENA_NO_CGROUPS")
        cgroups.available.cache_clear()
    assert result.sandbox["clock"] == "wall" and result.sandbox["resources"] == "rlimits"
    assert all(s.status == "ok" for s in result.seats)
    assert all(s.cpu_ms is None for s in result.seats)


def test_doctor_says_which_clock_runs(monkeypatch):
    from arena.runner import doctor

    lines, _ = doctor.report()
    clock_line = next(line for line in lines if line.startswith("clock "))
    assert ("cpu by default" in clock_line) == HAS_CGROUPS
    monkeypatch.setenv("ARENA_NO_CGROUPS", "1")
    cgroups.available.cache_clear()
    try:
        lines, _ = doctor.report()
    finally:
        monkeypatch.delenv("ARENA_NO_CGROUPS")
        cgroups.available.cache_clear()
    clock_line = next(line for line in lines if line.startswith("clock "))
    assert "wall only: no cgroups" in clock_line
    assert any("SIGSTOP" in line for line in lines)


# ---- the option -------------------------------------------------------------------------------

def _stored_clocks(db: Path) -> tuple:
    from arena.results.store import Store

    with Store(db, create=False) as store:
        tournament = store.tournaments()[-1]
        config = store.tournament(tournament["id"])["config"]
        matches = [store.match(row["id"], with_log=False) for row in
                   store.query("SELECT id FROM matches WHERE tournament_id = ?", [tournament["id"]])]
    return config.get("clock"), {m["sandbox"]["clock"] for m in matches}


def test_the_clock_is_a_flag_of_tournament_run(tmp_path):
    from arena.cli import main

    db = tmp_path / "arena.db"
    first = write_bot(tmp_path / "bots", "first")
    result = CliRunner().invoke(main, ["--db", str(db), "tournament", "run", "--game", "toy", "--bots", f"{RANDOM},{first}",
                                       "--option", "rounds=2", "--workers", "1", "--clock", "wall", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert _stored_clocks(db) == ("wall", {"wall"})


def test_the_clock_is_a_key_of_tournament_files(tmp_path):
    from arena.cli import main
    from arena.tournament import TournamentError, load_file

    first = write_bot(tmp_path / "bots", "first")
    toml = tmp_path / "t.toml"
    toml.write_text(f'game = "toy"\nbots = ["{first}", "{RANDOM}"]\noptions = {{ rounds = 2 }}\nclock = "wall"\n'
                    'workers = 1\nseed = 4\n')
    assert load_file(toml)[0].clock == "wall"
    db = tmp_path / "arena.db"
    result = CliRunner().invoke(main, ["--db", str(db), "tournament", "run", str(toml)])
    assert result.exit_code == 0, result.output
    assert _stored_clocks(db) == ("wall", {"wall"})
    result = CliRunner().invoke(main, ["--db", str(db), "tournament", "run", str(toml), "--clock", "cpu"])
    assert result.exit_code == 0, result.output
    assert _stored_clocks(db) == ("cpu", {"cpu" if HAS_CGROUPS else "wall"})
    for bad, message in (('clock = "sundial"', 'clock must be "cpu" or "wall"'),
                         ('limits = { clock = "wall" }', "the clock is the same for every bot")):
        toml.write_text(f'game = "toy"\nbots = ["{first}", "{RANDOM}"]\n{bad}\n')
        with pytest.raises(TournamentError, match=message):
            load_file(toml)


def test_arena_match_takes_the_clock_flag():
    from arena.cli import main

    result = CliRunner().invoke(main, ["match", "toy", RANDOM, RANDOM, "--seed", "2", "--clock", "wall", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["sandbox"]["clock"] == "wall"


# ---- what a bot sees of the machine --------------------------------------------------------------

def test_proc_stat_and_loadavg_in_the_sandbox_are_not_the_hosts(tmp_path):
    path = write_bot(tmp_path, "watcher", on_start='''
seen = {}
for name in ("stat", "loadavg", "uptime", "meminfo"):
    with open("/proc/" + name) as handle:
        seen[name] = handle.read()
seen["pressure"] = os.listdir("/proc/pressure") if os.path.isdir("/proc/pressure") else None
sys.stderr.write("SEEN " + json.dumps(seen) + "\\n")
reply({"type": "ready"})''')
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        result = play(path)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    line = next(line for line in result.seats[0].stderr.splitlines() if line.startswith("SEEN "))
    seen = json.loads(line[5:])
    assert seen["loadavg"] == "0.00 0.00 0.00 1/1 1\n"
    cpu_lines = [line.split() for line in seen["stat"].splitlines() if line.startswith("cpu")]
    assert cpu_lines and all(set(fields[1:]) == {"0"} for fields in cpu_lines), "no CPU time of anyone"
    assert float(seen["uptime"].split()[1]) == 0.0, "no idle time"
    assert "MemFree:" in seen["meminfo"]
    assert seen["pressure"] in (None, [])
    host = Path("/proc/stat").read_text().splitlines()[0].split()
    assert set(host[1:]) != {"0"}, "(the host's own file is the real one)"


# ---- what is shown ------------------------------------------------------------------------------

def test_show_failures_and_the_replay_give_cpu_wall_and_harness_times(tmp_path, capsys):
    from arena.entry import main as entry
    from arena.results.store import Store
    from arena.web import data
    from arena.web.replay import Replay

    hog = write_bot(tmp_path / "bots", "hog", on_request=SPIN + '''
spin(0.02 if requests < 2 else 1.0)
reply({"index": 0})''')
    db = tmp_path / "arena.db"

    def arena(*args):
        with pytest.raises(SystemExit) as leaving:
            entry([str(a) for a in args])
        captured = capsys.readouterr()
        assert leaving.value.code == 0, captured.err
        return captured.out

    arena("--db", db, "tournament", "run", "--game", "toy", "--bots", f"{hog},{RANDOM}", "--option", "rounds=3",
          "--decision-ms", "100", "--bank-ms", "50", "--workers", "1", "--seed", "2")
    with Store(db, create=False) as store:
        match_id = store.query("SELECT m.id FROM matches m JOIN match_seats s ON s.match_id = m.id"
                               " WHERE s.status = 'timeout' ORDER BY m.id LIMIT 1")[0]["id"]
        replay = Replay(data.match(store, match_id, with_log=True)).summary()
    shown = arena("--db", db, "show", match_id)
    clock = "cpu" if HAS_CGROUPS else "wall"
    assert f"clock {clock}:" in shown and "CPU ms" in shown and "wall ms" in shown
    decision_lines = [line for line in shown.splitlines() if line.startswith("step ") and "(fallback)" not in line
                      and "FAILED" not in line]
    assert decision_lines and all("[wall " in line and "harness " in line for line in decision_lines)
    if HAS_CGROUPS:
        assert all(", CPU " in line for line in decision_lines)
    failures = arena("--db", db, "failures", "--bot", "hog")
    assert "timeout: step 2: no reply in time: its limit was " in failures
    assert f"clock {clock}; the failing decision (step 2): wall " in failures
    assert "1 decision(s) before: wall " in failures
    assert replay["clock"] == clock
    bot_steps = [step for step in replay["steps"] if step["by"] == "bot"]
    assert bot_steps and all(step["ms"] is not None and step["harness_ms"] is not None for step in bot_steps)
    if HAS_CGROUPS:
        assert all(step["cpu_ms"] is not None for step in bot_steps)


@needs_cgroups
def test_a_bot_reads_its_own_cpu_time_as_the_clock_counts_it(tmp_path):
    """With cgroups no per-process CPU limit makes the kernel count a process's CPU time per
    tick: a bot that spins 30 ms by `time.process_time()` from its previous reply is charged
    those 30 ms and little more (reading the request, writing the reply)."""
    path = write_bot(tmp_path, "exact", on_start='''
since = time.process_time()
reply({"type": "ready"})''', on_request='''
while time.process_time() - since < 0.03:
    pass
reply({"index": 0})
since = time.process_time()''')
    result = play(path, replace(QUICK, decision_ms=1000, bank_ms=0), rounds=9)
    assert result.seats[0].status == "ok", result.seats[0].error
    charged = [e["cpu_ms"] for e in result.log if e["event"] == "reply" and e["seat"] == 0]
    # Counted per tick (4 ms here), the overshoot would be 2 ms on average; a busy machine's
    # interrupts, counted to the running process by some kernels, may add to one decision.
    # The bot's 30 ms start at its previous reply, a few microseconds before the clock stops
    # (the write returns, the bot blocks on its next read): those are counted by the bot, not
    # charged, so a charge may fall short of 30 ms by that much.
    assert charged and all(ms >= 29.9 for ms in charged) and statistics.median(charged) < 31, charged


def test_the_python_starter_kit_and_the_mcts_bots_budget_on_the_clock_the_request_names():
    import importlib.util

    def load(path: Path):
        spec = importlib.util.spec_from_file_location(f"bot_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    starter = load(REPO / "bots" / "starter" / "python" / "bot.py")
    cpu = starter.Clock({"clock": "cpu", "decision_ms": 100, "bank_ms": 1000})
    wall = starter.Clock({"clock": "wall", "decision_ms": 100, "bank_ms": 1000})
    assert cpu.cpu and not wall.cpu
    assert 120 < cpu.left_ms() <= 130 and 120 < wall.left_ms() <= 130  # 80 % of 100 + 5 % of 1000
    time.sleep(0.2)  # sleeping uses no CPU time
    assert cpu.left_ms() > 100 and not cpu.out_of_time()
    assert wall.left_ms() == 0 and wall.out_of_time()
    assert starter.Clock(None).cpu is False  # a request without `time`: wall time, 1000 ms
    for game in ("five_towers", "agent_avenue", "fifth_avenue"):
        mcts = load(REPO / "bots" / f"{game}_mcts.py")
        assert mcts.timer_for({"clock": "cpu"}) is time.process_time
        assert mcts.timer_for({"clock": "wall"}) is time.perf_counter and mcts.timer_for(None) is time.perf_counter


@needs_cgroups
def test_groups_left_frozen_by_a_killed_harness_are_killed_and_removed(tmp_path):
    """What a harness killed with -9 leaves (a bot frozen in its confined group) is swept by
    the next run: thawed, killed, every folder removed."""
    script = tmp_path / "harness.py"
    script.write_text(f"""
import sys, time
sys.path.insert(0, {str(REPO)!r})
from arena.runner.livebots import LiveBots
from arena.runner.match import MatchSpec, play_match
from arena.runner.sandbox import detect
bots = LiveBots(detect(), keep=4)
play_match(MatchSpec("five-towers", [{RANDOM!r}, {RANDOM!r}], seed=1), bots=bots)
print("READY", flush=True)
time.sleep(600)
""")
    harness = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert harness.stdout.readline().strip() == "READY"
        prefix = f"{cgroups.PREFIX}{harness.pid}-"
        unified = cgroups.available().bases.get(cgroups.UNIFIED)
        left = [p for p in unified.iterdir() if p.name.startswith(prefix)] if unified else []
        assert unified is None or any((p / cgroups.CONFINED / "cgroup.freeze").read_text().strip() == "1"
                                      for p in left), "its idle bots wait frozen"
    finally:
        harness.kill()
        harness.wait()
    assert wait_until(lambda: cgroups.remove_stale() >= 0 and not any(
        name.startswith(prefix) for base in cgroups.available().bases.values() for name in os.listdir(base)),
        timeout=30), "swept: no group of the dead harness is left"
