"""Re-run one seat of a recorded match (`arena rerun`): its bot — the recorded one or a local
file being fixed — is sent the exact messages that seat was sent, under the recorded limits
and sandbox mode, and each reply is judged as the match judged it and set beside the
recorded one.

The input is a `Recording`: what the match log holds for that one seat (its ``start``, its
requests, the ``end`` it was sent), the recorded answers, and the match's actions (to replay
the game engine for judging); `arena.results.rerun_input` reads one from the store or from an
`arena match --log` file. Nothing from another seat's view is ever sent. The messages are
encoded by the protocol's own encoder, so the bytes are the ones the match wrote.

The recorded messages are sent whatever the bot answers: from its first different action on,
the requests follow the recorded match, not its own play (every request carries the whole
observation, so a bot needs none of its own history). For the same reason a re-run may start
at any step of the seat (``from_step``): ``start``, then the requests from that step on. A
failure ends the re-run as it ended the seat's match (the process is stopped); otherwise the
bot is sent ``end`` and ``quit`` as in the match.

A decision is judged with the match's checks in the match's order, with its words
(`arena.runner.match`): the clock (the recorded one, ``cpu`` or ``wall``, where this machine
can run it; the bank starts as the first re-run request says it was), a second line for one
request, the memory limit, the reply's shape, and the action's legality (a listed action; any
other is tried on the game engine taken through the recorded actions). As in the match, the
bot runs only while it decides: it is frozen after a reply when another seat moved next.

What the bot writes to stderr is kept whole (as the match keeps it) and by step: what was read
from the request of a step until the next message was sent belongs to that step. Knows nothing
of the store.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import orjson

from arena.games import get_game
from arena.runner import cgroups, protocol
from arena.runner import clock as clocks
from arena.runner.livebots import LiveBots
from arena.runner.match import (FLOOD_WINDOW_S, QUIT_GRACE_S, UNREQUESTED, Limits, Seat, apply_action, await_line,
                                bad_ready, fail_at_start, unrequested_output)
from arena.runner.process import BotFailure, DeadlinePassed, StderrCapture, exit_text
from arena.runner.protocol import ReplyError, quote_line
from arena.runner.sandbox import Protections, detect

STEP_STDERR_BYTES = 16 << 10  # of one step's stderr kept for the report (the whole stream is kept as in a match)
START, END = "start", "end"   # the stderr buckets before the first request and after the last reply


class RerunError(ValueError):
    """A re-run that cannot be made as asked (a step the seat never decided); one line."""


@dataclass
class RecordedStep:
    """One request the seat was sent, and what came of it in the match."""

    step: int
    request: dict                 # the request message, as sent
    reply: str | None = None      # the line it answered (the match keeps its first 4096 characters)
    action: object = None         # the action applied, in its listed form, when it decided
    status: str = "ok"            # ok, or the failure at this step
    error: str | None = None


@dataclass
class Recording:
    """One seat of a recorded match, as `rerun` needs it (see the module docstring)."""

    label: str                    # "match 12", or the log file's name
    game: str
    players: int
    seat: int
    engine_seed: int | None       # the game engine's seed (None: legality is judged by the listed actions only)
    options: dict
    start: dict                   # the start message sent
    ready: str | None             # the recorded answer to it
    start_status: str             # ok, or the seat's failure at start-up
    start_error: str | None
    steps: list[RecordedStep]
    end: dict | None              # the end message (None when the seat was never sent one)
    actions: list                 # (step, action) of every seat, in the order they were applied
    limits: Limits                # the seat's limits in the match
    clock: str                    # the clock the match ran on
    sandbox_mode: str | None      # bubblewrap | none (None: not recorded)
    bot: str                      # the bot that played: its stored copy, or the path given to `arena match`
    bot_label: str                # its name for people ("greedy v2", or the path)
    bot_hash: str | None          # the content hash its stored copy must have
    status: str                   # the seat's recorded outcome over the match
    error: str | None
    stderr: str                   # the seat's recorded stderr, whole
    notes: list = field(default_factory=list)


@dataclass
class StepOutcome:
    """One message of the re-run beside the recorded one: start-up (``step`` None) or a decision."""

    step: int | None
    recorded_reply: str | None
    recorded_action: object
    recorded_status: str
    recorded_error: str | None
    reply: str | None = None
    action: object = None
    status: str = "ok"
    error: str | None = None
    same: bool = True
    stderr: str = ""
    ms: float | None = None       # wall time of the answer
    cpu_ms: float | None = None   # CPU time of all the bot's processes (with cgroups)
    debug: str | None = None


@dataclass
class RerunReport:
    recording: str                # e.g. "match 12"
    game: str
    seat: int
    bot: str                      # what ran
    recorded_bot: str
    sandbox: str                  # the mode it ran in
    recorded_sandbox: str | None
    clock: str
    recorded_clock: str
    limits: dict
    start: StepOutcome
    steps: list[StepOutcome]
    not_reached: list[int]        # recorded steps after the re-run's failure, never sent
    end_stderr: str               # what it wrote after its last reply (end, quit)
    exit: str | None              # how the process ended after quit
    stderr: str                   # its whole stderr, kept as a match keeps it
    recorded_status: str
    recorded_error: str | None
    status: str                   # the re-run's outcome: ok or its failure
    error: str | None
    notes: list[str]

    @property
    def reproduced(self) -> bool:
        return self.first_difference is None

    @property
    def first_difference(self) -> int | str | None:
        """The first step whose outcome differs ("start" for start-up), or None."""
        if not self.start.same:
            return START
        for outcome in self.steps:
            if not outcome.same:
                return outcome.step
        return self.not_reached[0] if self.not_reached else None

    def to_dict(self) -> dict:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["start"] = vars(self.start).copy()
        data["steps"] = [vars(outcome).copy() for outcome in self.steps]
        data["reproduced"] = self.reproduced
        data["first_difference"] = self.first_difference
        data["differences"] = sum(not o.same for o in [self.start, *self.steps])
        return data


def select_steps(recording: Recording, from_step: int | None) -> list[RecordedStep]:
    """The recorded steps to re-run: all of them, or those from ``from_step`` on, which must be
    one of the seat's own steps (`RerunError` says which there are)."""
    steps = recording.steps
    if from_step is None:
        return steps
    if not steps:
        raise RerunError(f"seat {recording.seat} of {recording.label} decided nothing (it {_failed_at_start(recording)}):"
                         " there is no step to start from")
    mine = [s.step for s in steps]
    if from_step not in mine:
        where = ("after its last decision" if from_step > mine[-1] else
                 "before its first decision" if from_step < mine[0] else "not one of its decisions")
        raise RerunError(f"step {from_step} is {where}: seat {recording.seat} of {recording.label} decided at"
                         f" steps {_ranges(mine)}")
    return [s for s in steps if s.step >= from_step]


def _failed_at_start(recording: Recording) -> str:
    return f"failed at start-up: {recording.start_error}" if recording.start_status != "ok" else "was never asked"


def _ranges(steps: list[int], shown: int = 12) -> str:
    text = ", ".join(map(str, steps[:shown]))
    return text + (f", ... {steps[-1]} ({len(steps)} in all)" if len(steps) > shown else "")


class StepStderr(StderrCapture):
    """A bot's stderr kept whole (as in a match) and filed by the step being played when it was read."""

    def __init__(self) -> None:
        super().__init__()
        self.current: object = START
        self.by_step: dict = {}   # step (or START, END) -> its first STEP_STDERR_BYTES
        self.beyond: dict = {}    # step -> bytes it wrote beyond those

    def add(self, data: bytes) -> None:
        super().add(data)
        kept = self.by_step.setdefault(self.current, bytearray())
        room = max(0, STEP_STDERR_BYTES - len(kept))
        kept += data[:room]
        if len(data) > room:
            self.beyond[self.current] = self.beyond.get(self.current, 0) + len(data) - room

    def begin(self, key: object) -> None:
        self.current = key

    def of(self, key: object) -> str:
        text = bytes(self.by_step.get(key, b"")).decode("utf-8", "replace")
        beyond = self.beyond.get(key)
        return text + (f"\n[... {beyond} more bytes of stderr in this step ...]\n" if beyond else "")


class RecordedGame:
    """The game engine taken through the recorded actions, to judge an action a request did
    not list as the match did. When the engine here does not give the recorded request (other
    rules than the match's), only listed actions are judged, and a note says so."""

    def __init__(self, recording: Recording):
        self.seat = recording.seat
        self.pending = list(recording.actions)
        self.problem: str | None = None
        self.state = None
        if recording.engine_seed is None:
            self.problem = "the engine's seed is not recorded"
            return
        try:
            game = get_game(recording.game)
            self.state = game.create_state(recording.players, int(recording.engine_seed), recording.options)
        except Exception as error:  # an old log's options the game no longer takes
            self.problem = f"the game cannot set the match up again ({type(error).__name__}: {error})"

    def at(self, step: RecordedStep):
        """The state the request of ``step`` was made from (None when it cannot be had)."""
        if self.state is None:
            return None
        try:
            while self.pending and self.pending[0][0] < step.step:
                self.state.apply(self.pending.pop(0)[1])
            seen = orjson.dumps([self.state.observation(self.seat), self.state.legal_actions()])
        except Exception as error:
            self._lose(f"the recorded actions do not replay here ({type(error).__name__}: {error})")
            return None
        if seen != orjson.dumps([step.request.get("observation"), step.request.get("legal")]):
            self._lose(f"the game engine here does not give the recorded request of step {step.step}")
            return None
        return self.state

    def _lose(self, problem: str) -> None:
        self.state, self.problem = None, problem

    def refusal(self, step: RecordedStep, action, legal: list | None) -> str | None:
        """Why the match would refuse ``action`` at ``step``, or None."""
        if protocol.listed(action, legal) is not None:
            return None
        state = self.at(step)
        if state is None:
            if legal is not None:
                return f"not one of the listed legal actions: {protocol.quote(action)}"
            return None  # cannot be judged here; the report's notes say so
        _, refusal = apply_action(state, action, legal)  # an unlisted action is tried on a copy
        return refusal


def rerun(recording: Recording, bot_path: str | None = None, from_step: int | None = None,
          protections: Protections | None = None) -> RerunReport:
    """Re-run the seat (see the module docstring). ``bot_path`` replaces the recorded bot;
    ``protections`` default to the recorded sandbox mode on this machine. Raises `RerunError`
    for a ``from_step`` the seat never decided, and `BotError`, `BotFilesError`, `BotChanged`
    or `SandboxUnavailable` for a bot or a sandbox that cannot run."""
    steps = select_steps(recording, from_step)
    protections = protections or detect(recording.sandbox_mode)
    path = bot_path or recording.bot
    limits = recording.limits
    first_time = steps[0].request.get("time") if steps else None
    bank_ms = first_time.get("bank_ms", limits.bank_ms) if isinstance(first_time, dict) else limits.bank_ms
    clock = clocks.choose(recording.clock, protections.resources != "rlimits" and cgroups.cpu_readable())
    seat = Seat(recording.seat, str(path), replace(limits, bank_ms=bank_ms), clock)
    notes = list(recording.notes)
    if clock != recording.clock:
        notes.append(f"the match ran on the {recording.clock} clock; this machine can only run the {clock} clock")
    if recording.sandbox_mode and protections.mode != recording.sandbox_mode:
        notes.append(f"the match ran in sandbox mode {recording.sandbox_mode}; this re-run in {protections.mode}")
    if from_step is not None:
        notes.append(f"started at step {from_step}: start, then the recorded requests from there"
                     f" (bank {bank_ms:,} ms, as that request said)")
    bots = LiveBots(protections, keep=0)
    game = RecordedGame(recording)
    capture = StepStderr()
    failures: list = []
    outcomes: list[StepOutcome] = []
    timings: list[dict] = []
    exit_words = None
    try:
        bots.command(str(path))
        seat.seated = bots.checkout(str(path), limits.for_kernel(), limits.max_line_bytes, limits.max_output_bytes,
                                    None if bot_path else recording.bot_hash, reuse=False,
                                    label=f"seat {recording.seat}")
        seat.process.stderr = capture
        start, start_timing = _start(seat, recording, failures)
        for index, step in enumerate(steps):
            if seat.failed:
                break
            _file_stderr(seat, capture, step.step)
            outcome, timing = _decide(seat, step, game, failures)
            outcomes.append(outcome)
            timings.append(timing)
            following = steps[index + 1].step if index + 1 < len(steps) else None
            if not seat.failed and following != step.step + 1:
                seat.process.freeze()  # another seat decided next in the match: it waited frozen
        if not seat.failed:
            _file_stderr(seat, capture, END)
            exit_words = _finish(seat, recording)
        else:
            capture.begin(END)
    finally:
        seat.shut_down()  # settles the clock of the last decision and collects the rest of stderr
        bots.close()
    _complete(start, start_timing, capture.of(START))
    for outcome, timing in zip(outcomes, timings):
        _complete(outcome, timing, capture.of(outcome.step))
    if game.problem:
        notes.append(f"{game.problem}: an action that is not listed is not judged")
    reached = {o.step for o in outcomes}
    return RerunReport(
        recording.label, recording.game, recording.seat, str(path), recording.bot_label, protections.mode,
        recording.sandbox_mode, clock, recording.clock, _limits_shown(limits), start, outcomes,
        [s.step for s in steps if s.step not in reached], capture.of(END), exit_words, seat.stderr,
        recording.status, recording.error, seat.status, seat.error, notes)


def _limits_shown(limits: Limits) -> dict:
    return {name: getattr(limits, name) for name in ("start_ms", "decision_ms", "bank_ms", "memory_mb", "cpu_seconds",
                                                       "processes", "disk_mb", "cpus", "max_line_bytes",
                                                       "max_output_bytes")}


def _file_stderr(seat: Seat, capture: StepStderr, key: object) -> None:
    """What the bot wrote until now belongs to the step before; from now on to ``key``."""
    seat.process.read_available()
    capture.begin(key)


def _complete(outcome: StepOutcome, timing: dict, stderr: str) -> None:
    outcome.stderr = stderr
    outcome.ms = timing.get("ms")
    outcome.cpu_ms = timing.get("cpu_ms")


def _start(seat: Seat, recording: Recording, failures: list) -> tuple[StepOutcome, dict]:
    """Start the process and send the recorded ``start``, judged as `match._start_bots` does."""
    outcome = StepOutcome(None, recording.ready, None, recording.start_status, recording.start_error)
    timing: dict = {}
    process = seat.process
    try:
        process.start()
    except BotFailure as failure:
        fail_at_start(seat, failure.status, failure.message, failures)
        return _judged_start(seat, outcome), timing
    turn = seat.clock.start_up(0 if process.cpu_ns() is not None else None, process.started_at)
    try:
        process.send_line(protocol.encode(recording.start), turn.wall_deadline)
        line = await_line(process, turn, "no ready answer in time")
    except BotFailure as failure:
        fail_at_start(seat, failure.status, failure.message, failures)
        return _judged_start(seat, outcome), timing
    answered = time.monotonic()
    outcome.reply = line[:4096].decode("utf-8", "replace")
    timing["ms"] = round((answered - turn.began) * 1000, 3)
    try:
        protocol.parse_ready(line)
    except ReplyError as error:
        bad_ready(seat, error, line, failures)
        return _judged_start(seat, outcome), timing
    seat.clock.finished(turn, answered - turn.began, timing)
    process.freeze()  # until its first request, as in the match
    return _judged_start(seat, outcome), timing


def _judged_start(seat: Seat, outcome: StepOutcome) -> StepOutcome:
    outcome.status, outcome.error = seat.status, seat.error
    outcome.same = outcome.status == outcome.recorded_status
    return outcome


def _decide(seat: Seat, step: RecordedStep, game: RecordedGame, failures: list) -> tuple[StepOutcome, dict]:
    """Send the recorded request of ``step`` and judge the answer as `match._decide` does (the
    same checks, order and words)."""
    outcome = StepOutcome(step.step, step.reply, step.action, step.status, step.error)
    timing: dict = {}
    process = seat.process
    legal = step.request.get("legal")
    cpu = process.cpu_ns()
    seat.clock.settle(cpu)
    turn = None
    try:
        if process.has_unrequested_output():
            raise BotFailure("limit", UNREQUESTED)
        asked = time.monotonic()
        turn = seat.clock.decision(cpu, asked)
        try:
            process.send_line(protocol.encode(step.request), turn.wall_deadline, thaw=True)
        except DeadlinePassed:
            raise BotFailure("timeout", f"did not read its input in time: "
                                        f"{turn.timeout_words(process.cpu_ns(), time.monotonic())}") from None
        line = await_line(process, turn, "no reply in time")
    except BotFailure as failure:
        if turn is not None:  # a decision that failed used its time too
            cpu, wall = process.cpu_ns(), time.monotonic() - turn.began
            seat.clock.timed_out(turn, cpu, wall)
            timing["ms"] = round(wall * 1000, 3)
            if turn.used_cpu_s(cpu) is not None:
                timing["cpu_ms"] = round(turn.used_cpu_s(cpu) * 1000, 3)
        return _failed(seat, outcome, failure.status, failure.message), timing
    replied = time.monotonic()
    seat.decisions += 1
    outcome.reply = line[:4096].decode("utf-8", "replace")
    timing["ms"] = round((replied - asked) * 1000, 3)
    seat.clock.finished(turn, replied - asked, timing)
    if process.launch.out_of_memory():
        return _failed(seat, outcome, "limit", f"its processes went over the memory limit"
                       f" ({seat.limits.memory_mb} MiB); the kernel killed one"), timing
    try:
        action, debug = protocol.parse_reply(line, legal)
    except ReplyError as error:
        if unrequested_output(process, within=FLOOD_WINDOW_S):
            return _failed(seat, outcome, "limit", UNREQUESTED), timing
        return _failed(seat, outcome, "protocol", f"{error}: {quote_line(line)}"), timing
    if unrequested_output(process):
        return _failed(seat, outcome, "limit", UNREQUESTED), timing
    refusal = game.refusal(step, action, legal)
    if refusal is not None:
        outcome.action = action
        return _failed(seat, outcome, "illegal", refusal), timing
    listed = protocol.listed(action, legal)
    outcome.action = action if listed is None else listed
    outcome.debug = debug
    outcome.same = step.status == "ok" and protocol.same_json(outcome.action, step.action)
    return outcome, timing


def _failed(seat: Seat, outcome: StepOutcome, status: str, message: str) -> StepOutcome:
    """The seat fails at this step, as in the match (its process is stopped)."""
    seat.fail(status, f"step {outcome.step}: {message}")
    outcome.status, outcome.error = status, seat.error
    outcome.same = outcome.recorded_status == status
    return outcome


def _finish(seat: Seat, recording: Recording) -> str | None:
    """Send the recorded ``end`` (when the seat was sent one) and ``quit``, as the match ends;
    how the process ended (None: it exited by itself with code 0)."""
    process = seat.process
    process.freeze()
    seat.clock.settle(process.cpu_ns())
    process.thaw()
    deadline = time.monotonic() + QUIT_GRACE_S
    try:
        if recording.end is not None:
            process.send_line(protocol.encode(recording.end), deadline)
        process.send_line(b'{"type":"quit"}\n', deadline)
    except BotFailure:
        return "stopped reading before quit (the match is over: this changes nothing)"
    if not process.wait_for_exit(deadline):
        return f"still running {QUIT_GRACE_S:g} s after quit (it was stopped; the match would stop it too)"
    status = process.exit_status
    if status == 0:
        return None
    return f"after quit it {exit_text(status, process.launch.protections.mode == 'bubblewrap')}"
