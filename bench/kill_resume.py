"""kill -9 of the coordinator at many moments, each followed by resume: the final leaderboard
must equal an uninterrupted run's every time.

Usage: python bench/kill_resume.py [--times 20] [--rounds 30] [--workers 2]

One uninterrupted run first; then, for each of ``--times`` moments spread from just after the
start to near the end, a fresh database: start the same tournament, SIGKILL the coordinator
at that moment, check that its workers end by themselves, `arena tournament resume` it, and
compare the leaderboard (JSON) with the uninterrupted one.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from bench.benchkit import alive, children  # noqa: E402


def arena(db: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", "--db", str(db), *args], cwd=REPO, capture_output=True,
                          text=True, timeout=600)


def tournament_args(rounds: int, workers: int) -> list[str]:
    return ["tournament", "run", "--game", "five-towers", "--players", "2", "--rounds", str(rounds), "--seed", "9",
            "--workers", str(workers), "--bots",
            ",".join(str(REPO / "bots" / b) for b in ("random.py", "five_towers_heuristic.py", "starter/python"))]


def leaderboard(db: Path) -> list:
    out = arena(db, "leaderboard", "--game", "five-towers", "--format", "json")
    return json.loads(out.stdout)["entries"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--times", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=30)  # long enough that the kills spread over the matches, not the start-up
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="arena-kill-"))
    whole = work / "whole.db"
    began = time.monotonic()
    done = arena(whole, *tournament_args(args.rounds, args.workers))
    duration = time.monotonic() - began
    assert done.returncode == 0, done.stderr
    expected = leaderboard(whole)
    total = sum(entry["matches"] for entry in expected) // 2
    print(f"uninterrupted: {total} matches in {duration:.1f} s")
    same = 0
    for number in range(args.times):
        moment = 0.3 + (duration - 0.6) * number / max(1, args.times - 1)
        db = work / f"killed-{number}.db"
        process = subprocess.Popen([sys.executable, "-m", "arena", "--db", str(db),
                                    *tournament_args(args.rounds, args.workers)], cwd=REPO,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(moment)
        workers = children(process.pid)
        process.send_signal(signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 10
        while any(alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        orphans = [w for w in workers if alive(w)]
        out = arena(db, "tournament", "show", "1", "--json") if db.exists() else None
        if out is not None and out.returncode == 0:
            finished = json.loads(out.stdout)["matches_finished"]
            resumed = arena(db, "tournament", "resume", "1")
        else:  # killed before the tournament was stored: it is simply run (again)
            finished = -1
            resumed = arena(db, *tournament_args(args.rounds, args.workers))
        ok = resumed.returncode == 0 and leaderboard(db) == expected
        same += ok
        stored = "not yet created" if finished < 0 else f"{finished:3d} of {total} matches stored"
        print(f"kill at {moment:5.2f} s: {stored}, workers left: {len(orphans)},"
              f" leaderboard after resume {'equal' if ok else 'DIFFERENT'}")
    print(f"{same} of {args.times} resumed runs equal the uninterrupted one")


if __name__ == "__main__":
    main()
