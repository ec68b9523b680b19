"""The bundled Fifth Avenue heuristic bot: legal, quick, never crashing, and clearly better
than a random bot."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_fifth_avenue_support import GAME

BOTS = Path(__file__).resolve().parents[2] / "bots"
sys.path.insert(0, str(BOTS))
import fifth_avenue_heuristic as heuristic  # noqa: E402

VARIANTS = [(players, board) for players in (2, 3, 4) for board in ("5-plot", "6-plot")]


def request(state, step):
    """The request exactly as the harness sends it (after a JSON round trip)."""
    seat = state.current_seat()
    message = {"type": "request", "seat": seat, "step": step, "observation": state.observation(seat),
               "legal": state.legal_actions(), "time": {"decision_ms": 1000, "bank_ms": 10000}}
    return json.loads(json.dumps(message))


def play(players, board, seed, heuristic_seats):
    """One game; the other seats pick a uniformly random listed action (the random bot)."""
    state = GAME.new_game(players, seed, {"board": board})
    rng = random.Random(seed)
    step = 0
    timings = []
    while not state.is_over():
        message = request(state, step)
        if state.current_seat() in heuristic_seats:
            started = time.perf_counter()
            reply = heuristic.choose(message)
            timings.append(time.perf_counter() - started)
            assert set(reply) <= {"type", "action", "index", "debug"}
            action = reply["action"] if "action" in reply else message["legal"][reply["index"]]
            assert action in message["legal"]
        else:
            action = rng.choice(message["legal"])
        state.apply(action)
        step += 1
    return state, timings


def test_heuristic_beats_the_random_bot_clearly_over_100_games():
    wins = 0
    for seed in range(100):
        players, board = VARIANTS[seed % len(VARIANTS)]
        seat = seed % players
        state, _ = play(players, board, 1000 + seed, {seat})
        wins += state.ranks()[seat] == 1
    # A random seat wins about 1/3 of these games; the heuristic must win at least 80.
    assert wins >= 80


@pytest.mark.parametrize("players, board", VARIANTS)
def test_heuristic_self_play_is_legal_and_quick_in_every_variant(players, board):
    for seed in range(2):
        state, timings = play(players, board, seed, set(range(players)))
        assert state.is_over() and state.end_reason != "turn limit"
        # Typically about 1 ms, at most about 10 ms; the bounds leave room for a busy machine.
        assert sum(timings) / len(timings) < 0.01 and max(timings) < 0.25


def test_heuristic_speaks_the_protocol():
    state = GAME.new_game(2, 1)
    lines = [
        {"type": "start", "protocol": 1, "game": "fifth-avenue", "options": {"board": "5-plot"}, "seat": 0,
         "players": 2, "seed": 1, "limits": {}},
        request(state, 0),
        {"type": "quit"},
    ]
    result = subprocess.run([sys.executable, str(BOTS / "fifth_avenue_heuristic.py")],
                            input="".join(json.dumps(line) + "\n" for line in lines),
                            capture_output=True, text=True, timeout=20)
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    assert replies[0]["type"] == "ready"
    assert replies[1]["action"] in state.legal_actions()
    assert result.returncode == 0 and len(replies) == 2
