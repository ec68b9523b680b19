"""Strength and speed of the MCTS reference bots (bots/<game>_mcts.py), in-process.

Usage: python bench/mcts.py GAME [--deals N] [--playouts N | --time-ms T] [--opponent heuristic|random]
                                 [--option KEY=VALUE] [--workers 2]

Plays N deals twice (the MCTS bot in seat 0, then in seat 1) of a two-player game against the
game's heuristic bot (bots/<game>_heuristic.py) or a seeded random bot, with the engine and
both bots' decision functions called directly (requests built as the harness builds them,
after a JSON round trip). Prints the MCTS bot's points (win 1, tie 0.5, loss 0) as a
percentage, with the time per decision it needed. Deterministic with --playouts (the seeds are
fixed); a time budget depends on the machine.

Measured on 2 shared cores (see the MCTS bots' docstrings and tests/test_mcts_bots.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena.games import get_game  # noqa: E402

BOTS = REPO / "bots"
TIME = {"decision_ms": 1000, "bank_ms": 10000}


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def modules(game: str):
    stem = game.replace("-", "_")
    return load(BOTS / f"{stem}_mcts.py", f"{stem}_mcts"), load(BOTS / f"{stem}_heuristic.py", f"{stem}_heuristic")


def play(game: str, options: dict, deal: int, mcts_seat: int, playouts: int | None, time_ms: float | None,
         opponent: str) -> tuple[float, float, int]:
    """One match: (the MCTS bot's points, its thinking time in s, its decisions)."""
    mcts, heuristic = modules(game)
    state = get_game(game).new_game(2, deal, options)
    bot = mcts.Bot(playouts=playouts, time_ms=time_ms)
    bot.start({"type": "start", "seed": 7919 * deal + mcts_seat})
    rng = random.Random(deal)
    thinking = 0.0
    decisions = 0
    step = 0
    while not state.is_over():
        seat = state.current_seat()
        request = json.loads(json.dumps({"type": "request", "seat": seat, "step": step,
                                         "observation": state.observation(seat),
                                         "legal": state.legal_actions(), "time": TIME}))
        if seat == mcts_seat:
            started = time.perf_counter()
            reply = bot.choose(request)
            thinking += time.perf_counter() - started
            decisions += 1
        elif opponent == "random":
            reply = {"index": rng.randrange(len(request["legal"]))}
        else:
            reply = heuristic.choose(request)
        state.apply(reply["action"] if "action" in reply else request["legal"][reply["index"]])
        step += 1
    ranks = state.ranks()
    mine, other = ranks[mcts_seat], ranks[1 - mcts_seat]
    return (1.0 if mine < other else 0.5 if mine == other else 0.0), thinking, decisions


def _play(args):
    return play(*args)


def strength(game: str, deals: int, playouts: int | None = None, time_ms: float | None = None,
             opponent: str = "heuristic", options: dict | None = None, workers: int = 2,
             first_deal: int = 1) -> dict:
    jobs = [(game, options or {}, deal, seat, playouts, time_ms, opponent)
            for deal in range(first_deal, first_deal + deals) for seat in (0, 1)]
    started = time.perf_counter()
    context = multiprocessing.get_context("fork")
    with context.Pool(workers) as pool:
        results = pool.map(_play, jobs, chunksize=1)
    points = sum(r[0] for r in results)
    thinking = sum(r[1] for r in results)
    decisions = sum(r[2] for r in results)
    return {"matches": len(results), "points": points, "percent": 100.0 * points / len(results),
            "ms_per_decision": 1000.0 * thinking / max(1, decisions), "decisions_per_match": decisions / len(results),
            "wall_s": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--playouts", type=int)
    parser.add_argument("--time-ms", type=float)
    parser.add_argument("--opponent", choices=("heuristic", "random"), default="heuristic")
    parser.add_argument("--option", action="append", default=[], help="KEY=VALUE")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    game = get_game(args.game)
    options = game.validate(2, dict(item.split("=", 1) for item in args.option))
    result = strength(args.game, args.deals, args.playouts, args.time_ms, args.opponent, options, args.workers)
    budget = f"{args.playouts} playouts" if args.playouts else f"{args.time_ms or 'default'} ms"
    print(f"{args.game} {options or ''} {budget} vs {args.opponent}: {result['points']}/{result['matches']}"
          f" = {result['percent']:.1f}%  {result['ms_per_decision']:.1f} ms/decision"
          f"  {result['decisions_per_match']:.0f} decisions/match  {result['wall_s']:.0f} s")


if __name__ == "__main__":
    main()
