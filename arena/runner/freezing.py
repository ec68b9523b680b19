"""Pausing a bot without cgroups: SIGSTOP and SIGCONT to its process groups.

Where a bot has a cgroup, `arena.runner.cgroups.BotGroup.freeze` pauses all its processes
together and nothing escapes it. Without one, the bot's process groups are stopped: found
once, the first time it is paused (its processes are running by then), from the processes
carrying its token. A process that later moves to a process group of its own (``setsid``,
``setpgid``) escapes this; docs/protocol.md says so.
"""

from __future__ import annotations

import os
import signal

from arena.runner.tokens import pids_with_token


class SignalFreezer:
    def __init__(self, token: str):
        self.token = token
        self.frozen = False
        self._groups: list[int] | None = None
        self.leader: int | None = None  # the pid the sandbox started (its process group's id)

    def groups(self) -> list[int]:
        if self._groups is None:
            found = {self.leader} if self.leader else set()
            for pid in pids_with_token(self.token):
                try:
                    found.add(os.getpgid(pid))
                except OSError:
                    continue
            found.discard(os.getpgrp())  # never the harness's own (mode none shares nothing, but be sure)
            self._groups = sorted(g for g in found if g and g > 1)
        return self._groups

    def freeze(self) -> None:
        if not self.frozen and self.leader is not None:
            self._signal(signal.SIGSTOP)
            self.frozen = True

    def thaw(self) -> None:
        if self.frozen:
            self._signal(signal.SIGCONT)
            self.frozen = False

    def _signal(self, signum: int) -> None:
        for group in self.groups():
            try:
                os.killpg(group, signum)
            except OSError:
                continue
