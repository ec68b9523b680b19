"""Bot processes kept alive between matches (protocol v2), and the staged copies they run from.

One `LiveBots` per worker process. It stages each bot version once (`StageCache`), keeps one
`Sandbox` per set of limits, and holds idle processes that said ``"matches": "many"``, at
most ``keep`` of them, retiring the least recently used first. A process is only ever given
back to a seat of the *same* bot version (content hash) with the same limits and sandbox;
a process that failed, wrote anything it was not asked for, or used half its CPU allowance is
never reused. A kept process is given a match only when it is still running with its stdout
open and empty (`ready_for`), and never on a deal it has played before (the match's seed: a
duplicate set's other seatings, an SPRT pair's other half): a fresh process plays that one.
An idle process is frozen (`BotProcess.freeze`): it takes no CPU from anyone while it waits;
it is thawed for its next match, or to be sent ``quit``.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from arena.runner.bots import BotCommand, require_built, resolve_bot
from arena.runner.process import BotProcess
from arena.runner.sandbox import Protections, ResourceLimits, Sandbox, StageCache, StagedBot
from arena.runner.tokens import new_token

DEFAULT_KEEP = 16
QUIT_GRACE_S = 1.0
MAX_MATCHES_WITHOUT_CGROUP = 200


@dataclass(frozen=True)
class ProcessKey:
    content_hash: str
    limits: ResourceLimits
    mode: str


@dataclass
class Seated:
    """A process for one seat: new (to be started) or reused (already running)."""

    process: BotProcess
    staged: StagedBot
    key: ProcessKey
    reused: bool
    matches_played: int = 0
    deals: set = field(default_factory=set)  # the seeds of the deals this process was given


class LiveBots:
    def __init__(self, protections: Protections, keep: int = DEFAULT_KEEP,
                 work_folder: str | os.PathLike | None = None, owner_pid: int | None = None,
                 repeat_deals: bool = False):
        self.protections = protections
        self.keep = keep
        self.repeat_deals = repeat_deals  # `arena check` replays a match in one process on purpose
        self.stage_cache = StageCache(Path(work_folder) / "stage" if work_folder else None)
        self.work_folder = Path(work_folder) if work_folder else None
        self.owner_pid = owner_pid
        self._sandboxes: dict[ResourceLimits, Sandbox] = {}
        self._idle: OrderedDict[int, Seated] = OrderedDict()  # id -> seated, oldest first
        self._commands: dict[str, BotCommand] = {}

    def sandbox(self, limits: ResourceLimits) -> Sandbox:
        if limits not in self._sandboxes:
            self._sandboxes[limits] = Sandbox(self.protections, limits)
        return self._sandboxes[limits]

    def command(self, path: str) -> BotCommand:
        if path not in self._commands:
            command = resolve_bot(path)
            require_built(command)
            self._commands[path] = command
        return self._commands[path]

    def checkout(self, path: str, limits: ResourceLimits, max_line_bytes: int, max_output_bytes: int,
                 expected_hash: str | None = None, reuse: bool = True, label: str = "bot",
                 deal: int | None = None) -> Seated:
        """A process for ``path`` to play ``deal`` (the match's seed): an idle one of the same
        version that never saw that deal and is ready (still frozen: thaw it before its next
        ``start``), else a new one (not started). Raises `BotError`, `BotFilesError` or
        `BotChanged` for a bad bot."""
        staged = self.stage_cache.stage(self.command(path), expected_hash)
        key = ProcessKey(staged.content_hash, limits, self.protections.mode)
        deal = None if self.repeat_deals else deal
        if reuse:
            for ident, seated in list(self._idle.items()):
                if seated.key != key or not new_deal(seated, deal):
                    continue  # one that saw this deal stays idle for another
                del self._idle[ident]
                process = seated.process
                process.max_line_bytes, process.max_output_bytes = max_line_bytes, max_output_bytes
                if ready_for(seated, deal):
                    process.reset_for_next_match()
                    seated.reused = True
                    seated.deals.update({deal} - {None})
                    return seated
                process.stop()
        launch = self.sandbox(limits).launch(staged, new_token(), self.work_folder, self.owner_pid)
        return Seated(BotProcess(launch, max_line_bytes, max_output_bytes, label), staged, key, reused=False,
                      deals={deal} - {None})

    def checkin(self, seated: Seated) -> None:
        """Keep a process that finished its match well for a later match (or retire it)."""
        seated.matches_played += 1
        process = seated.process
        if (not process.alive or _wrote_anything(process) or self._worn_out(seated) or self.keep <= 0):
            retire(process)
            return
        process.freeze()  # nothing runs off its turn, in a match or between matches
        self._idle[id(seated)] = seated
        while len(self._idle) > self.keep:
            _, oldest = self._idle.popitem(last=False)
            retire(oldest.process)

    def _worn_out(self, seated: Seated) -> bool:
        group = seated.process.launch.group
        if group is not None:
            return group.cpu_seconds() > seated.key.limits.cpu_seconds / 2
        return seated.matches_played >= MAX_MATCHES_WITHOUT_CGROUP

    def idle_count(self) -> int:
        return len(self._idle)

    def idle_processes(self) -> list[BotProcess]:
        return [seated.process for seated in self._idle.values()]

    def live_hashes(self) -> set[str]:
        """Content hashes of the bot versions this worker keeps running (for match placement)."""
        return {seated.key.content_hash for seated in self._idle.values()}

    def close(self) -> None:
        """Send every idle process ``quit``, stop them all, remove the staged copies."""
        idle = list(self._idle.values())
        self._idle.clear()
        deadline = time.monotonic() + QUIT_GRACE_S
        for seated in idle:
            try:
                seated.process.thaw()
                seated.process.send_line(b'{"type":"quit"}\n', deadline)
            except Exception:
                pass
        for seated in idle:
            seated.process.wait_for_exit(deadline)
            seated.process.stop()
        self.stage_cache.close()


def ready_for(seated: Seated, deal: int | None) -> bool:
    """True when the kept process may be charged with a match on ``deal``: it never saw the
    deal, and it still runs with its stdout open and empty (an exit between matches, even one
    not reaped yet, or a closed stdout means a fresh process plays instead)."""
    return new_deal(seated, deal) and seated.process.ready()


def new_deal(seated: Seated, deal: int | None) -> bool:
    """True when the process never played ``deal`` (None: a match of no known deal)."""
    return deal is None or deal not in seated.deals


def _wrote_anything(process: BotProcess) -> bool:
    try:
        return process.has_unrequested_output()
    except Exception:
        return True


def retire(process: BotProcess) -> None:
    """Say quit, give the process a moment to exit by itself, then stop it for good."""
    try:
        process.thaw()
        process.send_line(b'{"type":"quit"}\n', time.monotonic() + QUIT_GRACE_S)
        process.wait_for_exit(time.monotonic() + QUIT_GRACE_S)
    except Exception:
        pass
    process.stop()
