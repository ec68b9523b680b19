"""TrueSkill for match results: one environment, one function that rates a finished match.

Free-for-all games put every seat in a rating group of its own; ties in rank are draws.
Team games put teammates in one group, ranked by their shared team rank. The functions here
are pure (numbers in, numbers out); `arena.results.store` decides which match is rated when, and
keeps the results.
"""

from __future__ import annotations

from typing import Sequence

import trueskill

# The environment every rating in a database is computed with. Changing it changes every
# number, so it is fixed here and documented in docs/tournaments.md.
MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = SIGMA / 100
DRAW_PROBABILITY = 0.10

ENVIRONMENT = trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU,
                                  draw_probability=DRAW_PROBABILITY)


def conservative(mu: float, sigma: float) -> float:
    """The leaderboard's sort key: a skill the bot very probably has at least (μ − 3σ)."""
    return mu - 3 * sigma


def rate(ratings: Sequence[tuple[float, float] | None], ranks: Sequence[int],
         teams: Sequence[Sequence[int]] | None = None) -> list[tuple[float, float]]:
    """New (μ, σ) per seat after one match.

    ``ratings`` has one (μ, σ) per seat, or ``None`` for a bot that has no rating yet;
    ``ranks`` is the match's rank per seat (1 = best, ties share a rank). With ``teams``
    (lists of seats), each team is one rating group and takes the rank of its best seat.
    """
    if len(ratings) != len(ranks):
        raise ValueError(f"{len(ratings)} ratings for {len(ranks)} ranks")
    current = [ENVIRONMENT.create_rating() if r is None else ENVIRONMENT.create_rating(*r)
               for r in ratings]
    groups = [list(team) for team in teams] if teams else [[seat] for seat in range(len(ranks))]
    rated = ENVIRONMENT.rate([tuple(current[seat] for seat in group) for group in groups],
                             ranks=[min(ranks[seat] for seat in group) for group in groups])
    result: list[tuple[float, float]] = [(r.mu, r.sigma) for r in current]
    for group, new_group in zip(groups, rated):
        for seat, rating in zip(group, new_group):
            result[seat] = (rating.mu, rating.sigma)
    return result
