"""A Swiss tournament's finals: round-robins of its leaders, planned after its Swiss rounds.

``finals = [[30, 1], [16, 6]]``: once the Swiss rounds are played, the top 30 of the refit of
every match so far (`arena.results.refit.ratings`, the same order-free fit as the final
standings) play a round-robin once; then the top 16 of those 30, by the refit of every match
so far (the first final's too), play a round-robin six times. Duplicate deals if the
tournament has them. A withdrawn entry never enters a final.

The finalists of each final are kept in the tournament's ``format_state`` (``finals``: a list
of lists of bot version ids), stored in the same transaction as that final's matches, so a
run killed at any point resumes with the same finals. The final standings put the last
final's finalists first (`arena.results.finals`).
"""

from __future__ import annotations

import itertools
import random

from arena.results import refit, statistics
from arena.tournament.formats import ScheduledMatch
from arena.tournament.formats.roundrobin import order_groups


def finalists_so_far(state: dict | None) -> list[list[int]]:
    """The version ids of each final planned so far."""
    return [list(final) for final in (state or {}).get("finals", [])]


def next_final(stored, finals: list, players: int, duplicate: bool, seed: int):
    """The next final's matches and the new format state, or None when every final is planned."""
    state = dict(stored.tournament.get("format_state") or {})
    planned = finalists_so_far(state)
    if len(planned) >= len(finals):
        return None
    size, rounds = finals[len(planned)]
    position = stored.position_of()
    version_of = {p: v for v, p in position.items()}
    active = set(stored.active())
    pool = [position[v] for v in planned[-1]] if planned else sorted(active)
    pool = [p for p in pool if p in active]
    matches = [[refit.Seat(row.version, row.rank) for row in match] for match in statistics.by_match(stored.rows)]
    fitted = refit.ratings(matches, [version_of[p] for p in sorted(active)])
    top = sorted(pool, key=lambda p: (-fitted[version_of[p]], p))[:size]
    state["finals"] = planned + [[version_of[p] for p in top]]
    if len(top) < players:
        return [], state
    rng = random.Random(f"arena-finals:{seed}:{len(planned)}")
    groups = list(itertools.combinations(range(len(top)), players))
    schedule = order_groups(groups, len(top), rounds, rng, duplicate, first_index=stored.scheduled,
                            first_deal=stored.next_deal, first_round=stored.rounds)
    return [ScheduledMatch(m.index, m.round, tuple(top[i] for i in m.seats), m.deal) for m in schedule], state


def report(stored, swiss_rounds: int, finals: list) -> str | None:
    planned = finalists_so_far(stored.tournament.get("format_state"))
    if not planned:
        return None
    rounds = finals[len(planned) - 1][1]
    return (f"final {len(planned)} of {len(finals)} planned: a round-robin of the top {len(planned[-1])}"
            f" x{rounds}")
