"""A fixed set of recorded requests for a game, and one bot's decisions on them (`arena similar`).

`replay_set` plays games of the engine with a seeded random legal policy (cycling through the
game's player counts) and keeps a sample of their decision points that have a real choice
(at least two legal actions): each is the exact ``request`` the match runner would send that
seat there (`arena.runner.match.request_message`). The set depends only on the game, its size
and the seed, so every bot is asked the same questions.

`replay` puts one bot through the set in the sandbox as the harness does. The requests of one
seat in one recorded game form one short *match*: ``start`` (that seat, the game's player count
and options, a fixed seed the same for every bot), the seat's requests in step order, and
``end`` with the recorded game's final scores. A bot that said ``"matches": "many"`` plays the
next of these matches in the same process (never a deal it has seen, as in a tournament); any
other bot gets ``quit`` and a fresh process. Every request carries the full observation
(docs/protocol.md), so a bot needs no memory of the requests before it; the seat's earlier
actions in such a match were the recorder's, not the bot's. A decision is the action the bot
named, by value or by index, in its listed form; a failure (timeout, crash, protocol, illegal
action) ends that match for the bot and leaves its remaining decisions in it unknown (``None``).
"""

from __future__ import annotations

import copy
import random
import time
from dataclasses import dataclass, field

import orjson

from arena.games import IllegalAction, get_game
from arena.runner import protocol
from arena.runner.bots import BotError
from arena.runner.files import BotFilesError
from arena.runner.livebots import LiveBots
from arena.runner.match import Limits, derive_seed, end_message, request_message, start_message
from arena.runner.process import BotFailure
from arena.runner.protocol import ReplyError, quote_line
from arena.runner.sandbox import BotChanged, Protections, detect

SEED = 20240523
SIZE = 300
PER_GAME = 10  # decision points kept from one recorded game
QUIT_GRACE_S = 1.0


@dataclass
class Request:
    step: int
    observation: dict
    legal: list | None
    state: object  # the engine's state there, to judge an action that is not listed


@dataclass
class Group:
    """One seat's requests from one recorded game: replayed as one short match."""

    deal: int           # the recorded game's seed
    players: int
    seat: int
    options: dict
    bot_seed: int       # sent in start: the same for every bot
    scores: list
    ranks: list
    teams: list | None
    requests: list[Request] = field(default_factory=list)


@dataclass
class ReplaySet:
    game: str
    seed: int
    groups: list[Group]

    def __len__(self) -> int:
        return sum(len(group.requests) for group in self.groups)


@dataclass
class Replay:
    """One bot's decisions, one per request of the set in order (None: no decision there)."""

    decisions: list
    failures: list[str]   # one line per failed match (its first failure)
    seconds: float
    error: str | None = None  # the bot could not be replayed at all (it cannot start, files changed)


def replay_set(game_name: str, size: int = SIZE, seed: int = SEED, per_game: int = PER_GAME) -> ReplaySet:
    """``size`` decision points with a choice, from seeded random games (see the module docstring)."""
    if size < 1:
        raise ValueError("the replay set needs at least one request")
    game = get_game(game_name)
    counts = sorted(game.player_counts)
    groups: list[Group] = []
    total = 0
    for number in range(100_000):
        if total >= size:
            break
        players = counts[number % len(counts)]
        deal = derive_seed(seed, game_name, "game", number)
        options = game.validate(players, {})
        points = _choices(game, players, deal, options)
        picker = random.Random(derive_seed(deal, "sample"))
        steps = set(picker.sample(sorted(points), min(per_game, len(points), size - total)))
        state = game.create_state(players, deal, options)
        policy = random.Random(derive_seed(deal, "policy"))
        by_seat: dict[int, list[Request]] = {}
        step = 0
        while not state.is_over():
            if step in steps:
                seat = state.current_seat()
                by_seat.setdefault(seat, []).append(
                    Request(step, state.observation(seat), state.legal_actions(), copy.deepcopy(state)))
            state.apply(state.random_action(policy))
            step += 1
        scores, ranks, teams = state.scores(), state.ranks(), state.teams()
        for seat in sorted(by_seat):
            groups.append(Group(deal, players, seat, options, derive_seed(seed, "bot", deal, seat),
                                scores, ranks, teams, by_seat[seat]))
            total += len(by_seat[seat])
    else:  # pragma: no cover - every game has choices
        raise RuntimeError(f"{game_name}: too few decisions with a choice for a replay set of {size}")
    return ReplaySet(game_name, seed, groups)


def _choices(game, players: int, deal: int, options: dict) -> list[int]:
    """The steps of the recorded game where the seat on move has a real choice."""
    state = game.create_state(players, deal, options)
    policy = random.Random(derive_seed(deal, "policy"))
    found, step = [], 0
    while not state.is_over():
        legal = state.legal_actions()
        if legal is None or len(legal) > 1:
            found.append(step)
        state.apply(state.random_action(policy))
        step += 1
    return found


def replay(path: str, requests: ReplaySet, expected_hash: str | None = None, limits: Limits | None = None,
           protections: Protections | None = None) -> Replay:
    """The bot at ``path`` put through ``requests`` in the sandbox (see the module docstring)."""
    limits = limits or Limits()
    began = time.monotonic()
    decisions: list = []
    failures: list[str] = []
    bots = LiveBots(protections or detect(), keep=max(group.players for group in requests.groups) + 1)
    try:
        for group in requests.groups:
            answers, failure = _play_group(bots, path, expected_hash, requests.game, group, limits)
            decisions += answers
            if failure:
                failures.append(f"game {group.deal} seat {group.seat}: {failure}")
    except (BotError, BotFilesError, BotChanged) as error:
        return Replay([None] * len(requests), failures, time.monotonic() - began, str(error))
    finally:
        bots.close()
    return Replay(decisions, failures, time.monotonic() - began)


def _play_group(bots: LiveBots, path: str, expected_hash: str | None, game: str, group: Group,
                limits: Limits) -> tuple[list, str | None]:
    """One short match: start, the group's requests, end. Returns the decisions and the failure."""
    answers: list = [None] * len(group.requests)
    seated = bots.checkout(path, limits.for_kernel(), limits.max_line_bytes, limits.max_output_bytes,
                           expected_hash, label=f"replay seat {group.seat}", deal=group.deal)
    process = seated.process
    try:
        if not seated.reused:
            process.start()
        else:
            process.thaw()  # a kept process waits frozen between matches
        deadline = time.monotonic() + limits.start_ms / 1000
        # Replays run on the wall clock: only the choices are compared, not the time they took.
        start = start_message(game, group.options, group.seat, group.players, group.bot_seed, limits, clock="wall")
        process.send_line(protocol.encode(start), deadline)
        try:
            ready = protocol.parse_ready(process.receive(deadline))
        except ReplyError as error:
            raise BotFailure("protocol", f"start-up: {error}") from None
        command = seated.staged.command
        wants_many = command.matches == "many" or (command.matches != "one" and ready.get("matches") == "many")
        bank_s = limits.bank_ms / 1000
        for index, request in enumerate(group.requests):
            message = request_message(group.seat, request.step, request.observation, request.legal,
                                      {"clock": "wall", "decision_ms": limits.decision_ms, "bank_ms": round(bank_s * 1000),
                                       "wall_cap_ms": round((limits.decision_ms / 1000 + bank_s) * 1000)})
            if process.has_unrequested_output():
                raise BotFailure("limit", "wrote more than one line for one request")
            asked = time.monotonic()
            deadline = asked + limits.decision_ms / 1000 + bank_s
            process.send_line(protocol.encode(message), deadline)
            line = process.receive(deadline)
            bank_s -= max(0.0, time.monotonic() - asked - limits.decision_ms / 1000)
            try:
                action, _ = protocol.parse_reply(line, request.legal)
            except ReplyError as error:
                raise BotFailure("protocol", f"step {request.step}: {error}: {quote_line(line)}") from None
            answers[index] = decision_key(action, request)
            if answers[index] is None:
                raise BotFailure("illegal", f"step {request.step}: {protocol.quote(action)}")
        _end(bots, seated, group, wants_many)
        return answers, None
    except BotFailure as failure:
        process.stop()
        return answers, f"{failure.status}: {failure.message}"
    except BaseException:  # Ctrl-C, or the harness's own error: the bot must not outlive it
        process.stop()
        raise


def _end(bots: LiveBots, seated, group: Group, wants_many: bool) -> None:
    """Send end; keep a process that plays many matches for the next group, else quit it."""
    process = seated.process
    deadline = time.monotonic() + QUIT_GRACE_S
    end = end_message(group.seat, group.scores, group.ranks, ["ok"] * group.players, group.teams)
    try:
        process.send_line(protocol.encode(end), deadline)
        if wants_many and process.settle(deadline):
            bots.checkin(seated)
            return
        process.send_line(b'{"type":"quit"}\n', deadline)
        process.wait_for_exit(deadline)
    except BotFailure:
        pass  # its decisions are in; a bot that stops listening at the end changes nothing
    process.stop()


def decision_key(action, request: Request) -> str | None:
    """The action as comparable text: its listed form, else the action itself when the game
    accepts it there; None for an action the game refuses."""
    chosen = protocol.listed(action, request.legal)
    if chosen is None:
        try:
            copy.deepcopy(request.state).apply(action)
        except IllegalAction:
            return None
        except Exception:  # the game could not even read it
            return None
        chosen = action
    return orjson.dumps(chosen, option=orjson.OPT_SORT_KEYS).decode()
