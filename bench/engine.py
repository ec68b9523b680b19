"""Random legal playouts in-process: complete games per second, per game and player count.

Usage: python bench/engine.py [--seconds S] [--game NAME]

Each case plays whole games with `GameState.random_action` (uniform over the legal actions
unless the game overrides it) on one core, and prints games/s and decisions/s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.games import get_game  # noqa: E402
from arena.games.base import random_playout  # noqa: E402

# (game, players, options, target games/s or None) — the targets come from the issues.
CASES = [
    ("five-towers", 2, {}, None),
    ("five-towers", 3, {}, None),
    ("five-towers", 4, {}, 200),
    ("five-towers", 5, {}, None),
    ("agent-avenue", 2, {}, 1000),
    ("agent-avenue", 2, {"advanced": True}, None),
    ("agent-avenue", 3, {}, None),
    ("agent-avenue", 4, {}, None),
    ("agent-avenue", 4, {"advanced": True}, None),
    ("fifth-avenue", 2, {}, None),
    ("fifth-avenue", 3, {}, None),
    ("fifth-avenue", 4, {}, 50),
    ("fifth-avenue", 4, {"board": "6-plot"}, None),
]


def measure(name: str, players: int, options: dict, seconds: float) -> tuple[int, int, float]:
    game = get_game(name)
    games = decisions = 0
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        _, record = random_playout(game, players, seed, options)
        games += 1
        decisions += len(record.actions)
        seed += 1
    return games, decisions, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per case")
    parser.add_argument("--game", help="only this game")
    args = parser.parse_args()
    print(f"{'game':<14} {'players':>7} {'options':<24} {'games/s':>9} {'decisions/s':>12} {'target':>7}")
    for name, players, options, target in CASES:
        if args.game and name != args.game:
            continue
        games, decisions, elapsed = measure(name, players, options, args.seconds)
        rate = games / elapsed
        verdict = "" if target is None else (f"{target} ok" if rate >= target else f"{target} MISSED")
        label = ",".join(f"{k}={v}" for k, v in options.items()) or "-"
        print(f"{name:<14} {players:>7} {label:<24} {rate:>9.1f} {decisions / elapsed:>12.0f} {verdict:>7}")


if __name__ == "__main__":
    main()
