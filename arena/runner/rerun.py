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

An answer is judged by the match's own checks (`arena.runner.decision`, which a match uses
too): the clock (the recorded one, ``cpu`` or ``wall``, where this machine can run it; the
bank starts as the first re-run request says it was), a second line for one request, the
memory limit, the reply's shape, and the action's legality (a listed action; any other is
tried on the game engine taken through the recorded actions). As in the match, the bot runs
only while it decides: it is frozen after a reply when another seat moved next.

What the bot writes to stderr is kept whole and cut into its messages exactly as a match cuts
it (`arena.runner.match.Seat`: start-up, each decision, after ``end``; within the match's
caps), and set beside the recorded piece of the same message where the log keeps stderr per
decision. Knows nothing of the store.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import orjson

from arena.games import get_game
from arena.runner import cgroups, protocol
from arena.runner import clock as clocks
from arena.runner.decision import Refused, apply_action, ask, await_ready, judge
from arena.runner.livebots import LiveBots
from arena.runner.match import QUIT_GRACE_S, Limits, Seat
from arena.runner.process import BotFailure, exit_text
from arena.runner.sandbox import Protections, detect

START = "start"  # `first_difference` when start-up came out otherwise


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
    stderr: str | None = None     # what it wrote while deciding (None: the log keeps no stderr per decision)


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
    start_stderr: str | None      # what it wrote during start-up (None: not kept per decision)
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
    end_stderr: str | None = None  # what it wrote after its last decision (None: not kept per decision)
    notes: list = field(default_factory=list)


@dataclass
class StepOutcome:
    """One message of the re-run beside the recorded one: start-up (``step`` None) or a decision."""

    step: int | None
    recorded_reply: str | None
    recorded_action: object
    recorded_status: str
    recorded_error: str | None
    recorded_stderr: str | None   # what it wrote then (None: the log keeps no stderr per decision)
    reply: str | None = None
    action: object = None
    status: str = "ok"
    error: str | None = None
    same: bool = True
    stderr: str = ""              # what it wrote now, cut as the match cuts it
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
    recorded_end_stderr: str | None  # what it wrote after end in the match (None: not kept per decision)
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
    outcomes: list[tuple[StepOutcome, dict]] = []
    after_end = {"event": "stderr", "after": "end"}  # gets what it writes after its last decision
    exit_words = None
    try:
        bots.command(str(path))
        seat.seated = bots.checkout(str(path), limits.for_kernel(), limits.max_line_bytes, limits.max_output_bytes,
                                    None if bot_path else recording.bot_hash, reuse=False,
                                    label=f"seat {recording.seat}")
        seat.stderr_begins()
        start = _start(seat, recording)
        for index, step in enumerate(steps):
            if seat.failed:
                break
            outcomes.append(_decide(seat, step, game))
            following = steps[index + 1].step if index + 1 < len(steps) else None
            if not seat.failed and following != step.step + 1:
                seat.process.freeze()  # another seat decided next in the match: it waited frozen
        if not seat.failed:
            exit_words = _finish(seat, recording, after_end)
    finally:
        seat.shut_down()  # settles the clock of the last decision and files the rest of its stderr
        bots.close()
    for outcome, answer in [start, *outcomes]:
        outcome.stderr = answer.get("stderr", "")
        outcome.ms, outcome.cpu_ms = answer.get("ms"), answer.get("cpu_ms")
    if game.problem:
        notes.append(f"{game.problem}: an action that is not listed is not judged")
    if recording.start_stderr is None and recording.stderr:
        notes.append("the log keeps no stderr per decision (recorded before arena kept it): only this run's is shown")
    reached = {outcome.step for outcome, _ in outcomes}
    return RerunReport(
        recording.label, recording.game, recording.seat, str(path), recording.bot_label, protections.mode,
        recording.sandbox_mode, clock, recording.clock, _limits_shown(limits), start[0],
        [outcome for outcome, _ in outcomes], [s.step for s in steps if s.step not in reached],
        after_end.get("stderr", ""), recording.end_stderr, exit_words, seat.stderr,
        recording.status, recording.error, seat.status, seat.error, notes)


def _limits_shown(limits: Limits) -> dict:
    return {name: getattr(limits, name) for name in ("start_ms", "decision_ms", "bank_ms", "memory_mb", "cpu_seconds",
                                                       "processes", "disk_mb", "cpus", "max_line_bytes",
                                                       "max_output_bytes")}


def _start(seat: Seat, recording: Recording) -> tuple[StepOutcome, dict]:
    """Start the process and send the recorded ``start``, judged as a match judges it; the
    outcome and its answer (the ready event the match logs: line, ms, stderr)."""
    outcome = StepOutcome(None, recording.ready, None, recording.start_status, recording.start_error,
                          recording.start_stderr)
    answer: dict = {}
    process = seat.process
    try:
        process.start()
        turn = seat.clock.start_up(0 if process.cpu_ns() is not None else None, process.started_at)
        process.send_line(protocol.encode(recording.start), turn.wall_deadline)
        await_ready(seat, turn, answer)
    except (BotFailure, Refused) as failure:
        _fail(seat, answer, failure.status, f"start-up: {failure.message}")
    else:
        seat.stderr_to(answer)
        process.freeze()  # until its first request, as in the match
    outcome.reply = answer.get("line")
    outcome.status, outcome.error = seat.status, seat.error
    outcome.same = outcome.status == outcome.recorded_status
    return outcome, answer


def _decide(seat: Seat, step: RecordedStep, game: RecordedGame) -> tuple[StepOutcome, dict]:
    """Send the recorded request of ``step`` and judge the reply as a match judges it; the
    outcome and its answer (the reply event the match logs: line, ms, cpu_ms, stderr)."""
    outcome = StepOutcome(step.step, step.reply, step.action, step.status, step.error, step.stderr)
    answer: dict = {}
    legal = step.request.get("legal")
    cpu = seat.next_decision()

    def refuse(action) -> str | None:
        outcome.action = action
        return game.refusal(step, action, legal)

    try:
        reply = ask(seat, protocol.encode(step.request), cpu, answer)
        seat.stderr_to(answer)
        action, debug = judge(seat, reply.line, legal, refuse)
    except Refused as failure:
        answer.update(failure.times or {})
        _fail(seat, answer, failure.status, f"step {step.step}: {failure.message}")
        outcome.reply = answer.get("line")
        outcome.status, outcome.error = failure.status, seat.error
        outcome.same = outcome.recorded_status == failure.status
        return outcome, answer
    outcome.reply = answer["line"]
    listed = protocol.listed(action, legal)
    outcome.action = action if listed is None else listed
    outcome.debug = debug
    outcome.same = step.status == "ok" and protocol.same_json(outcome.action, step.action)
    return outcome, answer


def _fail(seat: Seat, answer: dict, status: str, message: str) -> None:
    """The seat fails on this message as in the match (its process is stopped); what it wrote
    while answering, and as it was stopped, goes to ``answer``."""
    seat.stderr_to(answer)
    seat.fail(status, message)


def _finish(seat: Seat, recording: Recording, after_end: dict) -> str | None:
    """Send the recorded ``end`` (when the seat was sent one) and ``quit``, as the match ends
    (what it writes from here on goes to ``after_end``); how the process ended (None: it
    exited by itself with code 0)."""
    process = seat.process
    process.freeze()
    seat.clock.settle(process.cpu_ns())
    seat.stderr_cut(after_end)
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
