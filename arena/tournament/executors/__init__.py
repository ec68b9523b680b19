"""Executors play match specs and hand back results; only the coordinator writes the store.

An executor has a number of slots (matches it can play at once). The coordinator asks for the
idle slots, submits one job (a match id and its spec: plain data) to each, and waits for
outcomes. `LocalExecutor` (worker processes on this machine) is the default; a Dask cluster is
another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


class ExecutorError(Exception):
    """The executor cannot go on (its cluster's scheduler went away, say): one line. The run
    stops as if interrupted (every finished match is stored) and can be resumed."""


@dataclass
class Outcome:
    """What became of a job: a packed result, a harness error, or a lost worker."""

    job_id: int
    result: dict | None = None
    error: str | None = None
    lost: str | None = None          # the worker died while playing it (how, in words)
    unplayed: bool = False           # lost before it was started: no attempt was spent


@dataclass
class Slot:
    """A place to play one match; ``live`` holds content hashes of bots it keeps running."""

    name: str
    live: set = field(default_factory=set)
    busy: int | None = None          # the job it plays now


class Executor(Protocol):
    """The interface (see the module docstring)."""

    def idle_slots(self) -> list[Slot]: ...

    def submit(self, slot: Slot, job_id: int, spec: dict) -> None: ...

    def wait(self, timeout: float, wakeup_fd: int | None = None) -> list[Outcome]: ...

    def abort(self) -> None:
        """Stop at once: running jobs are abandoned; nothing is left running."""

    def close(self) -> None:
        """Orderly end: workers retire their bots and exit; bounded in time."""


def make(kind: str, workers: int, keep: int, play=None, scheduler: str | None = None):
    """The executor a run asked for: ``local`` (worker processes here) or ``dask`` (a cluster)."""
    if kind == "dask":
        from arena.tournament.executors.dask import DaskExecutor

        return DaskExecutor(scheduler, keep=keep, play=play)
    from arena.tournament.executors.local import LocalExecutor

    return LocalExecutor(workers, keep=keep, play=play)
