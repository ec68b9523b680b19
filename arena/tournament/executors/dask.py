"""The Dask executor: matches played on a Dask cluster (``--executor dask --scheduler tcp://HOST:8786``).

The coordinator stays what it is locally — the only writer of the store, committing each result
as it arrives, rating in schedule order — and this executor only plays specs on the cluster.

* **An agent per worker.** When a worker joins, the executor starts arena's agent on it (a Dask
  actor, `arena.tournament.executors.dask_worker.ArenaAgent`), which reports the worker's
  sandbox and arena and then plays the matches sent to it on the worker's ``nthreads`` threads,
  each with its own `LiveBots`. A match is one direct call from the coordinator to the agent,
  its result the reply: a Dask task per match would cost the scheduler and the worker several
  milliseconds of CPU each, a call about one (see ``bench/dask.py``). The coordinator must
  therefore reach the workers' addresses, not only the scheduler's.
* **Slots.** Every worker thread is a slot, and so are ``prefetch`` (1) more per thread: a
  match waits on the worker behind the one it plays, so a thread never idles for the round
  trip to the coordinator between two matches. A slot's ``live`` is the set of bot versions its
  worker keeps running, so placement by live bots works as it does locally.
* **Bots travel by content hash**, as bytes with the first match that needs them on a worker
  (`arena.tournament.executors.bundles`): the coordinator knows which versions each worker's
  machine holds in its cache (the agent says so when it starts, and every answer adds to it),
  sends a version to a worker once, and the worker unpacks it, checks its content hash against
  the spec's, caches it and plays from its own copy; a worker whose cache lost a copy says so
  and is sent it again. Nothing lives in the cluster's memory that a dying worker could take
  with it, and a worker needs no access to the coordinator's files.
* **Workers are checked** when they join: a worker that cannot sandbox bots in the mode the
  coordinator asked for (which travels with every match), or runs another arena, is not used,
  with one note naming it and why; when no worker can be used, the run stops with that reason.
* **Results** are awaited in the client's event loop, each as soon as it comes (the
  ``as_completed`` pattern), and a self-pipe wakes `wait`, which also watches the coordinator's
  signal descriptor.
* **Faults.** Membership is polled every `POLL_S`. A worker that leaves (or stops answering)
  while playing gives its matches back as lost (the coordinator plays them again, once,
  elsewhere); the matches that only waited behind them are placed again without counting as
  an attempt. Losing the scheduler stops the run (`ExecutorError`, one line): the coordinator
  marks the tournament interrupted and ``arena tournament resume`` continues it. ``abort``
  disconnects at once; a match a worker is already playing finishes there and its result is
  dropped (nothing is stored for it), then the agent retires its bots.
"""

from __future__ import annotations

import itertools
import logging
import os
import pickle
import select
import sys
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field

from arena import settings
from arena.tournament.executors import ExecutorError, Outcome, Slot

PREFETCH = 1              # matches queued on a worker thread behind the one it plays
POLL_S = 0.5              # how often membership is checked
CONNECT_TIMEOUT_S = 10.0
CLOSE_TIMEOUT_S = 5.0
NOTE_NO_WORKER_S = 5.0    # say that the run waits for workers after this long without any
MAX_RESENDS = 3


@dataclass
class DaskSlot(Slot):
    address: str = ""
    level: int = 0            # 0: the thread's own match; 1..: queued behind it


@dataclass
class _Worker:
    address: str
    nthreads: int
    state: str = "probing"    # probing | ready | refused
    host: str = ""
    agent_future: object = None    # the Dask future of its agent (an actor)
    agent: object = None           # the agent itself, once it answered
    slots: list = field(default_factory=list)
    live: set = field(default_factory=set)          # shared by all its slots
    live_by_thread: dict = field(default_factory=dict)
    cached: set = field(default_factory=set)        # versions its machine holds (or was sent)
    jobs: dict = field(default_factory=dict)        # job id -> _Job, in submission order

    def label(self) -> str:
        return f"{self.address} ({self.host})" if self.host else self.address


@dataclass
class _Job:
    job_id: int
    spec: dict
    slot: DaskSlot | None = None
    call: object = None            # the agent's answer to come (an ActorFuture)
    seq: int = 0
    resends: int = 0


class DaskExecutor:
    """Plays specs on the Dask cluster whose scheduler is at ``scheduler`` (see the module docstring)."""

    def __init__(self, scheduler, keep: int = 16, play=None, prefetch: int = PREFETCH,
                 connect_timeout: float = CONNECT_TIMEOUT_S):
        try:
            import distributed
        except ImportError:
            raise ExecutorError("the dask executor needs the distributed package: pip install 'arena[dask]'") from None
        from arena.runner.sandbox import requested_mode
        from arena.tournament.executors import dask_worker

        if not scheduler:
            raise ExecutorError("the dask executor needs a scheduler (--scheduler tcp://HOST:8786)")
        self.address = getattr(scheduler, "scheduler_address", scheduler)
        self.mode = requested_mode()
        self.keep, self.play, self.prefetch = keep, play, max(0, prefetch)
        self.run_id = uuid.uuid4().hex[:12]
        self.notes: list[str] = []
        self.closed = False
        self.bytes_sent = 0
        self._tasks = dask_worker
        self._quiet = _QuietLogs()
        self._read_fd = self._write_fd = None
        self._fd_lock = threading.Lock()
        try:
            self._client = distributed.Client(self.address, timeout=connect_timeout, set_as_default=False,
                                              direct_to_workers=True, name=f"arena-coordinator-{os.getpid()}")
        except Exception as error:
            self._quiet.restore()
            raise ExecutorError(f"cannot reach the Dask scheduler at {self.address} ({_one_line(error)})") from None
        try:
            self._client.register_plugin(dask_worker.ArenaWorkerPlugin(), name="arena")
        except Exception as error:
            self._shutdown()
            raise ExecutorError(f"the Dask scheduler at {self.address} refused arena's worker plugin"
                                f" ({_one_line(error)})") from None
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)
        os.set_blocking(self._write_fd, False)
        self._done: deque = deque()        # (tag, source, value, error), filled in the client's loop
        self._workers: dict[str, _Worker] = {}
        self._dropped: set[str] = set()    # workers whose agent was lost (while still listed)
        self._jobs: dict[int, _Job] = {}
        self._orphans: deque = deque()     # jobs to place again (they never started)
        self._early: list[Outcome] = []    # outcomes known at submission
        self._bundles: dict[str, dict] = {}
        self._hashes: dict[str, str] = {}
        self._games: dict[str, dict] = {}
        self._sequence = itertools.count()
        self._next_poll = 0.0
        self._started = time.monotonic()
        self._noted_waiting = False
        try:
            self._refresh_workers([])
        except ExecutorError:
            self._shutdown()
            raise

    # -- the interface ----------------------------------------------------------------------------

    def idle_slots(self) -> list[Slot]:
        idle = [slot for worker in self._workers.values() if worker.state == "ready"
                for slot in worker.slots if slot.busy is None]
        idle.sort(key=lambda slot: slot.level)  # every worker's own threads first, queues after
        return idle

    def submit(self, slot: Slot, job_id: int, spec: dict) -> None:
        job = _Job(job_id, spec)
        self._jobs[job_id] = job
        self._send(job, slot)

    def wait(self, timeout: float, wakeup_fd: int | None = None) -> list[Outcome]:
        deadline = time.monotonic() + timeout
        outcomes, self._early = self._early, []
        while True:
            self._collect(outcomes)
            if outcomes and self._client.status != "running":
                break  # store what came; the next wait says the scheduler is gone
            self._check_client()
            now = time.monotonic()
            if now >= self._next_poll:
                self._refresh_workers(outcomes)
            self._note_waiting(now)
            if outcomes or now >= deadline:
                break
            watched = [self._read_fd] + ([wakeup_fd] if wakeup_fd is not None else [])
            ready, _, _ = select.select(watched, [], [], max(0.0, min(deadline, self._next_poll) - now))
            if self._read_fd in ready:
                _drain(self._read_fd)
            if wakeup_fd is not None and wakeup_fd in ready:
                self._collect(outcomes)
                break
        self._place_orphans()
        return outcomes

    def abort(self) -> None:
        """Disconnect at once. Matches the workers are playing finish there, unstored; then each
        agent, released by Dask, retires its bots."""
        if self.closed:
            return
        self.closed = True
        self._shutdown()

    def close(self) -> None:
        """Retire this run's bots on every worker (bounded in time), disconnect."""
        if self.closed:
            return
        self.closed = True
        self._retire(CLOSE_TIMEOUT_S)
        self._shutdown()

    # -- placing work -------------------------------------------------------------------------------

    def _send(self, job: _Job, slot: DaskSlot) -> None:
        worker = self._workers[slot.address]
        try:
            spec = self._with_hashes(job.spec)
            bundles = {}
            for digest, path in zip(spec["hashes"], spec["bots"]):
                if digest not in worker.cached and digest not in bundles:
                    bundles[digest] = self._bundle(digest, path)
        except Exception as error:  # the coordinator's own copy cannot be read
            self._jobs.pop(job.job_id, None)
            self._early.append(Outcome(job.job_id, error=f"{type(error).__name__}: {error}"))
            return
        worker.cached.update(bundles)
        self.bytes_sent += sum(len(bundle["data"]) for bundle in bundles.values())
        job.seq = next(self._sequence)
        job.slot = slot
        slot.busy = job.job_id
        worker.jobs.pop(job.job_id, None)
        worker.jobs[job.job_id] = job
        try:
            message = pickle.dumps((job.job_id, spec, bundles, self._game(spec["game"])), pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            self._early.append(self._finish(job, error=f"{type(error).__name__}: {error}"))
            return
        try:
            job.call = worker.agent.play(message)
        except Exception:  # its agent is lost already: the match never left, it goes elsewhere
            job.call, job.seq = None, -1
            self._worker_left(worker.address, self._early)
            return
        self._track(job.call, ("job", job.job_id))

    def _place_orphans(self) -> None:
        while self._orphans:
            idle = self.idle_slots()
            if not idle:
                return
            job = self._orphans.popleft()
            if job.job_id in self._jobs:
                self._send(job, idle[0])

    def _with_hashes(self, spec: dict) -> dict:
        hashes = spec.get("hashes")
        if hashes and all(hashes):
            return spec
        from arena.runner.files import content_hash

        filled = []
        for index, path in enumerate(spec["bots"]):
            digest = hashes[index] if hashes and hashes[index] else None
            if digest is None:
                if path not in self._hashes:
                    self._hashes[path] = content_hash(path)
                digest = self._hashes[path]
            filled.append(digest)
        return {**spec, "hashes": filled}

    def _bundle(self, digest: str, path: str) -> dict:
        if digest not in self._bundles:
            from arena.tournament.executors.bundles import pack

            self._bundles[digest] = pack(path)
        return self._bundles[digest]

    def _game(self, name: str) -> dict:
        if name not in self._games:
            from arena.games import REGISTRY

            target = REGISTRY.get(name)
            self._games[name] = {name: target} if isinstance(target, str) else {}
        return self._games[name]

    # -- answers --------------------------------------------------------------------------------------

    def _track(self, awaitable, tag) -> None:
        """Await ``awaitable`` (a Dask future's gather, an agent's answer) in the client's event
        loop; then queue what came and wake `wait`."""
        self._client.loop.add_callback(self._fetch, awaitable, tag)

    async def _fetch(self, awaitable, tag) -> None:
        try:
            item = (tag, awaitable, await awaitable, None)
        except BaseException as error:  # the agent's worker is gone, a cancellation, a closed client
            item = (tag, awaitable, None, error)
        self._done.append(item)
        with self._fd_lock:  # never a descriptor `_shutdown` closed (its number may be reused)
            if self._write_fd is not None:
                try:
                    os.write(self._write_fd, b"\0")
                except OSError:
                    pass

    def _collect(self, outcomes: list) -> None:
        while self._done:
            tag, source, value, error = self._done.popleft()
            kind = tag[0]
            if kind == "agent":
                self._agent_started(tag[1], source, value, error)
            elif kind == "hello":
                self._agent_answered(tag[1], source, value, error)
            else:
                self._job_answered(tag[1], source, value, error, outcomes)

    def _job_answered(self, job_id: int, source, value, error, outcomes: list) -> None:
        job = self._jobs.get(job_id)
        if job is None or job.call is not source:
            return  # an earlier attempt, given up already
        worker = self._workers.get(job.slot.address)
        if error is not None:
            if self._client.status != "running":
                return  # the scheduler went away: `_check_client` says so
            if isinstance(error, OSError) and worker is not None:  # its worker died or cannot be reached
                self._worker_left(worker.address, outcomes, how=f"stopped answering ({_one_line(error)})")
            elif isinstance(error, OSError):
                outcomes.append(self._finish(job, lost=f"its Dask worker stopped answering ({_one_line(error)})"))
            else:  # the agent could not play it (a task that cannot be unpickled there, say)
                outcomes.append(self._finish(job, error=f"{type(error).__name__}: {_one_line(error)}"))
            return
        value = pickle.loads(value)
        if value.get("need"):
            if worker is None:
                return
            worker.cached.difference_update(value["need"])
            job.resends += 1
            if job.resends > MAX_RESENDS:
                outcomes.append(self._finish(job, error=f"Dask worker {worker.label()} keeps losing the bots it is sent"))
            else:
                self._send(job, job.slot)
            return
        if worker is not None:
            worker.cached.update(value.get("got", ()))
            worker.live_by_thread[value.get("thread")] = set(value.get("live", ()))
            worker.live.clear()
            for hashes in worker.live_by_thread.values():
                worker.live.update(hashes)
        outcomes.append(self._finish(job, result=value.get("result"), error=value.get("error")))

    def _finish(self, job: _Job, result=None, error=None, lost=None) -> Outcome:
        self._jobs.pop(job.job_id, None)
        if job.slot is not None:
            worker = self._workers.get(job.slot.address)
            if worker is not None:
                worker.jobs.pop(job.job_id, None)
            if job.slot.busy == job.job_id:
                job.slot.busy = None
        job.call = None
        return Outcome(job.job_id, result=result, error=error, lost=lost)

    # -- membership ----------------------------------------------------------------------------------

    def _check_client(self) -> None:
        if self._client.status != "running":
            raise ExecutorError(f"lost the connection to the Dask scheduler at {self.address}")

    def _refresh_workers(self, outcomes: list) -> None:
        self._next_poll = time.monotonic() + POLL_S
        try:
            current = self._client.nthreads()
        except Exception:
            raise ExecutorError(f"lost the connection to the Dask scheduler at {self.address}") from None
        for address in [a for a in self._workers if a not in current]:
            self._worker_left(address, outcomes)
        self._dropped &= set(current)
        for address, nthreads in current.items():
            if address not in self._workers and address not in self._dropped:
                self._worker_joined(address, nthreads)

    def _worker_joined(self, address: str, nthreads) -> None:
        worker = _Worker(address, max(1, int(nthreads or 1)))
        self._workers[address] = worker
        try:
            worker.agent_future = self._client.submit(
                self._tasks.ArenaAgent, self.run_id, self.mode, self.keep, self.play, actor=True,
                key=f"arena-agent-{self.run_id}-{next(self._sequence)}", workers=[address],
                allow_other_workers=False, pure=False)
        except Exception as error:
            self._check_client()
            raise ExecutorError(f"the Dask scheduler at {self.address} took no task ({_one_line(error)})") from None
        self._track(self._client.gather(worker.agent_future, asynchronous=True), ("agent", address))

    def _agent_started(self, address: str, source, agent, error) -> None:
        worker = self._workers.get(address)
        if worker is None or worker.agent is not None:
            return
        if error is None:
            try:
                with self._client.as_current():  # binds the actor's handle to this client
                    hello = agent.hello
                worker.agent = agent
                self._track(hello(), ("hello", address))
                return
            except Exception as problem:
                error = problem
        if self._client.status != "running":
            return
        if not self._still_listed(address):
            self._workers.pop(address, None)  # it left while its agent started: nothing to say
            return
        self._refuse(worker, f"cannot start arena's agent ({type(error).__name__}: {_one_line(error)})")

    def _still_listed(self, address: str) -> bool:
        try:
            return address in self._client.nthreads()
        except Exception:
            return False

    def _agent_answered(self, address: str, source, info, error) -> None:
        import arena

        worker = self._workers.get(address)
        if worker is None or worker.state != "probing":
            return
        if error is not None:
            if self._client.status != "running":
                return
            if not self._still_listed(address):
                self._workers.pop(address, None)
                return
            hint = "; the coordinator must reach the workers' own addresses" if isinstance(error, OSError) else ""
            self._refuse(worker, f"its agent does not answer ({type(error).__name__}: {_one_line(error)}){hint}")
            return
        worker.host = info.get("host") or ""
        if info.get("problem"):
            return self._refuse(worker, info["problem"])
        if info.get("version") != arena.__version__:
            return self._refuse(worker, f"it runs arena {info.get('version')}, the coordinator arena {arena.__version__}")
        worker.state = "ready"
        worker.nthreads = max(1, int(info.get("nthreads") or worker.nthreads))
        worker.cached = set(info.get("cached") or ())
        worker.slots = [DaskSlot(f"{address} #{level * worker.nthreads + thread}", live=worker.live,
                                 address=address, level=level)
                        for level in range(1 + self.prefetch) for thread in range(worker.nthreads)]

    def _refuse(self, worker: _Worker, problem: str) -> None:
        worker.state = "refused"
        self._note(f"Dask worker {worker.label()} is not used: {problem}")
        if all(w.state == "refused" for w in self._workers.values()):
            raise ExecutorError(f"no Dask worker of {self.address} can play the matches: {worker.label()}: {problem}")

    def _worker_left(self, address: str, outcomes: list, how: str = "went away") -> None:
        """Hand back the matches of a worker that left (or whose agent is lost): the ones it was
        playing as lost, the ones waiting behind them to be placed again. A worker dropped while
        the scheduler still lists it is not used again by this run."""
        worker = self._workers.pop(address, None)
        self._dropped.add(address)
        if worker is None:  # already handed back (a scheduler going away reports a worker twice)
            return
        jobs = sorted((job for job in worker.jobs.values() if job.seq >= 0), key=lambda job: job.seq)
        # An agent plays its matches in the order they came: the oldest ``nthreads`` were playing.
        playing, waiting = jobs[:worker.nthreads], jobs[worker.nthreads:]
        waiting += [job for job in worker.jobs.values() if job.seq < 0]  # never sent
        for job in playing:
            outcomes.append(self._finish(job, lost=f"its Dask worker {worker.label()} {how}"))
        for job in waiting:
            job.call, job.slot = None, None
            self._orphans.append(job)
        if worker.agent_future is not None:
            try:
                self._client.cancel([worker.agent_future])
            except Exception:
                pass

    def _note_waiting(self, now: float) -> None:
        if self._noted_waiting or now - self._started < NOTE_NO_WORKER_S:
            return
        if not any(worker.state == "ready" for worker in self._workers.values()):
            self._noted_waiting = True
            self._note(f"waiting for Dask workers: none of {self.address} can play yet")

    def _note(self, text: str) -> None:
        self.notes.append(text)
        from arena.runner.protocol import printable

        print(f"note: {printable(text)}", file=sys.stderr, flush=True)

    # -- the end --------------------------------------------------------------------------------------

    def _retire(self, seconds: float) -> None:
        """Ask every agent to retire this run's bots; wait for their answers up to ``seconds``."""
        if self._client.status != "running":
            return
        deadline = time.monotonic() + seconds
        calls = []
        for worker in self._workers.values():
            if worker.agent is not None and worker.state == "ready":
                try:
                    calls.append(worker.agent.retire())
                except Exception:
                    pass
        for call in calls:
            try:
                call.result(timeout=max(0.1, deadline - time.monotonic()))
            except Exception:
                pass  # a worker that is gone has nothing left to retire

    def _shutdown(self) -> None:
        try:
            self._client.close(timeout=CLOSE_TIMEOUT_S)
        except Exception:
            pass
        with self._fd_lock:
            for fd in (self._read_fd, self._write_fd):
                if fd is not None:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            self._read_fd = self._write_fd = None
        self._quiet.restore()


class _QuietLogs:
    """Keeps `distributed`'s own log lines (reconnection attempts, tracebacks) off the
    coordinator's stderr while the executor runs; ``ARENA_DEBUG=1`` shows them."""

    def __init__(self) -> None:
        self._saved: dict[str, int] = {}
        if settings.flag("ARENA_DEBUG"):
            return
        names = ["distributed", "tornado"] + [n for n in logging.root.manager.loggerDict
                                              if n.startswith(("distributed.", "tornado."))]
        for name in names:
            logger = logging.getLogger(name)
            self._saved[name] = logger.level
            logger.setLevel(logging.CRITICAL + 1)

    def restore(self) -> None:
        for name, level in self._saved.items():
            logging.getLogger(name).setLevel(level)
        self._saved = {}


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except (BlockingIOError, OSError):
        pass


def _one_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
