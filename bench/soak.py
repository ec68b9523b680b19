"""Soak: a long tournament on 2 workers, watching the coordinator and workers for leaks.

Usage: python bench/soak.py [--matches 10000] [--workers 2] [--game toy|five-towers] [--db PATH]

Plays one round-robin of at least ``--matches`` matches among bundled-style bots (reusable
processes, the real sandbox) and reports, at the start and at the end: the coordinator's and
each worker's resident memory and open file descriptors; then that no scratch folder, worker
folder, cgroup or bot process is left, and the bytes per stored match. The coordinator is a real `arena tournament run` process,
watched from outside every half second.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
from bench.benchkit import children  # noqa: E402
os.environ.setdefault("ARENA_GAMES", "toy=toy_game:Toy")
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "tests"), os.environ.get("PYTHONPATH")]))


def sample(pid: int) -> tuple[int, int]:
    """(resident KiB, open descriptors) of a process."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            rss = next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))
        return rss, len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, StopIteration):
        return 0, 0


def leftovers() -> dict:
    tmp = tempfile.gettempdir()
    folders = [e.name for e in os.scandir(tmp) if e.name.startswith(("arena-worker-", "arena-stage-", "arena-scratch-"))]
    groups = []
    for base in ("/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified"):
        for root, dirs, _ in os.walk(base):
            groups += [d for d in dirs if d.startswith("arena-")]
            if root.count("/") > 7:
                dirs[:] = []
    bots = [e.name for e in os.scandir("/proc") if e.name.isdigit() and _uid(e.path) in range(200_000, 250_000)]
    return {"folders": folders, "cgroups": groups, "bot processes": bots}


def _uid(path: str) -> int:
    try:
        return os.stat(path).st_uid
    except OSError:
        return -1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--game", default="toy")
    parser.add_argument("--db")
    args = parser.parse_args()

    from arena.results.store import Store

    work = Path(tempfile.mkdtemp(prefix="arena-soak-"))
    db = Path(args.db) if args.db else work / "soak.db"
    bots = [str(REPO / "bots" / "random.py"), str(REPO / "bots" / "starter" / "python"),
            str(REPO / "tests" / "bots" / "greedy.py")]
    players = 2
    per_round = math.comb(len(bots), players) * players
    rounds = math.ceil(args.matches / per_round)
    before = leftovers()
    command = [sys.executable, "-m", "arena", "--db", str(db), "tournament", "run", "--game", args.game,
               "--bots", ",".join(bots), "--players", str(players), "--rounds", str(rounds), "--seed", "1",
               "--workers", str(args.workers)]
    began = time.monotonic()
    coordinator = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    samples = {}
    while coordinator.poll() is None:
        workers = children(coordinator.pid)
        if len(workers) >= args.workers:
            taken = {"coordinator": sample(coordinator.pid), "workers": [sample(w) for w in workers]}
            samples.setdefault("start", taken)
            samples["end"] = taken
        time.sleep(0.5)
    seconds = time.monotonic() - began
    output = coordinator.stdout.read().strip().splitlines()
    with Store(db, readonly=True) as store:
        matches = store.one("SELECT COUNT(*) AS n FROM matches WHERE status = 'finished'")["n"]
        failures = store.one("SELECT COUNT(*) AS n FROM match_seats WHERE status != 'ok'")["n"]
        errors = store.one("SELECT COUNT(*) AS n FROM matches WHERE status = 'error'")["n"]
    total = rounds * per_round
    summary_line = output[-1] if output else "(no output)"
    size = db.stat().st_size + sum(p.stat().st_size for p in db.parent.glob(db.name + "-*") if p.is_file())
    after = leftovers()
    print(f"soak: {args.game}, {len(bots)} bots, {total} matches on {args.workers} workers: {matches} played,"
          f" {errors} harness errors, {failures} failed seats in {seconds:.0f} s ({matches / seconds:.1f} matches/s)")
    print(f"  arena said: {summary_line}")
    for moment in ("start", "end"):
        taken = samples.get(moment)
        if taken:
            rss, fds = taken["coordinator"]
            workers = ", ".join(f"{r / 1024:.1f} MiB/{f} fds" for r, f in taken["workers"])
            print(f"  {moment:>5}: coordinator {rss / 1024:.1f} MiB, {fds} open fds; workers {workers}")
    new = {key: sorted(set(after[key]) - set(before[key])) for key in after}
    print(f"  left behind: {new}")
    print(f"  database: {size / 1e6:.1f} MB for {matches} matches = {size / max(matches, 1):.0f} bytes per match")


if __name__ == "__main__":
    main()
