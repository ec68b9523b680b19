"""Play one match: a game engine plus one sandboxed bot process per seat.

Owns the protocol's message flow (start, request, action, end, quit), applying the clocks
(`arena.runner.clock`: start-up, per-decision allowance, time bank, on CPU or wall time),
pausing every bot that is not deciding (only the bot on move runs: its processes are thawed
for its start-up and its decisions, and frozen before any other bot of the match is thawed;
what one uses until then is charged to its own decision), what a failure does to a seat (the
checks that find one, in their order and with their words, are `arena.runner.decision`'s,
shared with `arena rerun`) and the fallback policy:
a seat whose bot failed is played by a seeded random legal action from then on, so the others'
match stays meaningful, and is ranked last. Returns a plain ``MatchResult``; never raises
because of a bot — whatever a bot writes or does, the worst it gets is a failed seat. Only a
failure of the game engine itself (or of this machine) raises. Bad input from the user
(unknown game, wrong bot count, bad option, missing bot file) raises ``GameError``/``BotError``
before any process starts.

A seat may be a `HumanSeat` instead of a bot path: a person's decisions come from a page
(`arena.runner.human`), on the wall clock of that seat's limits, while every bot is frozen.

With a `LiveBots` of the worker, processes of bots that said ``"matches": "many"`` are kept
for later matches instead of being sent ``quit``; the match log is the same either way.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone

from arena.games import get_game
from arena.runner import cgroups, protocol
from arena.runner.decision import Refused, apply_action, ask, await_ready, judge
from arena.runner.human import TIMEOUT_WORDS, HumanSeat, is_human
from arena.runner import clock as clocks
from arena.runner.bots import BotError
from arena.runner.files import BotFilesError
from arena.runner.livebots import LiveBots, Seated, retire
from arena.runner.process import BotFailure
from arena.runner.sandbox import BotChanged, Protections, ResourceLimits, detect

QUIT_GRACE_S = 1.0
MAX_STEPS = 100_000
STATUSES = ("ok", "timeout", "crash", "illegal", "protocol", "limit")
RESTART_POLICIES = ("auto", "always")


@dataclass(frozen=True)
class Limits:
    """Clocks and caps for every bot of a match (see docs/protocol.md, *Time* and *Limits*)."""

    start_ms: int = 5000
    decision_ms: int = 1000
    bank_ms: int = 10000
    max_line_bytes: int = 1 << 20
    max_output_bytes: int = 8 << 20
    memory_mb: int = 1024
    cpu_seconds: int = 300
    processes: int = 64
    disk_mb: int = 64
    cpus: float = 1.0
    clock: str | None = None  # "cpu" | "wall"; None: cpu wherever cgroups can read it

    def for_protocol(self, clock: str) -> dict:
        return {"clock": clock, "start_ms": self.start_ms, "decision_ms": self.decision_ms, "bank_ms": self.bank_ms,
                "max_line_bytes": self.max_line_bytes, "max_output_bytes": self.max_output_bytes}

    def for_kernel(self) -> ResourceLimits:
        return ResourceLimits(memory_bytes=self.memory_mb << 20, cpu_seconds=self.cpu_seconds,
                              processes=self.processes, disk_bytes=self.disk_mb << 20, cpus=self.cpus)


@dataclass
class MatchSpec:
    """What to play: the game, one bot path per seat, the engine's seed, options and limits.

    ``bot_seeds`` are the seeds the bots are sent in ``start``; a tournament derives them
    from its secret, so they say nothing about the deal. Without them they are derived from
    ``seed`` (fine for a trusted experiment, not for a contest). ``hashes``, where given, are
    the content hashes the bots' files must still have. ``restart = "always"`` never reuses a
    process.
    """

    game: str
    bots: list
    seed: int
    options: dict = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    bot_seeds: list | None = None
    hashes: list | None = None
    restart: str = "auto"
    seat_limits: list | None = None  # per seat: a Limits overriding ``limits`` (e.g. a JVM bot)
    extra_fields: dict | None = None  # added to every message (`arena check`: unknown fields)


@dataclass
class SeatResult:
    seat: int
    bot: str
    status: str
    score: float
    rank: int
    time_ms: float
    decisions: int
    error: str | None
    stderr: str
    cpu_ms: float | None = None  # CPU time of its decisions, all its processes (None: no cgroups)
    wall_ms: float = 0.0         # wall time of its decisions


@dataclass
class MatchResult:
    game: str
    options: dict
    seed: int
    players: int
    teams: list | None
    scores: list
    ranks: list
    seats: list
    log: list
    sandbox: dict
    started_at: str
    ended_at: str
    duration_ms: float

    def to_dict(self) -> dict:
        """The result as plain data. The log is not copied (asdict would deep-copy every
        observation of the match: the largest cost of a match after the bots' own)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["seats"] = [flat_dict(seat) for seat in self.seats]
        return data


def flat_dict(record) -> dict:
    """A dataclass of plain values as a dict: `asdict`'s deep copy cost about 1 ms a match."""
    return {f.name: getattr(record, f.name) for f in fields(record)}


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed derived from ``seed`` and labels; stable across runs and platforms."""
    text = ":".join(map(str, (seed, *labels))).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


TIMING_KEYS = ("ms", "time", "cpu_ms", "harness_ms")


def strip_timing(log: list[dict]) -> list[dict]:
    """The log without its measured times: what must be identical when a match is replayed."""
    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in TIMING_KEYS}
        return value
    return [clean(event) for event in log]


# Kept importable from here (the protocol module owns them).
parse_reply = protocol.parse_reply
parse_ready = protocol.parse_ready
ReplyError = protocol.ReplyError


def start_message(game: str, options: dict, seat: int, players: int, seed: int, limits: Limits,
                  extra: dict | None = None, clock: str = "wall") -> dict:
    """The ``start`` message a bot is sent for a match (docs/protocol.md)."""
    return {"type": "start", "protocol": protocol.PROTOCOL_VERSION, "game": game, "options": options,
            "seat": seat, "players": players, "seed": seed, "limits": limits.for_protocol(clock), **(extra or {})}


def request_message(seat: int, step: int, observation: dict, legal: list | None, time: dict,
                    extra: dict | None = None) -> dict:
    """The ``request`` message for one decision; ``time`` is the seat clock's ``time`` field
    (`arena.runner.clock.SeatClock.for_request`; docs/protocol.md)."""
    return {"type": "request", "seat": seat, "step": step, "observation": observation, "legal": legal,
            "time": time, **(extra or {})}


def end_message(seat: int, scores: list, ranks: list, statuses: list, teams: list | None,
                extra: dict | None = None) -> dict:
    """The ``end`` message a seat is sent when its match is over (docs/protocol.md)."""
    return {"type": "end", "scores": scores, "ranks": ranks, "statuses": statuses, "teams": teams,
            **(extra or {}), "seat": seat}


class MatchLog(list):
    """The match's events; requests also keep the exact JSON line that was sent, so the stored
    log is written from those bytes instead of encoding every observation a second time."""

    def __init__(self) -> None:
        super().__init__()
        self.encoded: dict[int, bytes] = {}

    def append_request(self, event: dict, line: bytes) -> None:
        self.encoded[len(self)] = (b'{"event":"request","seat":%d,"step":%d,"message":' % (event["seat"], event["step"])
                                   + line.rstrip(b"\n") + b"}")
        self.append(event)

    def to_json(self) -> bytes:
        """The events as one compact JSON array (what `arena.results.store.pack` stores)."""
        parts = [self.encoded.get(i) or protocol.encode(event)[:-1] for i, event in enumerate(self)]
        return b"[" + b",".join(parts) + b"]"


class Seat:
    """One seat's bot, clock and status during a match."""

    def __init__(self, index: int, path, limits: Limits, clock: str):
        self.index = index
        self.human: HumanSeat | None = path if is_human(path) else None
        self.path = str(path)
        self.limits = limits
        self.status = "ok"
        self.error: str | None = None
        self.clock = clocks.SeatClock(clock, limits.start_ms, limits.decision_ms, limits.bank_ms, limits.cpus,
                                      limits.cpu_seconds)  # judged where the CPU time is readable
        self.decisions = 0
        self.seated: Seated | None = None
        self.stderr = ""
        self.wants_many = False
        self.log: list | None = None  # where the event for its stderr after `end` goes
        # Its stderr cut into the decisions during which it was written: (event, first byte,
        # end byte), filled in once the process is done and its stderr final (`_fill_stderr`).
        self._pieces: list = []
        self._piece_from = 0
        self._piece_event: dict | None = None

    def stderr_begins(self) -> None:
        """Its stderr from here on is this match's (its process just started, or was reset)."""
        self._piece_from = self.process.stderr.total

    def stderr_to(self, event: dict) -> None:
        """What it wrote since the last cut goes to ``event`` (its reply, ready or failure)."""
        self._piece_event = event

    def stderr_cut(self, event: dict | None = None) -> None:
        """End the current piece of its stderr here (the bot waits: frozen, or reading its
        input) and begin the next one, which goes to ``event`` unless `stderr_to` says."""
        mark = self.process.stderr_mark()
        if self._piece_event is not None:
            self._pieces.append((self._piece_event, self._piece_from, mark))
        self._piece_from, self._piece_event = mark, event

    def next_decision(self) -> int | None:
        """Close its previous decision (its bot frozen, or waiting for its input): what it
        wrote until now belongs to that decision (or its start-up), read before its CPU time,
        which settles that decision (reading the pipe is charged to it, as the clock charges
        what a bot does after its reply). Returns that CPU time: the next decision's start."""
        self.stderr_cut()
        cpu = self.process.cpu_ns()
        self.clock.settle(cpu)
        return cpu

    def _fill_stderr(self, process) -> None:
        """The process is done: write each piece of its stderr into its event (a piece that
        is empty leaves its event as it was; the event after `end` is logged if it has one)."""
        capture = process.stderr
        if self._piece_event is not None:
            self._pieces.append((self._piece_event, self._piece_from, capture.total))
            self._piece_event = None
        for event, begin, end in self._pieces:
            text = capture.piece(begin, end)
            if text:
                event["stderr"] = text
                if event.get("event") == "stderr" and self.log is not None:
                    self.log.append(event)
        self._pieces = []

    @property
    def process(self):
        return self.seated.process if self.seated is not None else None

    @property
    def failed(self) -> bool:
        return self.status != "ok"

    def fail(self, status: str, message: str) -> None:
        if not self.failed:
            self.status, self.error = status, message
        self.shut_down()

    def shut_down(self) -> None:
        """Stop the process for good (it is never reused after this)."""
        if self.seated is not None:
            process = self.seated.process
            self.seated = None
            self.clock.settle(process.cpu_ns())
            process.stop()
            self.stderr = process.stderr.text()
            self._fill_stderr(process)

    def hand_back(self, bots: LiveBots) -> None:
        """Keep the process for a later match (the caller checked it may be reused)."""
        if self.seated is not None:
            seated, self.seated = self.seated, None
            self.clock.settle(seated.process.cpu_ns())
            bots.checkin(seated)  # it waits frozen for its next match; if retired, what it writes as it quits is ours too
            self.stderr = seated.process.stderr.text()
            self._fill_stderr(seated.process)


def play_match(spec: MatchSpec, protections: Protections | None = None, bots: LiveBots | None = None) -> MatchResult:
    """Play ``spec`` to the end and return the result (see the module docstring).

    ``protections`` chooses the sandbox mode (default: the one asked for, see
    `arena.runner.sandbox.detect`); ``bots`` is the worker's pool of live processes.
    """
    game = get_game(spec.game)
    players = len(spec.bots)
    options = game.validate(players, spec.options)  # refuses a bad count or option
    if spec.restart not in RESTART_POLICIES:
        raise ValueError(f"restart must be one of {', '.join(RESTART_POLICIES)}, not {spec.restart!r}")
    own_bots = bots is None
    if own_bots:
        bots = LiveBots(protections or detect(), keep=0)
    protections = bots.protections
    try:
        for path in spec.bots:
            if not is_human(path):
                bots.command(str(path))  # a path that is no bot is the user's mistake: refuse now
        state = game.create_state(players, int(spec.seed), options)
        return _play(spec, game, state, options, protections, bots)
    finally:
        if own_bots:
            bots.close()


def _play(spec: MatchSpec, game, state, options: dict, protections: Protections, bots: LiveBots) -> MatchResult:
    players = len(spec.bots)
    limits = spec.limits
    seat_limits = spec.seat_limits or [None] * players
    fallback = random.Random(derive_seed(spec.seed, "fallback"))
    clock = clocks.choose(limits.clock, protections.resources != "rlimits" and cgroups.cpu_readable())
    seats = [Seat(i, path, seat_limits[i] or limits, "wall" if is_human(path) else clock)
             for i, path in enumerate(spec.bots)]
    log = MatchLog()
    for seat in seats:
        seat.log = log
    started_at = datetime.now(timezone.utc)
    began = time.monotonic()
    try:
        _start_bots(seats, spec, options, bots, log, clock)
        for seat in seats:
            if seat.process is not None:
                seat.process.freeze()  # until its first request
        timer = HarnessTimer(time.monotonic())
        step = 0
        while not state.is_over():
            if step >= MAX_STEPS:
                # Every game ends far sooner; a rules bug must not hang a whole tournament.
                raise RuntimeError(f"{spec.game} did not end within {MAX_STEPS} decisions (seed {spec.seed})")
            seat = seats[state.current_seat()]
            state, decided = _decide(seat, state, step, log, spec.extra_fields, timer)
            if not decided:
                action = state.random_action(fallback)
                log.append({"event": "action", "seat": seat.index, "step": step, "action": action,
                            "by": "fallback"})
                state.apply(action)
            step += 1
        result_ranks = _final_ranks(state, seats)
        _finish_bots(seats, state, result_ranks, log, bots, spec.restart == "auto", spec.extra_fields)
        for seat in seats:
            if seat.human is not None:
                end = next(event for event in reversed(log) if event["event"] == "end")
                seat.human.finish({**end, "seat": seat.index, "observation": state.observation(seat.index)})
    finally:
        for seat in seats:
            seat.shut_down()
    ended_at = datetime.now(timezone.utc)
    scores = state.scores()
    seat_results = [
        SeatResult(s.index, s.path, s.status, scores[s.index], result_ranks[s.index],
                   round(s.clock.charged_s * 1000, 3), s.decisions, s.error, s.stderr,
                   None if s.clock.cpu_s is None else round(s.clock.cpu_s * 1000, 3), round(s.clock.wall_s * 1000, 3))
        for s in seats
    ]
    return MatchResult(spec.game, options, spec.seed, players, state.teams(), scores, result_ranks,
                       seat_results, log, {**protections.as_dict(), **flat_dict(limits), "clock": clock},
                       started_at.isoformat(), ended_at.isoformat(),
                       round((time.monotonic() - began) * 1000, 3))


def _start_bots(seats: list[Seat], spec: MatchSpec, options: dict, bots: LiveBots, log: list, clock: str) -> None:
    bot_seeds = spec.bot_seeds or [derive_seed(spec.seed, "bot", i) for i in range(len(seats))]
    hashes = spec.hashes or [None] * len(seats)
    for seat in seats:
        if seat.human is not None:
            continue  # a person has no process
        try:
            seat.seated = bots.checkout(seat.path, seat.limits.for_kernel(), seat.limits.max_line_bytes,
                                        seat.limits.max_output_bytes, hashes[seat.index],
                                        reuse=spec.restart == "auto", label=f"seat {seat.index}", deal=spec.seed)
        except (BotError, BotFilesError, BotChanged):
            for other in seats:
                other.shut_down()
            raise  # the bot on disk is wrong (not its behaviour): the user's or the store's problem
        command = seat.seated.staged.command
        seat.wants_many = command.matches == "many"
        seat.stderr_begins()
        if not seat.seated.reused:
            try:
                seat.seated.process.start()
            except BotFailure as failure:
                _fail_at_start(seat, failure.status, failure.message, log)
    # Send every start message first, then collect the answers: bots start in parallel, each
    # thawed, on its own clock. A fresh process's start-up counts from its start.
    turns = {}
    for seat in seats:
        message = start_message(spec.game, options, seat.index, len(seats), bot_seeds[seat.index], seat.limits,
                                spec.extra_fields, clock)
        log.append({"event": "start", "seat": seat.index, "message": message})
        if seat.failed or seat.human is not None:
            continue
        process = seat.process
        if seat.seated.reused:
            process.thaw()  # it waited frozen since its last match
            turn = seat.clock.start_up(process.cpu_ns(), time.monotonic())
        else:
            turn = seat.clock.start_up(0 if process.cpu_ns() is not None else None, process.started_at)
        turns[seat.index] = turn
        try:
            process.send_line(protocol.encode(message), turn.wall_deadline)
        except BotFailure as failure:
            _fail_at_start(seat, failure.status, failure.message, log)
    for seat in seats:
        if seat.failed or seat.human is not None:
            continue
        event = {"event": "ready", "seat": seat.index}
        try:
            ready = await_ready(seat, turns[seat.index], event)
        except Refused as failure:
            if "line" in event:
                log.append(event)  # a bad answer is logged as it came
            _fail_at_start(seat, failure.status, failure.message, log)
            continue
        log.append(event)
        seat.stderr_to(event)
        if seat.seated.staged.command.matches != "one" and ready.get("matches") == "many":
            seat.wants_many = True


class HarnessTimer:
    """When the harness last read a reply: the time from then to the next request written is
    the harness's own (the game engine, the log, freezing and thawing), logged as
    ``harness_ms``. And the seat that answered it, whose bot is frozen when another seat's is
    thawed (by then it is usually blocked reading its input: freezing it is cheaper, and a
    seat that decides again in a row is never frozen and thawed in between)."""

    def __init__(self, since: float):
        self.since = since
        self.running: Seat | None = None


def _fail_at_start(seat: Seat, status: str, message: str, log: list) -> None:
    event = {"event": "failure", "seat": seat.index, "step": None}
    if seat.process is not None:
        seat.stderr_to(event)
    seat.fail(status, f"start-up: {message}")
    event.update(status=seat.status, error=seat.error)
    log.append(event)


def _decide(seat: Seat, state, step: int, log: list, extra: dict | None = None, timer: HarnessTimer | None = None):
    """Ask the seat's bot and apply its action. Returns (state, True) when it did; (state,
    False) when the seat must be played by the fallback policy.

    The bot is frozen until its request is written (then thawed: one wake-up) and again before
    another seat's bot is thawed; its CPU counter is read before it is thawed (what settles its
    previous decision and starts this one)."""
    if seat.failed:
        return state, False
    legal = state.legal_actions()
    if timer is not None and timer.running is not seat:
        if timer.running is not None and timer.running.process is not None:
            timer.running.process.freeze()
        timer.running = seat
    if seat.human is not None:
        return _decide_by_person(seat, state, step, log, extra, legal, timer)
    cpu = seat.next_decision()
    request = request_message(seat.index, step, state.observation(seat.index), legal, seat.clock.for_request(), extra)
    line = protocol.encode(request)
    log.append_request({"event": "request", "seat": seat.index, "step": step, "message": request}, line)
    event = {"event": "reply", "seat": seat.index, "step": step}
    try:
        reply = ask(seat, line, cpu, event)
    except Refused as failure:
        return state, _fail(seat, failure.status, f"step {step}: {failure.message}", step, log, failure.times)
    if timer is not None:
        event["harness_ms"] = round((reply.asked - timer.since) * 1000, 3)
        timer.since = reply.replied
    log.append(event)
    seat.stderr_to(event)

    def refuse(action):
        nonlocal state
        state, refusal = apply_action(state, action, legal)
        return refusal

    try:
        action, debug = judge(seat, reply.line, legal, refuse)
    except Refused as failure:
        return state, _fail(seat, failure.status, f"step {step}: {failure.message}", step, log)
    event = {"event": "action", "seat": seat.index, "step": step, "action": action, "by": "bot"}
    if debug:
        event["debug"] = debug
    log.append(event)
    return state, True


def _decide_by_person(seat: Seat, state, step: int, log: list, extra: dict | None, legal: list | None,
                      timer: HarnessTimer | None):
    """Ask the person in the seat (every bot is frozen meanwhile); an action the engine
    refuses is sent back with its reason and the person tries again on the same clock."""
    request = request_message(seat.index, step, state.observation(seat.index), legal, seat.clock.for_request(), extra)
    log.append({"event": "request", "seat": seat.index, "step": step, "message": request})
    asked = time.monotonic()
    turn = seat.clock.decision(None, asked)
    taken = []

    def attempt(action):
        nonlocal state
        state, refusal = apply_action(state, action, legal)
        if refusal is None:
            taken.append(action)
        return refusal

    decided = seat.human.decide(request, attempt, turn.wall_deadline)
    answered = time.monotonic()
    elapsed = answered - asked
    if timer is not None:
        timer.since = answered  # the person's time is not the harness's
    if not decided:
        seat.clock.timed_out(turn, None, elapsed)
        return state, _fail(seat, "timeout", f"step {step}: {TIMEOUT_WORDS}: {turn.timeout_words(None, asked + elapsed)}",
                            step, log, {"ms": round(elapsed * 1000, 3)})
    seat.decisions += 1
    reply = {"type": "action", "action": taken[0]}
    event = {"event": "reply", "seat": seat.index, "step": step, "line": protocol.encode(reply)[:-1].decode(),
             "ms": round(elapsed * 1000, 3)}
    log.append(event)
    seat.clock.finished(turn, elapsed, event)
    seat.clock.settle(None)
    log.append({"event": "action", "seat": seat.index, "step": step, "action": taken[0], "by": "bot"})
    return state, True


def _fail(seat: Seat, status: str, message: str, step: int, log: list, times: dict | None = None) -> bool:
    """Record the seat's failure (with the failing decision's ``ms`` and ``cpu_ms`` when it
    failed waiting); the caller then plays the seat by the fallback policy."""
    event = {"event": "failure", "seat": seat.index, "step": step}
    seat.stderr_to(event)  # the failed decision's stderr, and what the bot writes as it is stopped
    seat.fail(status, message)
    event.update(status=seat.status, error=seat.error, **(times or {}))
    log.append(event)
    return False


def _final_ranks(state, seats: list[Seat]) -> list[int]:
    """The game's ranks, except that failed seats (and their teammates) share the last place.

    In team games the ranking is over teams, so teammates share a rank and two teams give
    ranks 1 and 2 (not 1 and 3).
    """
    ranks = state.ranks()
    failed = [s.failed for s in seats]
    teams = state.teams() or [[i] for i in range(len(seats))]
    # Failed teams share the last place, whatever their score.
    team_keys = [(True, 0) if any(failed[i] for i in team) else (False, min(ranks[i] for i in team))
                 for team in teams]
    result = [0] * len(seats)
    for team, key in zip(teams, team_keys):
        for i in team:
            result[i] = 1 + sum(1 for other in team_keys if other < key)
    return result


def _finish_bots(seats: list[Seat], state, ranks: list[int], log: list, bots: LiveBots, reuse: bool,
                 extra: dict | None = None) -> None:
    """Send ``end``, to every bot thawed (reading it runs under its own deadline,
    `QUIT_GRACE_S`, not on any clock). A process kept for another match is checked in once it
    has read ``end`` and waits (`BotProcess.settle`), and is frozen there; any other is sent
    ``quit`` too and has `QUIT_GRACE_S` to exit by itself."""
    statuses = [s.status for s in seats]
    end = {"type": "end", "scores": state.scores(), "ranks": ranks, "statuses": statuses,
           "teams": state.teams(), **(extra or {})}
    log.append({"event": "end", **{k: v for k, v in end.items() if k != "type"}})
    deadline = time.monotonic() + QUIT_GRACE_S
    live = [s for s in seats if not s.failed and s.process is not None]
    quitting, kept = [], []
    for seat in live:
        seat.process.freeze()
        seat.clock.settle(seat.process.cpu_ns())
        seat.stderr_cut({"event": "stderr", "seat": seat.index, "after": "end"})
        keep = reuse and seat.wants_many and bots.keep > 0
        seat.process.thaw()  # a frozen bot would never read `end`, and never look settled
        try:
            message = end_message(seat.index, end["scores"], ranks, statuses, end["teams"], extra)
            seat.process.send_line(protocol.encode(message), deadline)
            if not keep:
                seat.process.send_line(b'{"type":"quit"}\n', deadline)
        except BotFailure:
            keep = False  # the match is over; a bot that stops listening now changes nothing
        (kept if keep else quitting).append(seat)
    late = []
    for seat in kept:
        # Kept only once it is done with `end` and waits for its next message: what it wrote
        # until then is this match's stderr. One that ended or is still busy is retired, and
        # what it writes until it exits is this match's too.
        if seat.process.settle(deadline):
            seat.hand_back(bots)
        else:
            late.append(seat)
    if late:
        deadline = max(deadline, time.monotonic() + QUIT_GRACE_S)
        for seat in late:
            try:
                if seat.process.exit_status is None:
                    seat.process.send_line(b'{"type":"quit"}\n', deadline)
            except BotFailure:
                pass
        quitting += late
    for seat in quitting:
        seat.process.thaw()
        seat.process.wait_for_exit(deadline)
        seat.shut_down()


__all__ = ["BotError", "Limits", "MatchResult", "MatchSpec", "SeatResult", "STATUSES",
           "derive_seed", "parse_reply", "play_match", "retire", "strip_timing"]
