"""The bundled Agent Avenue heuristic bot: it beats the random policy clearly (fixed seeds,
requests built exactly as the harness builds them), replies legally in every variant, and
speaks protocol v1 as a process."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import get_game

BOT_PATH = Path(__file__).resolve().parents[2] / "bots" / "agent_avenue_heuristic.py"
GAME = get_game("agent-avenue")


def load_bot():
    spec = importlib.util.spec_from_file_location("agent_avenue_heuristic", BOT_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BOT = load_bot()


def request(state, step):
    seat = state.current_seat()
    return {"type": "request", "seat": seat, "step": step, "observation": state.observation(seat),
            "legal": state.legal_actions(), "time": {"decision_ms": 1000, "bank_ms": 10000}}


def reply_action(reply, legal):
    assert set(reply) <= {"type", "action", "index", "debug"}
    if "index" in reply:
        return legal[reply["index"]]
    return reply["action"]


def play(players, advanced, seed, heuristic_team):
    """One game: the heuristic plays every seat of ``heuristic_team``, a seeded random policy the rest."""
    state = GAME.new_game(players, seed, {"advanced": advanced})
    rng = random.Random(seed * 7 + 1)
    step = 0
    while not state.is_over():
        message = json.loads(json.dumps(request(state, step)))
        if state.side_of[message["seat"]] == heuristic_team:
            action = reply_action(BOT.choose(message), message["legal"])
        else:
            action = rng.choice(message["legal"])
        state.apply(action)
        step += 1
    return state.winner == heuristic_team


@pytest.mark.parametrize("advanced", [False, True])
def test_the_heuristic_beats_random_clearly_over_200_two_player_games(advanced):
    wins = sum(play(2, advanced, seed, heuristic_team=seed % 2) for seed in range(200))
    assert wins >= 140, f"heuristic won only {wins} of 200"  # measured: 168 (base), 169 (advanced)


@pytest.mark.parametrize("players", [3, 4])
def test_the_heuristic_team_beats_random_in_the_team_variant(players):
    wins = sum(play(players, seed % 3 == 0, seed, heuristic_team=seed % 2) for seed in range(60))
    assert wins >= 40, f"heuristic won only {wins} of 60"  # measured: 54 (3 players), 51 (4)


@pytest.mark.parametrize("players, advanced", [(2, False), (2, True), (3, False), (3, True), (4, False), (4, True)])
def test_the_heuristic_always_chooses_a_listed_action_itself(players, advanced):
    for seed in range(15):
        state = GAME.new_game(players, seed, {"advanced": advanced})
        step = 0
        while not state.is_over():
            message = request(state, step)
            reply = BOT.choose(message)
            assert "action" in reply and reply["action"] in message["legal"]  # no fallback needed
            state.apply(reply["action"])
            step += 1


def test_the_heuristic_speaks_protocol_v1_as_a_process():
    state = GAME.new_game(2, 5, {})
    start = {"type": "start", "protocol": 1, "game": "agent-avenue", "options": {"advanced": False}, "seat": 0,
             "players": 2, "seed": 5, "limits": {"start_ms": 5000, "decision_ms": 1000, "bank_ms": 10000,
                                                 "max_line_bytes": 1048576, "max_output_bytes": 8388608}}
    lines = [start, request(state, 0), {"type": "end", "seat": 0, "scores": [1, 0], "ranks": [1, 2],
                                        "statuses": ["ok", "ok"], "teams": None}, {"type": "quit"}]
    result = subprocess.run([sys.executable, str(BOT_PATH)], input="".join(json.dumps(m) + "\n" for m in lines),
                            capture_output=True, text=True, timeout=20)
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.returncode == 0
    assert replies[0]["type"] == "ready"
    assert len(replies) == 2 and replies[1]["action"] in state.legal_actions()
