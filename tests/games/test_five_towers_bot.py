"""The heuristic Five Towers bot: it speaks protocol v1 and clearly beats random play."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

from arena.games import get_game

BOT_PATH = Path(__file__).resolve().parents[2] / "bots" / "five_towers_heuristic.py"
GAME = get_game("five-towers")
TIME = {"decision_ms": 1000, "bank_ms": 10000}


def load_bot():
    spec = importlib.util.spec_from_file_location("five_towers_heuristic", BOT_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def request_for(state, step):
    """The request the harness would send, after the same JSON round trip."""
    seat = state.current_seat()
    message = {"type": "request", "seat": seat, "step": step, "observation": state.observation(seat),
               "legal": state.legal_actions(), "time": TIME}
    return json.loads(json.dumps(message))


def action_from(reply, request):
    assert set(reply) <= {"type", "action", "index", "debug"} and reply.get("type", "action") == "action"
    assert ("action" in reply) != ("index" in reply)
    if "index" in reply:
        return request["legal"][reply["index"]]
    return reply["action"]


def play_against_random(bot, players, seed, bot_seat):
    state = GAME.new_game(players, seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_over():
        if state.current_seat() == bot_seat:
            request = request_for(state, step)
            state.apply(action_from(bot.choose(request), request))
        else:
            state.apply(state.random_action(rng))
        step += 1
    return state


def test_heuristic_bot_beats_random_play_in_two_player_games():
    bot = load_bot()
    games = 100
    wins = 0
    for seed in range(games):
        bot_seat = seed % 2
        state = play_against_random(bot, 2, seed, bot_seat)
        wins += state.ranks()[bot_seat] == 1 and state.ranks().count(1) == 1
    assert wins / games >= 0.85, f"the heuristic bot won only {wins} of {games} games against random play"


def test_heuristic_bot_beats_random_play_in_four_player_games():
    bot = load_bot()
    games = 40
    wins = sum(play_against_random(bot, 4, 500 + seed, seed % 4).ranks()[seed % 4] == 1 for seed in range(games))
    assert wins / games >= 0.6, f"the heuristic bot won only {wins} of {games} four-player games"


def test_heuristic_bot_speaks_protocol_v1_over_stdin_and_stdout():
    state = GAME.new_game(2, 3)
    start = {"type": "start", "protocol": 1, "game": "five-towers", "options": {}, "seat": 0, "players": 2,
             "seed": 3, "limits": {"start_ms": 5000, "decision_ms": 1000, "bank_ms": 10000,
                                   "max_line_bytes": 1048576, "max_output_bytes": 8388608}}
    request = request_for(state, 0)
    end = {"type": "end", "seat": 0, "scores": [1, 2], "ranks": [2, 1], "statuses": ["ok", "ok"], "teams": None}
    lines = "".join(json.dumps(message) + "\n" for message in (start, request, end, {"type": "quit"}))
    result = subprocess.run([sys.executable, str(BOT_PATH)], input=lines, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    assert replies[0] == {"type": "ready", "name": "five-towers-heuristic", "matches": "many"}
    assert len(replies) == 2
    state.apply(action_from(replies[1], request))
