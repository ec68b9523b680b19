"""False timeouts per 10,000 decisions on the wall clock and on the CPU clock, under load.

Usage: python bench/fairness.py [--matches N] [--decision-ms MS] [--workers W]
                                [--loads 0,1,2] [--clocks wall,cpu]

Three bots play Five Towers (2 players, a round-robin among them, each match in both seat
orders) through the real tournament machinery (workers, sandbox, store). Each bot uses a
fixed share of its per-decision allowance — 80 %, 90 % or 95 % — in CPU time: it spins until
its own CPU time since its previous reply reaches that share (the clock a bot can read), then
answers the first legal action. The bank is 0, so a decision over the allowance times out.
No bot ever uses its whole allowance, so every timeout is a false one: the machine's fault,
not the bot's.

For each clock (``wall``, ``cpu``) and each load (0, 1× and 2× the cores: that many
processes spinning beside the tournament), the tournament is played on ``--workers``
(default: one per core, as `arena tournament run` does) and the timeouts are counted per
bot. Reported per cell: false timeouts per 10,000 decisions (decisions: those made plus those
that timed out; a seat that timed out plays the rest of its match by the fallback policy).

The default run (``--matches 18``: 18 matches of about 90 decisions per clock and load, 50 ms
allowance) takes about 10 minutes on 2 cores; ``--matches`` scales it (the resolution of a
cell is 10,000 / its decisions).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena.results.store import Store  # noqa: E402
from arena.runner import cgroups  # noqa: E402
from arena.runner.sandbox import detect  # noqa: E402
from arena.tournament import TournamentConfig, create, run  # noqa: E402

SHARES = (80, 90, 95)

# Spins until its own CPU time since its previous reply (it was blocked or frozen since, so
# that is the time the request has cost it so far) is SHARE % of the allowance.
BURNER = '''
import json, sys, time
SHARE = {share} / 100
since = time.process_time()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({{"type": "ready", "matches": "many"}}), flush=True)
        since = time.process_time()
    elif message["type"] == "request":
        budget = SHARE * message["time"]["decision_ms"] / 1000
        while time.process_time() - since < budget:
            pass
        print(json.dumps({{"index": 0}}), flush=True)
        since = time.process_time()
    elif message["type"] == "quit":
        break
'''


def write_bots(folder: Path) -> list[str]:
    folder.mkdir(parents=True)
    os.chmod(folder, 0o755)
    paths = []
    for share in SHARES:
        path = folder / f"burn{share}.py"
        path.write_text(BURNER.format(share=share))
        os.chmod(path, 0o644)
        paths.append(str(path))
    return paths


@contextmanager
def load(hogs: int):
    """``hogs`` processes spinning on the CPU for as long as the block runs."""
    started = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(hogs)]
    try:
        yield
    finally:
        for hog in started:
            hog.kill()
            hog.wait()


def play(db: Path, bots: list[str], clock: str, matches: int, decision_ms: int, workers: int, seed: int) -> dict:
    """share -> [decisions attempted, timeouts]."""
    pairs = len(bots) * (len(bots) - 1)  # every pair in both seat orders
    rounds = max(1, round(matches / pairs))
    with Store(db) as store:
        tournament_id = create(store, TournamentConfig(
            game="five-towers", bots=bots, players=2, rounds=rounds, seed=seed, clock=clock,
            limits={"decision_ms": decision_ms, "bank_ms": 0}))
        summary = run(store, tournament_id, workers=workers)
        assert summary.errors == 0 and not summary.interrupted, summary
        rows = store.query(
            "SELECT b.name AS bot, s.status, s.decisions, m.sandbox FROM match_seats s JOIN matches m"
            " ON m.id = s.match_id JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id"
            " WHERE m.tournament_id = ?", [tournament_id])
    counts = {share: [0, 0] for share in SHARES}
    for row in rows:
        share = int(row["bot"].removeprefix("burn"))
        timed_out = row["status"] == "timeout"
        counts[share][0] += (row["decisions"] or 0) + int(timed_out)
        counts[share][1] += int(timed_out)
        if clock == "cpu":
            assert '"clock": "cpu"' in row["sandbox"], "the CPU clock must have run"
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=18, help="matches per clock and load (default 18)")
    parser.add_argument("--decision-ms", type=int, default=50, help="per-decision allowance (default 50)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="default: one per core")
    parser.add_argument("--loads", default="0,1,2", help="spinning processes per core beside the tournament")
    parser.add_argument("--clocks", default="wall,cpu")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    clocks = args.clocks.split(",")
    if "cpu" in clocks and not cgroups.cpu_readable():
        sys.exit("the CPU clock needs cgroups (root with a writable cgroup file system): see arena doctor")
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-fairness-"))
    os.chmod(folder, 0o755)
    bots = write_bots(folder / "bots")
    protections = detect()
    print(f"sandbox {protections.mode}, {protections.resources}; {cores} cores; {args.workers} workers;"
          f" Five Towers 2 players; allowance {args.decision_ms} ms, bank 0; ~{args.matches} matches per row")
    print("'load' is the spinning processes started here; 'before' the machine's 1-minute load average"
          " before the row (other programs count in it)")
    print(f"{'clock':<6} {'load':<12}" + "".join(f" {f'uses {share} %':>18}" for share in SHARES)
          + "   seconds  before")
    began_all = time.monotonic()
    seed = 1
    for clock in clocks:
        for per_core in (int(value) for value in args.loads.split(",")):
            hogs = per_core * cores
            before = os.getloadavg()[0]
            began = time.monotonic()
            with load(hogs):
                counts = play(folder / f"{clock}-{per_core}.db", bots, clock, args.matches, args.decision_ms,
                              args.workers, seed)
            seed += 1
            cells = []
            for share in SHARES:
                decisions, timeouts = counts[share]
                rate = 10_000 * timeouts / decisions if decisions else float("nan")
                cells.append(f"{rate:7.0f} ({timeouts}/{decisions})")
            label = "0" if hogs == 0 else f"{per_core}x cores ({hogs})"
            print(f"{clock:<6} {label:<12}" + "".join(f" {cell:>18}" for cell in cells)
                  + f"   {time.monotonic() - began:7.0f}  {before:6.2f}", flush=True)
    print(f"(false timeouts per 10,000 decisions (timeouts/decisions); every bot uses less than its allowance;"
          f" {time.monotonic() - began_all:.0f} s in all)")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
