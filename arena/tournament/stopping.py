"""What SIGINT, SIGTERM and SIGHUP do to a command that runs a tournament.

A command goes through two phases, and `Stop` covers both, so no moment is left uncovered:

* Before anything of a tournament is stored (checking, registering its bots), a signal ends
  the command: the handler raises `Interrupted` wherever the main thread is. There is nothing
  to resume.
* From `hold()` on — called just before the tournament's row is written, or at once when the
  tournament exists already (resume) — a signal only records itself and wakes the
  coordinator's loop through a pipe (`read_fd`). The coordinator then stops cleanly, marks the
  tournament interrupted, and the command names `arena tournament resume N`. A second signal
  lands on the same flag.

`release()` goes back to the first phase between two tournaments of one command.
"""

from __future__ import annotations

import os
import signal
import threading

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
    """A stop signal before any tournament was stored: nothing to resume."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class Stop:
    """The stop signals' handlers: raise `Interrupted`, or (once held) only record and wake."""

    def __init__(self, hold: bool = False) -> None:
        self.signal: int | None = None
        self.holding = hold
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        os.set_blocking(self.write_fd, False)
        self._previous: dict = {}
        self._previous_wakeup = None

    def install(self) -> "Stop":
        if threading.current_thread() is not threading.main_thread():
            return self  # signals reach only the main thread's handlers; nothing to take over
        for signum in STOP_SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        self._previous_wakeup = signal.set_wakeup_fd(self.write_fd, warn_on_full_buffer=False)
        from arena import early_signals

        early = early_signals.take()  # came before these handlers, its KeyboardInterrupt swallowed
        if early is not None:
            self._handle(early, None)
        return self

    def hold(self) -> None:
        """From now on a signal only records itself (a tournament is, or is about to be, stored)."""
        self.holding = True

    def release(self) -> None:
        """Back to ending the command on a signal (no tournament in hand); one that came while
        held and was not acted on ends it now."""
        if self.signal is not None:
            raise Interrupted(self.signal)
        self.holding = False

    def _handle(self, signum, frame) -> None:
        if self.signal is None:
            self.signal = signum
        if not self.holding:
            self.holding = True  # a second signal while the command ends must not interrupt that
            raise Interrupted(signum)

    def drain(self) -> None:
        try:
            while os.read(self.read_fd, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def restore(self, handlers: bool = True) -> None:
        """Give the previous handlers back (with ``handlers=False``, for a process about to
        exit because of a signal, ours stay and only record a further one)."""
        self.holding = True
        if self.read_fd < 0:
            return  # restored already
        if handlers:
            for signum, previous in self._previous.items():
                signal.signal(signum, previous)
        if self._previous_wakeup is not None:
            signal.set_wakeup_fd(self._previous_wakeup)
        for fd in (self.read_fd, self.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.read_fd = self.write_fd = -1


def block() -> None:
    """Hold the stop signals back (delivered at `unblock`): for clean-up that must finish."""
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    except (AttributeError, OSError):
        pass


def unblock() -> None:
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    except (AttributeError, OSError):
        pass
