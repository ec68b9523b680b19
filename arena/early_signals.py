"""Stop signals that arrive before a command has handlers of its own.

Python's default SIGINT handler raises KeyboardInterrupt wherever the main thread is; while
Python is still importing, that can be inside a weakref callback of the import machinery,
where the exception is only printed ("Exception ignored in ...") and the signal is lost: the
command then ran to its end. SIGTERM and SIGHUP, by default, kill the process on the spot.

`install` (called first thing by `arena`) records every stop signal and raises
KeyboardInterrupt; `take` hands a recorded signal to whoever acts on it next (the command
group before any command runs, and `arena.tournament.stopping.Stop` when it takes over), so a
swallowed exception cannot lose a signal. KeyboardInterrupt is kept out of Python's
"Exception ignored" report: the signal is acted on instead.
"""

from __future__ import annotations

import signal
import sys
import threading

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_received: list[int] = []


def _record(signum, frame) -> None:
    if not _received:
        _received.append(signum)
    raise KeyboardInterrupt


def _quiet_unraisable(unraisable, default=sys.unraisablehook) -> None:
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        return  # recorded in _received: the command acts on it at its next check
    default(unraisable)


def install() -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in STOP_SIGNALS:
        signal.signal(signum, _record)
    sys.unraisablehook = _quiet_unraisable


def uninstall(previous: dict) -> None:
    """Give back the handlers `install` replaced (for a caller that lives on after the command)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum, handler in previous.items():
        if handler is not None:
            signal.signal(signum, handler)
    sys.unraisablehook = sys.__unraisablehook__
    _received.clear()


def take() -> int | None:
    """The stop signal received and not yet acted on, if any (and forget it)."""
    return _received.pop() if _received else None


def received() -> int | None:
    """The first stop signal received so far (without taking it), if any."""
    return _received[0] if _received else None


def outcome(stopped: BaseException | None = None) -> tuple[str, int]:
    """The one line and the exit code for a command stopped by ``stopped`` (a KeyboardInterrupt,
    or `arena.tournament.stopping.Interrupted` which names its signal): 130 for SIGINT."""
    signum = getattr(stopped, "signum", None) or received() or signal.SIGINT
    line = "interrupted" if signum == signal.SIGINT else f"interrupted by {signal.Signals(signum).name}"
    return line, 128 + signum
