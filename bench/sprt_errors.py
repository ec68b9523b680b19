"""The SPRT's real error rates: many simulated tests on synthetic pair outcomes whose mean is
exactly H0's or H1's expected score, for several outcome mixes.

Usage: python bench/sprt_errors.py [--tests 20000] [--elo0 0] [--elo1 10] [--alpha .05] [--beta .05]

For each mix it prints the rate of wrong verdicts at H0 (against α) and at H1 (against β) with
its standard error, and the mean number of pairs a test took. Mixes: independent games
without draws, with 50 % draws, 90 % and 97 % tied pairs whose other pairs are won or lost
outright, and 97 % tied pairs whose others are ¾ or ¼ (one game of the pair decided), three-
and five-player pairs (scores in quarters or eighths).
"""

from __future__ import annotations

import argparse
import math
import time

from arena.results import gsprt as sprt
from arena.results.sprt_simulation import games_with_mean, quarters_or_ties, simulate, wins_or_ties


def spread(score: float, players: int) -> dict[float, float]:
    """Pair scores over the whole grid of a field of ``players`` (a tent around ½), shifted
    to the mean ``score``."""
    values = sprt.pair_values(players)
    weights = [1 + min(k, len(values) - 1 - k) for k in range(len(values))]
    total = sum(weights)
    base = {v: w / total for v, w in zip(values, weights)}
    shift = score - 0.5  # move mass from the lowest score to the highest
    top, bottom = values[-1], values[0]
    base[top] += shift / (top - bottom)
    base[bottom] -= shift / (top - bottom)
    return base


MIXES = {
    "independent games, no draws": lambda s: games_with_mean(s, 0.0),
    "independent games, 50% draws": lambda s: games_with_mean(s, 0.5),
    "90% tied pairs, others won or lost": lambda s: wins_or_ties(s, 0.9),
    "97% tied pairs, others won or lost": lambda s: wins_or_ties(s, 0.97),
    "80% tied pairs, others 3/4 or 1/4": lambda s: quarters_or_ties(s, 0.8),
    "3 players, pairs in quarters": lambda s: spread(s, 3),
    "5 players, pairs in eighths": lambda s: spread(s, 5),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=20000)
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=10.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    args = parser.parse_args()
    s0, s1 = sprt.elo_to_score(args.elo0), sprt.elo_to_score(args.elo1)
    print(f"{args.tests} tests per cell; elo0 {args.elo0}, elo1 {args.elo1}, alpha {args.alpha}, beta {args.beta}")
    print(f"{'mix':38} {'at H0: H1 accepted':>20} {'pairs':>7} {'at H1: H0 accepted':>20} {'pairs':>7} {'s':>5}")
    for seed, (name, make) in enumerate(MIXES.items()):
        started = time.monotonic()
        players = 5 if "5 players" in name else 3 if "3 players" in name else 2
        cells = []
        for truth, score in (("H0", s0), ("H1", s1)):
            outcome = simulate(make(score), args.elo0, args.elo1, args.alpha, args.beta, args.tests, seed=seed,
                               players=players)
            wrong = (outcome.accepted_h1 if truth == "H0" else outcome.accepted_h0) / outcome.tests
            error = math.sqrt(wrong * (1 - wrong) / outcome.tests)
            cells.append(f"{100 * wrong:>12.2f} % ± {100 * error:.2f} {outcome.mean_pairs:>7.0f}")
        print(f"{name:38} {cells[0]} {cells[1]} {time.monotonic() - started:>5.0f}", flush=True)


if __name__ == "__main__":
    main()
