"""Play one match: a game engine plus one sandboxed bot process per seat.

Owns the protocol's message flow (start, request, action, end, quit), the clocks (start-up
deadline, per-decision allowance, time bank), failure classification and the fallback policy:
a seat whose bot failed is played by a seeded random legal action from then on, so the others'
match stays meaningful, and is ranked last. Returns a plain ``MatchResult``; never raises
because of a bot. Bad input from the user (unknown game, wrong bot count, bad option, missing
bot file) raises ``GameError``/``BotError`` before any process starts.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone

from arena.runner.bots import BotError, resolve_bot
from arena.games import IllegalAction, get_game
from arena.runner.process import BotFailure, BotProcess
from arena.runner.sandbox import Protections, ResourceLimits, detect_protections

PROTOCOL_VERSION = 1
DEBUG_CHARS = 200
QUIT_GRACE_S = 1.0
MAX_STEPS = 100_000
FLOOD_WINDOW_S = 0.01
UNREQUESTED = "wrote more than one line for one request (stdout is for protocol lines only; log to stderr)"
STATUSES = ("ok", "timeout", "crash", "illegal", "protocol", "limit")


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

    def for_protocol(self) -> dict:
        return {"start_ms": self.start_ms, "decision_ms": self.decision_ms, "bank_ms": self.bank_ms,
                "max_line_bytes": self.max_line_bytes, "max_output_bytes": self.max_output_bytes}

    def for_kernel(self) -> ResourceLimits:
        return ResourceLimits(memory_bytes=self.memory_mb << 20, cpu_seconds=self.cpu_seconds,
                              processes=self.processes)


@dataclass
class MatchSpec:
    """What to play: the game, one bot path per seat, the seed, options and limits."""

    game: str
    bots: list
    seed: int
    options: dict = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)


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
        return asdict(self)


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed derived from ``seed`` and labels; stable across runs and platforms."""
    text = ":".join(map(str, (seed, *labels))).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


TIMING_KEYS = ("ms", "time")


def strip_timing(log: list[dict]) -> list[dict]:
    """The log without its measured times: what must be identical when a match is replayed."""
    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in TIMING_KEYS}
        return value
    return [clean(event) for event in log]


class ReplyError(Exception):
    """A reply line that breaks the protocol."""


def parse_reply(line: bytes, legal: list | None) -> tuple[object, str | None]:
    """The action a reply line names, and its debug text; ``ReplyError`` if malformed."""
    try:
        reply = json.loads(line)
    except (ValueError, UnicodeDecodeError) as error:
        raise ReplyError(f"reply is not valid JSON ({error})") from None
    if not isinstance(reply, dict):
        raise ReplyError(f"reply must be a JSON object, got {type(reply).__name__}")
    if reply.get("type", "action") != "action":
        raise ReplyError(f"reply type must be \"action\", got {reply.get('type')!r}")
    debug = reply.get("debug")
    if debug is not None and not isinstance(debug, str):
        raise ReplyError("'debug' must be a string")
    has_action, has_index = "action" in reply, "index" in reply
    if has_action == has_index:
        raise ReplyError("reply must have exactly one of 'action' and 'index'")
    if has_action:
        return reply["action"], debug
    index = reply["index"]
    if legal is None:
        raise ReplyError("'index' is only allowed when the request lists legal actions")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(legal):
        raise ReplyError(f"'index' must be a whole number from 0 to {len(legal) - 1}, got {index!r}")
    return legal[index], debug


def parse_ready(line: bytes) -> None:
    try:
        reply = json.loads(line)
    except (ValueError, UnicodeDecodeError) as error:
        raise ReplyError(f"answer to start is not valid JSON ({error})") from None
    if not isinstance(reply, dict) or reply.get("type") != "ready":
        raise ReplyError('answer to start must be {"type": "ready"}')


class Seat:
    """One seat's bot, clock and status during a match."""

    def __init__(self, index: int, path: str, limits: Limits):
        self.index = index
        self.path = path
        self.status = "ok"
        self.error: str | None = None
        self.bank_s = limits.bank_ms / 1000
        self.time_s = 0.0
        self.decisions = 0
        self.process: BotProcess | None = None
        self.stderr = ""

    @property
    def failed(self) -> bool:
        return self.status != "ok"

    def fail(self, status: str, message: str) -> None:
        if not self.failed:
            self.status, self.error = status, message
        self.shut_down()

    def shut_down(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.stderr = self.process.stderr.text()
            self.process = None


def play_match(spec: MatchSpec, protections: Protections | None = None) -> MatchResult:
    """Play ``spec`` to the end and return the result (see the module docstring).

    ``protections`` forces a weaker sandbox mode than the machine offers (for tests).
    """
    game = get_game(spec.game)
    players = len(spec.bots)
    options = game.validate(players, spec.options)  # refuses a bad count or option
    state = game.create_state(players, int(spec.seed), options)
    commands = [resolve_bot(path) for path in spec.bots]
    limits = spec.limits
    protections = protections or detect_protections()
    fallback = random.Random(derive_seed(spec.seed, "fallback"))
    seats = [Seat(i, str(path), limits) for i, path in enumerate(spec.bots)]
    log: list[dict] = []
    started_at = datetime.now(timezone.utc)
    began = time.monotonic()
    try:
        _start_bots(seats, commands, spec, options, protections, log)
        step = 0
        while not state.is_over():
            if step >= MAX_STEPS:
                # Every game ends far sooner; a rules bug must not hang a whole tournament.
                raise RuntimeError(f"{spec.game} did not end within {MAX_STEPS} decisions (seed {spec.seed})")
            seat = seats[state.current_seat()]
            action = _decide(seat, state, step, limits, log)
            if action is None:
                action = state.random_action(fallback)
                log.append({"event": "action", "seat": seat.index, "step": step, "action": action,
                            "by": "fallback"})
                state.apply(action)
            step += 1
        result_ranks = _final_ranks(state, seats)
        _finish_bots(seats, state, result_ranks, log)
    finally:
        for seat in seats:
            seat.shut_down()
    ended_at = datetime.now(timezone.utc)
    scores = state.scores()
    seat_results = [
        SeatResult(s.index, s.path, s.status, scores[s.index], result_ranks[s.index],
                   round(s.time_s * 1000, 3), s.decisions, s.error, s.stderr)
        for s in seats
    ]
    return MatchResult(spec.game, options, spec.seed, players, state.teams(), scores, result_ranks,
                       seat_results, log, {**protections.as_dict(), **asdict(limits)},
                       started_at.isoformat(), ended_at.isoformat(),
                       round((time.monotonic() - began) * 1000, 3))


def _start_bots(seats, commands, spec, options, protections, log) -> None:
    limits = spec.limits
    for seat, command in zip(seats, commands):
        seat.process = BotProcess(command, seat.index, limits.for_kernel(), limits.max_line_bytes,
                                  limits.max_output_bytes, protections)
        try:
            seat.process.start()
        except BotFailure as failure:
            seat.fail(failure.status, f"start-up: {failure.message}")
    started = time.monotonic()
    deadline = started + limits.start_ms / 1000
    # Send every start message first, then collect the answers: bots start in parallel.
    for seat in seats:
        if seat.failed:
            continue
        message = {"type": "start", "protocol": PROTOCOL_VERSION, "game": spec.game, "options": options,
                   "seat": seat.index, "players": len(seats), "seed": derive_seed(spec.seed, "bot", seat.index),
                   "limits": limits.for_protocol()}
        log.append({"event": "start", "seat": seat.index, "message": message})
        try:
            seat.process.send(message, deadline)
        except BotFailure as failure:
            _fail_at_start(seat, failure.status, failure.message, log)
    for seat in seats:
        if seat.failed:
            continue
        try:
            line = seat.process.receive(deadline)
            log.append({"event": "ready", "seat": seat.index, "line": line[:4096].decode("utf-8", "replace"),
                        "ms": round((time.monotonic() - started) * 1000, 3)})
            parse_ready(line)
        except BotFailure as failure:
            text = "no ready answer within the start-up deadline" if failure.status == "timeout" else failure.message
            _fail_at_start(seat, failure.status, text, log)
        except ReplyError as error:
            _fail_at_start(seat, "protocol", f"{error}: {line[:200].decode('utf-8', 'replace')!r}", log)


def _fail_at_start(seat: Seat, status: str, message: str, log: list) -> None:
    seat.fail(status, f"start-up: {message}")
    log.append({"event": "failure", "seat": seat.index, "step": None, "status": seat.status, "error": seat.error})


def _decide(seat: Seat, state, step: int, limits: Limits, log: list) -> object | None:
    """Ask the seat's bot and apply its action; None when the seat must be played by fallback."""
    if seat.failed:
        return None
    legal = state.legal_actions()
    request = {"type": "request", "seat": seat.index, "step": step,
               "observation": state.observation(seat.index), "legal": legal,
               "time": {"decision_ms": limits.decision_ms, "bank_ms": round(seat.bank_s * 1000)}}
    log.append({"event": "request", "seat": seat.index, "step": step, "message": request})
    process = seat.process
    asked = time.monotonic()
    deadline = asked + limits.decision_ms / 1000 + seat.bank_s
    try:
        if process.has_unrequested_output():
            raise BotFailure("limit", UNREQUESTED)
        process.send(request, deadline)
        line = process.receive(deadline)
    except BotFailure as failure:
        seat.time_s += time.monotonic() - asked  # a timed-out decision used its time too
        return _fail(seat, failure.status, f"step {step}: {failure.message}", step, log)
    elapsed = time.monotonic() - asked
    seat.time_s += elapsed
    seat.decisions += 1
    seat.bank_s -= max(0.0, elapsed - limits.decision_ms / 1000)
    log.append({"event": "reply", "seat": seat.index, "step": step,
                "line": line[:4096].decode("utf-8", "replace"), "ms": round(elapsed * 1000, 3)})
    try:
        action, debug = parse_reply(line, legal)
    except ReplyError as error:
        error = f"{error}: {line[:200].decode('utf-8', 'replace')!r}"
        # A flood of output is an output-limit failure even when its first line is garbage:
        # a bot that wrote one bad line writes nothing more, a flooding bot does within 10 ms.
        if _unrequested(process, within=FLOOD_WINDOW_S):
            return _fail(seat, "limit", f"step {step}: {UNREQUESTED}", step, log)
        return _fail(seat, "protocol", f"step {step}: {error}", step, log)
    if _unrequested(process):
        return _fail(seat, "limit", f"step {step}: {UNREQUESTED}", step, log)
    try:
        state.apply(action)
    except IllegalAction as error:
        return _fail(seat, "illegal", f"step {step}: {error.reason}", step, log)
    event = {"event": "action", "seat": seat.index, "step": step, "action": action, "by": "bot"}
    if debug:
        event["debug"] = debug[:DEBUG_CHARS]
    log.append(event)
    return action


def _unrequested(process: BotProcess, within: float = 0.0) -> bool:
    try:
        return process.has_unrequested_output(within)
    except BotFailure:
        return True  # over the output limit or a line too long while flooding


def _fail(seat: Seat, status: str, message: str, step: int, log: list) -> None:
    """Record the seat's failure; the caller then plays the seat by the fallback policy."""
    seat.fail(status, message)
    log.append({"event": "failure", "seat": seat.index, "step": step, "status": seat.status,
                "error": seat.error})
    return None


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


def _finish_bots(seats: list[Seat], state, ranks: list[int], log: list) -> None:
    statuses = [s.status for s in seats]
    end = {"type": "end", "scores": state.scores(), "ranks": ranks, "statuses": statuses,
           "teams": state.teams()}
    log.append({"event": "end", **{k: v for k, v in end.items() if k != "type"}})
    deadline = time.monotonic() + QUIT_GRACE_S
    live = [s for s in seats if not s.failed and s.process is not None]
    for seat in live:
        try:
            seat.process.send({**end, "seat": seat.index}, deadline)
            seat.process.send({"type": "quit"}, deadline)
        except BotFailure:
            pass  # the match is over; a bot that stops listening now changes nothing
    for seat in live:
        seat.process.wait_for_exit(deadline)
        seat.shut_down()


__all__ = ["BotError", "Limits", "MatchResult", "MatchSpec", "SeatResult", "STATUSES",
           "derive_seed", "parse_reply", "play_match", "strip_timing"]
