"""Simulated SPRTs on synthetic pair outcomes: how often the test accepts each hypothesis and
how many pairs it takes, when pair scores follow a known distribution. Used by the tests
and bench/sprt_errors.py to check the real error rates against the nominal α and β.

Thousands of tests run side by side: pairs are drawn a block at a time for every test still
running, and `sprt.llr_counts` evaluates every prefix of the block at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.results import gsprt as sprt


@dataclass
class Outcome:
    accepted_h0: int
    accepted_h1: int
    unfinished: int
    mean_pairs: float

    @property
    def tests(self) -> int:
        return self.accepted_h0 + self.accepted_h1 + self.unfinished


def pentanomial_of_games(win: float, draw: float) -> dict[float, float]:
    """Pair-score distribution of two independent games with these win and draw rates."""
    loss = 1 - win - draw
    game = {0.0: loss, 0.5: draw, 1.0: win}
    pair: dict[float, float] = {}
    for a, pa in game.items():
        for b, pb in game.items():
            pair[(a + b) / 2] = pair.get((a + b) / 2, 0.0) + pa * pb
    return pair


def games_with_mean(score: float, draw: float) -> dict[float, float]:
    """Two independent games, drawn at rate ``draw``, whose expected score is ``score``."""
    return pentanomial_of_games(score - draw / 2, draw)


def wins_or_ties(score: float, ties: float) -> dict[float, float]:
    """Pairs tied (½) at rate ``ties``, the others won or lost outright (1 or 0) — close
    versions whose mirrored games mostly end alike — with expected score ``score``."""
    won = score - ties / 2
    lost = 1 - ties - won
    if won < 0 or lost < 0:
        raise ValueError(f"no distribution with {ties:.0%} ties has mean {score}")
    return {0.5: ties, 1.0: won, 0.0: lost}


def quarters_or_ties(score: float, ties: float) -> dict[float, float]:
    """Pairs tied (½) at rate ``ties``, the others ¾ or ¼ (one game decided), with expected
    score ``score``."""
    up = (score - 0.5) * 4  # ¾ minus ¼ rates
    high, low = (1 - ties + up) / 2, (1 - ties - up) / 2
    if low < 0 or high < 0:
        raise ValueError(f"no distribution of ¼, ½, ¾ with {ties:.0%} ties has mean {score}")
    return {0.5: ties, 0.75: high, 0.25: low}


def simulate(distribution: dict[float, float], elo0: float, elo1: float, alpha: float, beta: float,
             tests: int, seed: int = 0, players: int = 2, block: int = 16, max_pairs: int = 200_000,
             skip: bool = True) -> Outcome:
    """Run ``tests`` independent SPRTs whose pair scores are drawn from ``distribution``; the
    LLR is checked after every pair, as `sprt.decision` does.

    With ``skip``, a test whose LLR is far from both bounds is evaluated only at the end of a
    block: one pair moves the LLR by about log(q1/q0) of its score (the ratio's derivative),
    so a block of pairs each moving it by at most half the distance to a bound cannot
    cross it. The same seed gives the same verdicts with and without (a test checks)."""
    rng = np.random.default_rng(seed)
    values = sprt.support(list(distribution), players)
    probabilities = np.array([distribution.get(float(v), 0.0) for v in values])
    cumulative = np.cumsum(probabilities / probabilities.sum())
    lower, upper = sprt.bounds(alpha, beta)
    s0, s1 = sprt.elo_to_score(elo0), sprt.elo_to_score(elo1)
    d0, d1 = values - s0, values - s1
    counts = np.zeros((tests, values.size))
    theta0, theta1 = np.zeros(tests), np.zeros(tests)
    llr = np.zeros(tests)
    jump = np.full(tests, np.inf)   # the largest LLR move one pair can make, about
    running = np.arange(tests)
    h0 = h1 = 0
    pairs_used = 0
    done = 0
    while running.size and done < max_pairs:
        draws = np.minimum(np.searchsorted(cumulative, rng.random((running.size, block)), side="right"),
                           values.size - 1)
        prefixes = counts[running][:, None, :] + np.cumsum(draws[..., None] == np.arange(values.size), axis=1)
        room = np.minimum(upper - llr[running], llr[running] - lower)
        far = (room > 2 * block * jump[running]) if skip else np.zeros(running.size, bool)
        stopped = np.zeros(running.size, bool)
        for chosen, steps in ((far, [block - 1]), (~far, list(range(block)))):
            if not chosen.any():
                continue
            index = running[chosen]
            found: list = []
            at = prefixes[chosen][:, steps, :]
            starts = (np.repeat(theta0[index][:, None], len(steps), 1), np.repeat(theta1[index][:, None], len(steps), 1))
            path = sprt.llr_counts(at, values, s0, s1, starts, found)
            crossed = (path >= upper) | (path <= lower)
            hit = crossed.any(axis=1)
            first = crossed.argmax(axis=1)
            at_first = path[np.arange(index.size), first]
            h1 += int((hit & (at_first >= upper)).sum())
            h0 += int((hit & (at_first <= lower)).sum())
            pairs_used += int((done + np.asarray(steps)[first[hit]] + 1).sum())
            stopped[np.flatnonzero(chosen)[hit]] = True
            counts[index] = prefixes[chosen][:, -1, :]
            theta0[index], theta1[index] = found[0][:, -1], found[1][:, -1]
            llr[index] = path[:, -1]
            moves = np.log1p(theta0[index][:, None] * d0) - np.log1p(theta1[index][:, None] * d1)
            jump[index] = np.abs(moves).max(axis=1)
        running = running[~stopped]
        done += block
    pairs_used += done * running.size
    return Outcome(h0, h1, int(running.size), pairs_used / tests)
