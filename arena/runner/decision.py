"""One answer of a bot, judged: its ``ready`` to ``start``, or its reply to one ``request``.

Owns the checks of an answer, their order and their words, for a match (`arena.runner.match`)
and for the re-run of one of its seats (`arena.runner.rerun`), which must judge a reply
exactly as the match did. A decision, in order:

1. a line the bot wrote before it was asked (``limit``);
2. the request is written, the bot thawed with it, and its reply awaited on the seat's clock
   (``timeout``: not read in time, or no reply in time, saying what it used against what it
   was allowed; ``crash``: it died or closed a stream, quoting its meaningful stderr line;
   ``limit``: over the output or memory limit while deciding; ``protocol``: a line too long);
3. the kernel killed one of its processes for memory, even if it answered (``limit``);
4. the reply's shape (``protocol``; ``limit`` if it was the first line of a flood);
5. a second line for one request (``limit``);
6. the action's legality (``illegal``): a listed action is applied as listed, any other is
   tried on a copy of the state (`apply_action`), or judged by the caller's own refusal.

A failure is a `Refused` with the status the match records and its words; the caller adds
where it happened ("step 4: ...", "start-up: ...") and what it does with the seat. The caller
also owns the seat's stderr (to which event it belongs) and the log. Knows nothing of how the
match goes on.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Callable

from arena.games import IllegalAction
from arena.runner import clock as clocks
from arena.runner import protocol
from arena.runner.process import BotFailure, DeadlinePassed
from arena.runner.protocol import ReplyError, quote_line

FLOOD_WINDOW_S = 0.01
START_EXIT_WINDOW_S = 0.3  # a bad answer to start: did the bot die right after it?
UNREQUESTED = "wrote more than one line for one request (stdout is for protocol lines only; log to stderr)"
ANSWER_CHARS = 4096  # of an answer's line kept in its event


class Refused(Exception):
    """The answer failed a check: ``status`` as the match records it, ``message`` its words
    (without where it happened), ``times`` the ``ms`` and ``cpu_ms`` of a decision that failed
    while it was awaited (None when it failed before or after)."""

    def __init__(self, status: str, message: str, times: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.times = status, message, times


@dataclass
class Reply:
    """A reply read in time: its line, and when it was asked for and read (monotonic seconds)."""

    line: bytes
    asked: float
    replied: float


def ask(seat, request: bytes, cpu: int | None, answer: dict) -> Reply:
    """Write the encoded ``request`` to ``seat``'s bot (an `arena.runner.match.Seat`, its clock
    settled at ``cpu``, read while the bot was frozen) and wait for its reply: checks 1 and 2.
    ``answer`` (the reply's event) gets the reply's ``line`` and ``ms`` and, once the clock
    settles, its ``cpu_ms``. Raises `Refused`."""
    process = seat.process
    turn = None
    try:
        if process.has_unrequested_output():
            raise BotFailure("limit", UNREQUESTED)
        asked = time.monotonic()
        turn = seat.clock.decision(cpu, asked)
        try:
            process.send_line(request, turn.wall_deadline, thaw=True)
        except DeadlinePassed:
            raise BotFailure("timeout", f"did not read its input in time: "
                                        f"{turn.timeout_words(process.cpu_ns(), time.monotonic())}") from None
        line = await_line(process, turn, "no reply in time")
    except BotFailure as failure:
        times = None
        if turn is not None:  # a decision that failed used its time too
            cpu, wall = process.cpu_ns(), time.monotonic() - turn.began
            seat.clock.timed_out(turn, cpu, wall)
            times = {"ms": round(wall * 1000, 3)}
            if turn.used_cpu_s(cpu) is not None:
                times["cpu_ms"] = round(turn.used_cpu_s(cpu) * 1000, 3)
        raise Refused(failure.status, failure.message, times) from None
    replied = time.monotonic()
    seat.decisions += 1
    answer["line"] = line[:ANSWER_CHARS].decode("utf-8", "replace")
    answer["ms"] = round((replied - asked) * 1000, 3)
    seat.clock.finished(turn, replied - asked, answer)
    return Reply(line, asked, replied)


def judge(seat, line: bytes, legal: list | None, refuse: Callable[[object], str | None]):
    """Checks 3 to 6 of a reply ``line`` read by `ask`; ``refuse(action)`` applies a well-formed
    action and returns why it is refused, or None. Returns (action, debug); raises `Refused`."""
    process = seat.process
    if process.launch.out_of_memory():
        # One of its processes was killed by the kernel for going over the bot's memory limit
        # (all its processes together): the bot went over the limit, even if it answers.
        raise Refused("limit", f"its processes went over the memory limit ({seat.limits.memory_mb} MiB);"
                               " the kernel killed one")
    try:
        action, debug = protocol.parse_reply(line, legal)
    except ReplyError as error:
        # A flood of output is an output-limit failure even when its first line is garbage:
        # a bot that wrote one bad line writes nothing more, a flooding bot does within 10 ms
        # (it fails either way).
        if unrequested_output(process, within=FLOOD_WINDOW_S):
            raise Refused("limit", UNREQUESTED) from None
        raise Refused("protocol", f"{error}: {quote_line(line)}") from None
    if unrequested_output(process):
        raise Refused("limit", UNREQUESTED)
    refusal = refuse(action)
    if refusal is not None:
        raise Refused("illegal", refusal)
    return action, debug


def await_ready(seat, turn: clocks.Turn, answer: dict) -> dict:
    """Wait for the answer to ``start`` (the start-up ``turn``) and judge it. ``answer`` (the
    ready event) gets its ``line`` and ``ms`` once one is read, and later its ``cpu_ms``.
    Returns the parsed ``ready``; raises `Refused` (``crash`` when the bot died right after a
    bad answer: a runtime's start-up error printed to stdout, quoted)."""
    process = seat.process
    try:
        line = await_line(process, turn, "no ready answer in time")
    except BotFailure as failure:
        raise Refused(failure.status, failure.message) from None
    answered = time.monotonic()
    answer["line"] = line[:ANSWER_CHARS].decode("utf-8", "replace")
    answer["ms"] = round((answered - turn.began) * 1000, 3)
    try:
        ready = protocol.parse_ready(line)
    except ReplyError as error:
        if process.wait_for_exit(time.monotonic() + START_EXIT_WINDOW_S) and not seat.seated.reused:
            failure = process._crash("exited before answering start")
            lines = [quote_line(line)] + [quote_line(extra) for extra in process.lines[:3]]
            raise Refused(failure.status, f"{failure.message}; it wrote to stdout: {', '.join(lines)}") from None
        raise Refused("protocol", f"{error}: {quote_line(line)}") from None
    seat.clock.finished(turn, answered - turn.began, answer)
    return ready


def await_line(process, turn: clocks.Turn, late: str) -> bytes:
    """The bot's next line, or `BotFailure` — a ``timeout`` saying what it used against what
    it was allowed (``late`` begins the message). On the CPU clock the wait wakes when the
    bot could first have used up its time, looks at its CPU time, and waits on."""
    wake = turn.first_check
    while True:
        try:
            return process.receive(wake)
        except DeadlinePassed:
            cpu = process.cpu_ns()
            now = time.monotonic()
            why = turn.over(cpu, now)
            if why is not None:
                raise BotFailure("timeout", f"{late}: {why}") from None
            wake = turn.next_check(cpu, now)


def apply_action(state, action, legal: list | None):
    """Apply a bot's action. A listed action is applied in its listed form; anything else is
    tried on a copy of the state, so a game that chokes on it cannot be left half-changed.
    Returns (state, None) or (state, reason the action was refused)."""
    chosen = protocol.listed(action, legal)
    if chosen is not None:
        state.apply(chosen)  # a failure here is the engine's own: the match cannot go on
        return state, None
    candidate = copy.deepcopy(state)
    try:
        candidate.apply(action)
    except IllegalAction as error:
        return state, error.reason
    except Exception as error:  # the engine could not even read it: the bot's fault
        return state, f"the game could not read this action ({type(error).__name__}): {protocol.quote(action)}"
    return candidate, None


def unrequested_output(process, within: float = 0.0) -> bool:
    """True when the bot wrote a line it was not asked for (waiting up to ``within`` seconds)."""
    try:
        return process.has_unrequested_output(within)
    except BotFailure:
        return True  # over the output limit or a line too long while flooding
