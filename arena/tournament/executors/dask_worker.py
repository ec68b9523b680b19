"""What runs inside a Dask worker process: arena's agent there, which plays match specs.

Imported on the workers (they need arena installed, and `distributed`); the coordinator side is
`arena.tournament.executors.dask`. Nothing here writes a store.

**The agent.** Each run (one coordinator) has one `ArenaAgent` per worker process: a Dask
actor, so a match is one direct call from the coordinator to the worker and its result the
answer — no scheduler in between (a Dask task costs the scheduler and the worker several
milliseconds of CPU; a call, about one). On joining, the agent reports its worker's sandbox
(`arena.runner.sandbox.detect` of the mode the coordinator asked for), its arena and the bot
versions its machine's cache holds. It plays matches on a thread pool of its own with the
worker's ``nthreads`` threads.

**Live bots per thread.** Each of those threads keeps its own `LiveBots`, made by its first
match and reused by its later ones — so nothing of a `LiveBots` (its idle processes, staged
copies, sandboxes) is ever touched by two threads at once, and a bot process is used only by
the thread that started it (bubblewrap's ``--die-with-parent`` is tied to that thread, which
lives as long as the agent). What the threads do share is locked or safe: the bot cache (a
lock, plus atomic renames between processes), bot uids (``flock``), cgroup names (pid,
counter and random), the game registry (filled once per game). Bots start with
``subprocess.Popen`` and no Python code after fork, which is safe in a threaded process.

A run's live bots are retired when its coordinator finishes (`ArenaAgent.retire`), when its
coordinator goes away without a word (Dask then releases the actor and the agent's finalizer
retires them, once the matches still playing are over), and when the worker closes
(`ArenaWorkerPlugin.teardown`).
"""

from __future__ import annotations

import asyncio
import os
import pickle
import socket
import tempfile
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from arena import scratch
from arena.tournament.executors.bundles import BotCache, BundleRefused

FOLDER_PREFIX = scratch.WORKER   # the local workers' prefix: `sweep_stale` cleans up after us too

_lock = threading.Lock()
_local = threading.local()
_holders: dict[str, list["_Holder"]] = {}   # run id -> every thread's live bots for it
_cache: BotCache | None = None
_folder: Path | None = None


@dataclass
class _Holder:
    run: str
    bots: object                      # LiveBots
    folder: Path
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = field(default_factory=time.monotonic)
    retire: bool = False
    closed: bool = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self.bots.close()
            except Exception:
                pass
            from arena.runner.files import remove_tree

            try:
                remove_tree(self.folder)
            except OSError:
                pass


def _process_folder() -> Path:
    global _folder
    with _lock:
        if _folder is None or not _folder.exists():
            _folder = scratch.make(FOLDER_PREFIX, tag="dask-", mode=0o755)
        return _folder


def bot_cache() -> BotCache:
    global _cache
    with _lock:
        if _cache is None:
            _cache = BotCache()
        return _cache


def _holder(run: str, mode: str, keep: int) -> _Holder:
    from arena.runner.livebots import LiveBots
    from arena.runner.sandbox import detect

    mine = getattr(_local, "holders", None)
    if mine is None:
        mine = _local.holders = {}
    holder = mine.get(run)
    if holder is None or holder.closed:
        folder = Path(tempfile.mkdtemp(prefix=f"t{threading.get_ident()}-", dir=_process_folder()))
        os.chmod(folder, 0o755)
        holder = _Holder(run, LiveBots(detect(mode), keep=keep, work_folder=folder), folder)
        mine[run] = holder
        with _lock:
            _holders.setdefault(run, []).append(holder)
    return holder


def _forget(holder: _Holder) -> None:
    with _lock:
        others = _holders.get(holder.run)
        if others and holder in others:
            others.remove(holder)
            if not others:
                del _holders[holder.run]


def _register_games(games: dict) -> None:
    from arena.games import REGISTRY

    for name, target in (games or {}).items():
        REGISTRY.setdefault(name, target)


# ---- the tasks ----------------------------------------------------------------------------------

def probe(mode: str) -> dict:
    """What the coordinator needs to know before it sends matches here."""
    import arena
    from arena.runner.sandbox import SandboxUnavailable, detect

    answer = {"host": socket.gethostname(), "pid": os.getpid(), "version": arena.__version__,
              "protections": None, "problem": None, "cached": []}
    try:
        answer["protections"] = detect(mode).as_dict()
    except SandboxUnavailable as error:
        answer["problem"] = str(error)
    except Exception as error:
        answer["problem"] = f"cannot check its sandbox ({type(error).__name__}: {error})"
    try:
        answer["cached"] = bot_cache().hashes()
    except (BundleRefused, OSError) as error:
        answer["problem"] = answer["problem"] or str(error)
    return answer


def play(run: str, job_id: int, spec: dict, bundles: dict, mode: str, keep: int, games: dict, play_function=None) -> dict:
    """Play one match spec here: fetch its bots from the cache (or the bundles sent), play it
    with this thread's live bots, and return the packed result (or a harness error, or the
    hashes this machine lacks and that must be sent)."""
    from arena.tournament.worker import play_spec

    answer = {"job": job_id, "result": None, "error": None, "need": [], "live": [], "got": [],
              "thread": threading.get_ident()}
    _register_games(games)
    cache = bot_cache()
    local = []
    hashes = spec.get("hashes") or []
    for index, path in enumerate(spec["bots"]):
        digest, name = hashes[index], os.path.basename(path)
        try:
            cached = cache.path(digest, name, bundles.get(digest))
        except BundleRefused as refusal:
            answer["error"] = f"{refusal} (on Dask worker {socket.gethostname()})"
            return answer
        if cached is None:
            answer["need"].append(digest)
        else:
            local.append(str(cached))
            if digest in bundles:
                answer["got"].append(digest)
    if answer["need"]:
        return answer
    try:
        holder = _holder(run, mode, keep)
    except Exception as error:  # SandboxUnavailable, no room for its folder: not the match's fault
        answer["error"] = f"Dask worker {socket.gethostname()}: {type(error).__name__}: {error}"
        return answer
    with holder.lock:
        answer["result"], answer["error"] = play_spec({**spec, "bots": local}, holder.bots, play_function)
        answer["live"] = sorted(holder.bots.live_hashes())
        holder.last_used = time.monotonic()
        if holder.retire:
            holder.close()
    if holder.closed:
        _forget(holder)
    return answer


def retire(run: str) -> int:
    """Close every thread's live bots of ``run`` (its coordinator has finished)."""
    with _lock:
        holders = _holders.pop(run, [])
    for holder in holders:
        if holder.lock.acquire(timeout=0.2):
            try:
                holder.close()
            finally:
                holder.lock.release()
        else:
            holder.retire = True  # its thread closes it when its match ends
    return len(holders)


def close_all() -> None:
    """Close every live bot of this process and remove its folder (the worker is closing)."""
    from arena.runner.files import remove_tree

    global _folder
    with _lock:
        runs = list(_holders)
    for run in runs:
        retire(run)
    with _lock:
        folder, _folder = _folder, None
    if folder is not None:
        try:
            remove_tree(folder)
        except OSError:
            pass


class ArenaAgent:
    """A run's agent on one worker process (a Dask actor; see the module docstring)."""

    def __init__(self, run: str, mode: str, keep: int, play_function=None):
        from distributed import get_worker

        worker = get_worker()
        self.run, self.mode, self.keep, self.play_function = run, mode, keep, play_function
        self.nthreads = max(1, int(getattr(worker.state, "nthreads", 1) or 1))
        self._pool = ThreadPoolExecutor(self.nthreads, thread_name_prefix=f"arena-{run}")
        self._info = {**probe(mode), "nthreads": self.nthreads}
        weakref.finalize(self, _finalize, run, self._pool).atexit = False  # the plugin's teardown then

    async def hello(self) -> dict:
        return self._info

    async def play(self, message: bytes) -> bytes:
        """One match: ``message`` is the pickled (job id, spec, bundles, games); the answer comes
        pickled too (a single bytes object each way is far cheaper for Dask to move than the
        nested structures themselves)."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._play, message)

    def _play(self, message: bytes) -> bytes:
        job_id, spec, bundles, games = pickle.loads(message)
        answer = play(self.run, job_id, spec, bundles, self.mode, self.keep, games, self.play_function)
        return pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)

    async def retire(self) -> int:
        closed = await asyncio.get_running_loop().run_in_executor(None, retire, self.run)
        self._pool.shutdown(wait=False)
        return closed


def _finalize(run: str, pool: ThreadPoolExecutor) -> None:
    """The agent was dropped (its coordinator is gone): retire its bots, off the event loop."""
    def end() -> None:
        retire(run)
        pool.shutdown(wait=False)

    threading.Thread(target=end, name=f"arena-retire-{run}", daemon=True).start()


try:
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # pragma: no cover - workers always have distributed
    WorkerPlugin = object


class ArenaWorkerPlugin(WorkerPlugin):
    """Registered on every worker by the coordinator: cleans up at start and at the end."""

    name = "arena"
    idempotent = True

    def setup(self, worker) -> None:
        from arena.tournament.executors.local import sweep_stale

        try:
            sweep_stale()  # what workers killed on this machine left behind
        except OSError:
            pass

    def teardown(self, worker) -> None:
        close_all()
