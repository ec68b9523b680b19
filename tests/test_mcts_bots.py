"""The MCTS reference bots (bots/<game>_mcts.py): clearly stronger than the game's heuristic
bot, legal in every variant, and speaking the protocol (several matches in one process).

The strength tests play in-process: the engine, the MCTS bot's search with a fixed playout
budget and the heuristic bot's decision function, with fixed seeds, on a pool of two worker
processes. They are deterministic and small (20 deals, each dealt twice); the figures over
100 deals (STRENGTH, measured with bench/mcts.py) are well above the 65 % the tests require.
"""

from __future__ import annotations

import importlib.util
import json
import multiprocessing
import random
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import get_game
from waiting import PATIENCE

REPO = Path(__file__).resolve().parents[1]
BOTS = REPO / "bots"
ARENA = Path(sys.executable).parent / "arena"
GAMES = ("five-towers", "agent-avenue", "fifth-avenue")
TIME = {"decision_ms": 1000, "bank_ms": 10000}
REQUIRED = 0.65  # of the points: win 1, tie 0.5, loss 0

# game -> (playouts per decision in the strength test, the points bench/mcts.py measured over 200 matches)
STRENGTH = {
    "five-towers": (10, 0.902),
    "agent-avenue": (250, 0.835),
    "fifth-avenue": (15, 0.82),
}
DEALS = 20  # each dealt twice, the MCTS bot in seat 0 and in seat 1 (bench/mcts.py plays 100)


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stem(game: str) -> str:
    return game.replace("-", "_")


MCTS = {game: load(BOTS / f"{stem(game)}_mcts.py", f"{stem(game)}_mcts") for game in GAMES}
HEURISTIC = {game: load(BOTS / f"{stem(game)}_heuristic.py", f"{stem(game)}_heuristic") for game in GAMES}


def request_for(state, step: int) -> dict:
    """The request the harness would send, after the same JSON round trip."""
    seat = state.current_seat()
    return json.loads(json.dumps({"type": "request", "seat": seat, "step": step,
                                  "observation": state.observation(seat), "legal": state.legal_actions(),
                                  "time": TIME}))


def action_of(reply: dict, request: dict):
    assert set(reply) <= {"type", "action", "index", "debug"} and reply.get("type", "action") == "action"
    assert ("action" in reply) != ("index" in reply)
    if "index" in reply:
        assert type(reply["index"]) is int and 0 <= reply["index"] < len(request["legal"])
        return request["legal"][reply["index"]]
    return reply["action"]


def play_against_heuristic(args) -> float:
    """One two-player match in-process: the MCTS bot's points (1, 0.5 or 0)."""
    game, deal, mcts_seat, playouts = args
    state = get_game(game).new_game(2, deal)
    bot = MCTS[game].Bot(playouts=playouts)
    bot.start({"type": "start", "seed": 7919 * deal + mcts_seat})
    step = 0
    while not state.is_over():
        request = request_for(state, step)
        if request["seat"] == mcts_seat:
            action = action_of(bot.choose(request), request)
            if game != "five-towers":  # a Five Towers build may come in another valid order
                assert action in request["legal"]
        else:
            action = action_of(HEURISTIC[game].choose(request), request)
        state.apply(action)
        step += 1
    ranks = state.ranks()
    mine, other = ranks[mcts_seat], ranks[1 - mcts_seat]
    return 1.0 if mine < other else 0.5 if mine == other else 0.0


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_mcts_bot_beats_the_heuristic_bot_clearly(game):
    playouts, measured = STRENGTH[game]
    jobs = [(game, deal, seat, playouts) for deal in range(1, DEALS + 1) for seat in (0, 1)]
    with multiprocessing.get_context("fork").Pool(2) as pool:
        points = pool.map(play_against_heuristic, jobs, chunksize=1)
    share = sum(points) / len(points)
    print(f"{game}: {100 * share:.1f} % of the points over {len(points)} matches ({playouts} playouts)")
    assert share >= REQUIRED, (f"{game}: the MCTS bot scored {100 * share:.1f} % of the points against the "
                               f"heuristic bot over {len(points)} matches (measured before: {100 * measured:.1f} %)")


# ------------------------------------------------------------------ legal everywhere


def variants(game: str) -> list[tuple[int, dict]]:
    extra = {"agent-avenue": {"advanced": True}, "fifth-avenue": {"board": "6-plot"}}.get(game)
    cases = [(players, {}) for players in get_game(game).player_counts]
    if extra:
        cases += [(players, extra) for players in get_game(game).player_counts]
    return cases


LEGAL_CASES = [(game, players, options) for game in GAMES for players, options in variants(game)]


@pytest.mark.parametrize("game,players,options", LEGAL_CASES,
                         ids=[f"{g}-{p}p-{','.join(f'{k}={v}' for k, v in o.items()) or 'default'}"
                              for g, p, o in LEGAL_CASES])
def test_mcts_bot_decisions_are_legal(game, players, options):
    """A whole match with the MCTS bot (a small budget) in seat 0 (and the last seat), random
    play in the others: every reply of the bot is legal."""
    state = get_game(game).new_game(players, 11 * players, options)
    seats = (0,) if players == 2 else (0, players - 1)
    bots = {seat: MCTS[game].Bot(playouts=8) for seat in seats}
    for seat, bot in bots.items():
        bot.start({"type": "start", "seed": seat})
    rng = random.Random(players)
    step = 0
    while not state.is_over():
        request = request_for(state, step)
        if request["seat"] not in bots:
            state.apply(rng.choice(request["legal"]))
            step += 1
            continue
        action = action_of(bots[request["seat"]].choose(request), request)
        if game == "five-towers":
            state.apply(action)  # IllegalAction if the build is not valid
        else:
            assert action in request["legal"]
            state.apply(action)
        step += 1


@pytest.mark.parametrize("game", GAMES)
def test_search_is_deterministic_with_a_playout_budget(game):
    state = get_game(game).new_game(2, 5)
    rng = random.Random(5)
    for _ in range(9):  # a little way into the game
        state.apply(state.random_action(rng))
    request = request_for(state, 9)
    replies = []
    for _ in range(2):
        bot = MCTS[game].Bot(playouts=30)
        bot.start({"type": "start", "seed": 99})
        replies.append(bot.choose(request))
    assert replies[0] == replies[1]


# ------------------------------------------------------------------ the protocol


class Pipe:
    def __init__(self, argv: list[str]):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def ask(self, message: dict) -> dict:
        self.send(message)
        line = self.process.stdout.readline()
        assert line.endswith("\n"), self.process.stderr.read()[-2000:] if self.process.poll() is not None else ""
        return json.loads(line)


def pipe_match(pipe: Pipe, game: str, seed: int, seat: int, decisions: int) -> list:
    """A match over the pipe for ``decisions`` of the bot's decisions (then the end message)."""
    state = get_game(game).new_game(2, seed)
    ready = pipe.ask({"type": "start", "protocol": 2, "game": game, "options": {}, "seat": seat, "players": 2,
                      "seed": seed, "limits": {"start_ms": 5000, "decision_ms": 1000, "bank_ms": 10000}})
    assert ready["type"] == "ready" and ready["matches"] == "many"
    rng = random.Random(seed)
    chosen = []
    step = 0
    while not state.is_over() and len(chosen) < decisions:
        request = request_for(state, step)
        if request["seat"] == seat:
            action = action_of(pipe.ask(request), request)
            chosen.append(action)
        else:
            action = rng.choice(request["legal"])
        state.apply(action)
        step += 1
    pipe.send({"type": "end", "seat": seat, "scores": [0, 0], "ranks": [1, 1], "statuses": ["ok", "ok"],
               "teams": None})
    return chosen


@pytest.mark.parametrize("game", GAMES)
def test_mcts_bot_plays_several_matches_over_the_protocol(game):
    """start, requests, end, start again (the same seed: the same choices), quit."""
    pipe = Pipe([sys.executable, str(BOTS / f"{stem(game)}_mcts.py"), "--playouts", "20"])
    try:
        first = pipe_match(pipe, game, 3, 1, 6)
        pipe.send({"type": "unknown-message", "x": 1})
        second = pipe_match(pipe, game, 3, 1, 6)
        assert first and first == second
        pipe.send({"type": "quit"})
        assert pipe.process.wait(timeout=PATIENCE) == 0
    finally:
        if pipe.process.poll() is None:
            pipe.process.kill()
            pipe.process.wait()


@pytest.mark.parametrize("game", GAMES)
def test_mcts_bot_finishes_a_sandboxed_match_against_the_heuristic(game):
    """A real `arena match` in the sandbox with the default time budget: the bot imports
    arena's engine there (bound read-only) and never exceeds its clock."""
    done = subprocess.run([str(ARENA), "match", game, str(BOTS / f"{stem(game)}_mcts.py"),
                           str(BOTS / f"{stem(game)}_heuristic.py"), "--seed", "2", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    seat = json.loads(done.stdout)["seats"][0]
    assert seat["status"] == "ok", (seat["error"], seat["stderr"][-1000:])
