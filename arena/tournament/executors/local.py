"""The local executor: worker processes on this machine, managed by the coordinator itself.

Each worker is a `multiprocess` process with a pipe of its own, so a match goes to the very
worker the coordinator chooses (the one already running its bots). There is no pool, no
queue lock and no helper thread: the coordinator waits on the pipes, the workers' exit
sentinels and its own signal wake-up descriptor at once, so every shutdown is bounded —
``close`` asks each worker to finish and waits a few seconds, ``abort`` kills them — and a
worker that dies is noticed at once, its match handed back as lost, its bots' cgroups and its
folder removed, and a new worker started in its place.

Each worker has two slots: while it plays one match the next already waits in its pipe, so
it never idles while the coordinator stores a result (a short match is played in a few
milliseconds, about what storing and rating one takes). Which worker plays a match changes
nothing in its result.
"""

from __future__ import annotations

import glob
import os
import signal
import time

from arena import scratch
from arena.runner import cgroups
from arena.runner.files import remove_tree
from arena.tournament import worker as worker_module
from arena.tournament.worker import receive, send
from arena.tournament.executors import Outcome, Slot

CLOSE_GRACE_S = 5.0


class _Worker:
    def __init__(self, context, keep: int, play, number: int):
        parent_end, child_end = context.Pipe(duplex=True)
        self.connection = parent_end
        self.slots = [Slot(f"worker {number}"), Slot(f"worker {number} (next)")]
        self.jobs: list[int] = []  # submitted, in the order it plays them
        self.process = context.Process(target=worker_module.main, args=(child_end, os.getpid(), keep, play),
                                       name=f"arena-worker-{number}", daemon=False)
        self.process.start()
        child_end.close()
        self.pid = self.process.pid

    def alive(self) -> bool:
        return self.process.exitcode is None and self.process.is_alive()


def remove_leftovers(pid: int) -> None:
    """Kill what a dead worker left running and remove its folders."""
    cgroups.remove_stale()
    for folder in glob.glob(os.path.join(_tmp(), f"{worker_module.WORKER_PREFIX}{pid}-*")):
        try:
            remove_tree(folder)
        except OSError:
            pass


def sweep_stale() -> None:
    """Remove what harness processes that were killed (``kill -9``) left behind: their bots'
    cgroups and every scratch folder of theirs (`arena.scratch`: workers', staged copies,
    builds, scratch homes) in the temporary folder."""
    cgroups.remove_stale()
    scratch.sweep()


def _tmp() -> str:
    import tempfile

    return tempfile.gettempdir()


class LocalExecutor:
    """``workers`` processes; each keeps up to ``keep`` idle bot processes for reuse."""

    def __init__(self, workers: int, keep: int = 16, play=None):
        import multiprocess

        # Forked (fast), from a coordinator that has no threads of its own; without fork
        # (not Linux) the workers are spawned.
        method = "fork" if "fork" in multiprocess.get_all_start_methods() else "spawn"
        self._context = multiprocess.get_context(method)
        self._keep, self._play = keep, play
        self._numbers = iter(range(1, 1 << 30))
        self.workers = [self._start() for _ in range(workers)]
        self.closed = False

    def _start(self) -> _Worker:
        return _Worker(self._context, self._keep, self._play, next(self._numbers))

    def idle_slots(self) -> list[Slot]:
        return [slot for w in self.workers for slot in w.slots if slot.busy is None]

    def submit(self, slot: Slot, job_id: int, spec: dict) -> None:
        worker = next(w for w in self.workers if slot in w.slots)
        slot.busy = job_id
        worker.jobs.append(job_id)
        try:
            send(worker.connection, (job_id, spec))
        except (OSError, EOFError):
            pass  # it died: `wait` finds out from its sentinel and hands the job back

    def wait(self, timeout: float, wakeup_fd: int | None = None) -> list[Outcome]:
        from multiprocess.connection import wait

        waitables = {}
        for worker in self.workers:
            waitables[worker.connection] = worker
            waitables[worker.process.sentinel] = worker
        extra = [wakeup_fd] if wakeup_fd is not None else []
        ready = wait(list(waitables) + extra, timeout)
        outcomes: list[Outcome] = []
        dead: list[_Worker] = []
        for item in ready:
            worker = waitables.get(item)
            if worker is None:
                continue
            if item is worker.connection:
                try:
                    job_id, result, error, live = receive(worker.connection)
                except (EOFError, OSError):
                    dead.append(worker)
                    continue
                for slot in worker.slots:
                    if slot.busy == job_id:
                        slot.busy = None
                    slot.live = set(live)
                if job_id in worker.jobs:
                    worker.jobs.remove(job_id)
                outcomes.append(Outcome(job_id, result, error))
            elif worker not in dead:
                dead.append(worker)
        for worker in dead:
            if worker not in self.workers:
                continue
            worker.process.join(timeout=1)
            how = _how_it_ended(worker.process.exitcode)
            for position, job_id in enumerate(worker.jobs):
                # The first was being played; the next was still waiting in the pipe.
                outcomes.append(Outcome(job_id, lost=f"its worker process {how}", unplayed=position > 0))
            self.workers.remove(worker)
            remove_leftovers(worker.pid)
            if not self.closed:
                self.workers.append(self._start())
        return outcomes

    def abort(self) -> None:
        """Kill every worker now (their matches are abandoned) and clean up after them."""
        self.closed = True
        for worker in self.workers:
            try:
                os.kill(worker.pid, signal.SIGKILL)
            except OSError:
                pass
        self._reap_all(CLOSE_GRACE_S)

    def close(self) -> None:
        """Ask every worker to finish (it retires its bots), wait a few seconds, then kill."""
        self.closed = True
        for worker in self.workers:
            try:
                send(worker.connection, None)
            except (OSError, EOFError):
                pass
        deadline = time.monotonic() + CLOSE_GRACE_S
        for worker in self.workers:
            worker.process.join(timeout=max(0.0, deadline - time.monotonic()))
        for worker in self.workers:
            if worker.process.exitcode is None:
                try:
                    os.kill(worker.pid, signal.SIGKILL)
                except OSError:
                    pass
        self._reap_all(CLOSE_GRACE_S)

    def _reap_all(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        for worker in self.workers:
            worker.process.join(timeout=max(0.1, deadline - time.monotonic()))
            try:
                worker.connection.close()
            except OSError:
                pass
            remove_leftovers(worker.pid)
        self.workers = []


def _how_it_ended(code: int | None) -> str:
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"
