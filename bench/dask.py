"""Matches per second on a Dask cluster against the local executor, and the executor's overhead.

Usage: python bench/dask.py [--workers 2] [--trivial 600] [--matches 240] [--game agent-avenue] [--repeat 3]

Starts a real cluster on this machine — ``dask scheduler`` and ``dask worker --nworkers N
--nthreads 1``, separate processes as on several machines — and plays the same tournaments
with the local executor (N worker processes) and with the Dask executor (N workers, one
thread each; with its default prefetch of one queued match per thread, and without):

* **trivial** — every match "played" by a function that returns a fixed result at once, so
  what is measured is the harness around a match: the executor, the coordinator, the store's
  commit. The overhead per match is the time each worker spends per match while it plays
  nothing: wall time x workers / matches. Also the CPU per match of the coordinator, of the
  worker processes and of the Dask scheduler.
* **real** — random bots (one copy per seat, each its own version, reusable processes) in
  the game given; the Dask executor's extra time per match per worker is
  (1/rate_dask - 1/rate_local) x workers.

The target: the Dask executor's own overhead under 10 ms per match — judged on the CPU the
harness spends per trivial match in all processes (coordinator, workers, scheduler), which a
shared machine's load does not change much; the worker-time figure is shown beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = str(Path(__file__).resolve().parent)
# This file is called dask.py: its folder must not shadow the real `dask` package.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != BENCH]
sys.path.insert(0, str(REPO))
from bench.benchkit import random_bots  # noqa: E402

import psutil  # noqa: E402  (a dependency of distributed)

from arena.results.store import Store  # noqa: E402
from arena.runner.sandbox import detect  # noqa: E402
from arena.tournament import TournamentConfig, create, run  # noqa: E402
from arena.tournament.executors.dask import DaskExecutor  # noqa: E402
from arena.tournament.executors.local import LocalExecutor  # noqa: E402

TARGET_MS = 10.0


def trivial_play(spec, bots=None):
    """A match that takes no time (defined in __main__: Dask sends it to the workers by value)."""
    from types import SimpleNamespace

    players = len(spec.bots)
    ranks = list(range(1, players + 1))
    result = {"game": spec.game, "options": spec.options, "seed": spec.seed, "players": players, "teams": None,
              "scores": [float(players - i) for i in range(players)], "ranks": ranks,
              "seats": [{"seat": i, "bot": str(spec.bots[i]), "status": "ok", "score": float(players - i),
                         "rank": ranks[i], "time_ms": 0.0, "decisions": 1, "error": None, "stderr": ""}
                        for i in range(players)],
              "log": [{"event": "end", "scores": [float(players - i) for i in range(players)]}],
              "sandbox": {}, "started_at": "", "ended_at": "", "duration_ms": 0.0}
    return SimpleNamespace(to_dict=lambda: result)


class Cluster:
    """``dask scheduler`` and ``dask worker`` as separate processes on this machine."""

    def __init__(self, workers: int, folder: Path):
        dask = Path(sys.executable).parent / "dask"
        address_file = folder / "scheduler.json"
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        self.scheduler = subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                           "--no-dashboard", "--scheduler-file", str(address_file)], **quiet)
        deadline = time.monotonic() + 60
        while '"address"' not in (address_file.read_text() if address_file.exists() else ""):
            if time.monotonic() > deadline:
                raise SystemExit("the Dask scheduler did not start")
            time.sleep(0.05)
        self.address = json.loads(address_file.read_text())["address"]
        self.worker = subprocess.Popen([str(dask), "worker", self.address, "--nworkers", str(workers), "--nthreads",
                                        "1", "--no-dashboard"], **quiet)
        import distributed

        with distributed.Client(self.address, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=60)

    def cpu(self) -> tuple[float, float]:
        """CPU seconds so far of the scheduler and of the worker processes (and their children)."""
        return _tree_cpu(self.scheduler.pid), _tree_cpu(self.worker.pid)

    def close(self) -> None:
        for process in (self.worker, self.scheduler):
            process.terminate()
        for process in (self.worker, self.scheduler):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def _tree_cpu(pid: int) -> float:
    try:
        root = psutil.Process(pid)
        processes = [root] + root.children(recursive=True)
    except psutil.Error:
        return 0.0
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            total += times.user + times.system + times.children_user + times.children_system
        except psutil.Error:
            pass
    return total


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(kind: str, cluster: Cluster, bots: list[str], game: str, rounds: int, workers: int, folder: Path,
            play=None, prefetch: int = 1) -> dict:
    db = folder / f"{kind}-{prefetch}-{'trivial' if play else 'real'}-{time.monotonic_ns()}.db"
    with Store(db) as store:
        tournament_id = create(store, TournamentConfig(game=game, bots=bots, players=2, rounds=rounds, seed=3))
        total = store.pending_count(tournament_id)
        if kind == "local":
            executor = LocalExecutor(workers, play=play)
        else:
            executor = DaskExecutor(cluster.address, play=play, prefetch=prefetch)
            deadline = time.monotonic() + 60
            while len(executor.idle_slots()) < workers * (1 + prefetch) and time.monotonic() < deadline:
                executor.wait(0.2)  # the agents have started: what follows is the run itself
        def worker_cpu() -> float:
            if kind == "local":
                return sum(_tree_cpu(worker.pid) for worker in executor.workers)
            return cluster.cpu()[1]

        scheduler0, workers0, own0 = cluster.cpu()[0], worker_cpu(), _own_cpu()
        began = time.perf_counter()
        try:
            summary = run(store, tournament_id, executor=executor)
        finally:
            seconds = time.perf_counter() - began
            scheduler1, workers1, own1 = cluster.cpu()[0], worker_cpu(), _own_cpu()
            executor.close()
        assert summary.played == total and summary.errors == 0, summary
    return {"rate": total / seconds, "matches": total, "seconds": seconds,
            "slot_ms": seconds * workers / total * 1000, "coordinator_ms": (own1 - own0) / total * 1000,
            "workers_ms": (workers1 - workers0) / total * 1000, "scheduler_ms": (scheduler1 - scheduler0) / total * 1000}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--trivial", type=int, default=600, help="matches with a trivial play function")
    parser.add_argument("--matches", type=int, default=240, help="real matches")
    parser.add_argument("--game", default="agent-avenue", help="a two-player game for the real matches")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement (the best is shown)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-dask-"))
    os.chmod(folder, 0o755)
    os.environ.setdefault("ARENA_BOT_CACHE", str(folder / "bot-cache"))  # the workers start fresh
    protections = detect()
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.1f} at the start; sandbox {protections.mode},"
          f" {protections.resources}; dask scheduler + {args.workers} workers (--nworkers {args.workers}"
          " --nthreads 1) as separate processes on this machine")
    cluster = Cluster(args.workers, folder)
    try:
        trivial_bots = random_bots(folder / "trivial", 12)      # 132 matches per round
        trivial_rounds = max(1, round(args.trivial / 132))
        real_bots = random_bots(folder / "real", 4)             # 12 matches per round
        real_rounds = max(1, round(args.matches / 12))
        best: dict[tuple, dict] = {}
        for _ in range(args.repeat):  # interleaved, best of each: the machine may be shared
            for label, play, bots, rounds in (("trivial", trivial_play, trivial_bots, trivial_rounds),
                                              (f"{args.game}", None, real_bots, real_rounds)):
                for kind, prefetch in (("local", 1), ("dask", 1), ("dask", 0)):
                    figures = measure(kind, cluster, bots, args.game, rounds, args.workers, folder, play, prefetch)
                    name = kind if kind == "local" else f"dask prefetch {prefetch}"
                    if (label, name) not in best or figures["rate"] > best[(label, name)]["rate"]:
                        best[(label, name)] = figures
        rows = [(label, name, figures) for (label, name), figures in best.items()]
        print(f"{'matches':<13} {'executor':<16} {'n':>5} {'matches/s':>10} {'ms/match/worker':>16}"
              f" {'coordinator CPU':>16} {'workers CPU':>12} {'scheduler CPU':>14}")
        for label, name, f in rows:
            print(f"{label:<13} {name:<16} {f['matches']:5d} {f['rate']:10.1f} {f['slot_ms']:16.2f}"
                  f" {f['coordinator_ms']:13.2f} ms {f['workers_ms']:9.2f} ms {f['scheduler_ms']:11.2f} ms")
        by = {(label, name): f for label, name, f in rows}
        trivial_local, trivial_dask = by[("trivial", "local")], by[("trivial", "dask prefetch 1")]
        real_local, real_dask = by[(args.game, "local")], by[(args.game, "dask prefetch 1")]
        overhead = trivial_dask["slot_ms"]
        extra = (1 / real_dask["rate"] - 1 / real_local["rate"]) * args.workers * 1000
        def cpu(f: dict) -> float:
            return f["coordinator_ms"] + f["workers_ms"] + f["scheduler_ms"]

        print(f"Dask executor overhead per match (trivial play): {cpu(trivial_dask):.2f} ms of CPU in all processes"
              f" (local {cpu(trivial_local):.2f} ms) -> target < {TARGET_MS:.0f} ms:"
              f" {'ok' if cpu(trivial_dask) < TARGET_MS else 'MISSED'}; {overhead:.2f} ms of a worker's time"
              f" (local {trivial_local['slot_ms']:.2f} ms: on a shared machine both grow with its load)")
        print(f"real {args.game} matches: Dask {real_dask['rate']:.1f} matches/s, local {real_local['rate']:.1f}"
              f" ({real_dask['rate'] / real_local['rate']:.0%}); extra time per match per worker {extra:+.2f} ms")
        print(f"(best of {args.repeat} interleaved runs; CPU per match, all processes of each kind; the load"
              f" average after: {os.getloadavg()[0]:.1f})")
    finally:
        cluster.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
