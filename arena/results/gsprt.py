"""The exact sequential probability ratio test over duplicate pairs (the generalized SPRT): the statistic.

A pair's score lies between 0 and 1 and takes few values (see `pair_values`). The test does
not assume a distribution for it: at each number of pairs it takes the empirical distribution
of the scores seen so far and asks how likely that data is under the most likely distribution
whose mean is s0 (H0) and under the most likely one whose mean is s1 (H1), s0 and s1 the
expected pair scores of Elo differences elo0 and elo1. The log of the ratio of those two
likelihoods is the LLR (Van den Bergh's multinomial GLR, as fishtest's and fastchess's
pentanomial "logistic" model compute it). The constrained maximum-likelihood distribution is
``q_i = p_i / (1 + θ (a_i − s))`` with θ the root of ``Σ p_i (a_i − s) / (1 + θ (a_i − s)) = 0``.

Every possible score that has not been seen counts 0.001 of a pair (as fastchess does): an
all-tie or all-win start then still has a finite, slowly growing LLR instead of an instant
verdict — 59 tied pairs are far from enough to accept H0 at elo0 = 0, elo1 = 10; it takes
102.

Everything is vectorised with NumPy over any leading axes, so a whole sequence of prefixes
(or thousands of simulated tests) is one call.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from arena.results.statistics import elo_to_score, sprt_bounds as bounds

UNSEEN = 1e-3  # the weight of a possible pair score not yet seen
_TOLERANCE = 1e-10  # on θ: the LLR's error is of the order of its square
_MAX_STEPS = 100


def pair_values(players: int = 2) -> list[float]:
    """The scores a duplicate pair can take, tied ranks at three or more players left aside:
    0, ¼, ½, ¾, 1 for two players (the mean of two matches' points, each 0, ½ or 1); multiples
    of 1 / (2 (players − 1)) from 0 to 1 with more (half of one plus a points difference)."""
    steps = 4 if players <= 2 else 2 * (players - 1)
    return [k / steps for k in range(steps + 1)]


def support(scores: Sequence[float] | np.ndarray, players: int = 2) -> np.ndarray:
    """The possible pair scores: those of `pair_values` and any other score seen (ties at
    three to five players give a few more)."""
    seen = np.unique(np.round(np.asarray(scores, dtype=float), 12))
    return np.unique(np.concatenate([np.round(pair_values(players), 12), seen]))


def _theta(p: np.ndarray, d: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """The root θ of ``Σ p (d) / (1 + θ d) = 0`` over the last axis, where 1 + θ d > 0 for
    every d (safeguarded Newton: the function falls with θ, so a bracket is kept)."""
    shape = p.shape[:-1]
    edge_low, edge_high = -1.0 / d.max(), -1.0 / d.min()  # where a denominator reaches 0
    low = np.broadcast_to(edge_low, shape).copy()
    high = np.broadcast_to(edge_high, shape).copy()
    theta = np.zeros(shape) if start is None else np.clip(start, low, high)
    inside = (theta > low) & (theta < high)
    theta = np.where(inside, theta, (low + high) / 2)
    for _ in range(_MAX_STEPS):
        ratio = d / (1.0 + theta[..., None] * d)
        weighted = p * ratio
        value = weighted.sum(-1)
        slope = -(weighted * ratio).sum(-1)
        low = np.where(value > 0, theta, low)
        high = np.where(value > 0, high, theta)
        newton = theta - value / slope
        bad = ~((newton >= low) & (newton <= high) & (newton > edge_low) & (newton < edge_high))
        step = np.where(bad, (low + high) / 2, newton)
        done = np.abs(step - theta) <= _TOLERANCE * (1 + np.abs(theta))
        theta = step
        if done.all():
            break
    return theta


def llr_counts(counts: np.ndarray, values: np.ndarray, s0: float, s1: float,
               starts: tuple[np.ndarray, np.ndarray] | None = None,
               thetas: list | None = None) -> np.ndarray:
    """The LLR of H1 (mean s1) against H0 (mean s0) for pairs counted per score: ``counts``
    has the scores ``values`` on its last axis and any leading axes. ``starts`` (θ0, θ1)
    speeds the root finding up; ``thetas``, when given, receives the roots found."""
    counts = np.asarray(counts, dtype=float)
    values = np.asarray(values, dtype=float)
    weights = np.where(counts > 0, counts, UNSEEN)
    p = weights / weights.sum(-1, keepdims=True)
    d0, d1 = values - s0, values - s1
    theta0 = _theta(p, d0, None if starts is None else starts[0])
    theta1 = _theta(p, d1, None if starts is None else starts[1])
    if thetas is not None:
        thetas[:] = [theta0, theta1]
    return (weights * (np.log1p(theta0[..., None] * d0) - np.log1p(theta1[..., None] * d1))).sum(-1)


def llr_prefixes(pair_scores: Sequence[float], elo0: float, elo1: float, players: int = 2) -> np.ndarray:
    """The LLR after each pair, in order (one vectorised solve for all prefixes)."""
    scores = np.round(np.asarray(pair_scores, dtype=float), 12)
    if scores.size == 0:
        return np.zeros(0)
    values = support(scores, players)
    one_hot = scores[:, None] == values[None, :]
    counts = np.cumsum(one_hot, axis=0)
    return llr_counts(counts, values, elo_to_score(elo0), elo_to_score(elo1))


def llr(pair_scores: Sequence[float], elo0: float, elo1: float, players: int = 2) -> float:
    """The LLR of all the pairs."""
    values = llr_prefixes(pair_scores, elo0, elo1, players)
    return float(values[-1]) if values.size else 0.0


def decision(pair_scores: Sequence[float], elo0: float, elo1: float, alpha: float, beta: float,
             players: int = 2) -> tuple[str | None, int, float]:
    """Run the test over the pairs in order; returns (verdict or None, pairs used, LLR).

    The verdict is "H1" or "H0" at the first pair where the LLR reaches a bound."""
    lower, upper = bounds(alpha, beta)
    values = llr_prefixes(pair_scores, elo0, elo1, players)
    crossed = np.flatnonzero((values >= upper) | (values <= lower))
    if crossed.size:
        used = int(crossed[0])
        value = float(values[used])
        return ("H1" if value >= upper else "H0"), used + 1, value
    return None, len(values), float(values[-1]) if values.size else 0.0
