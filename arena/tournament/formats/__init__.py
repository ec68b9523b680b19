"""Tournament formats: which matches are played, in which seats, on which deal, in which order.

A format is planned either all at once when the tournament is created (round-robin,
gauntlet) or in steps (Swiss rounds, ladder batches, SPRT batches): `Plan.next_batch`
looks at what is stored and returns the next matches, or None when the tournament is over.
A step is asked for only when every match of the previous one is stored, so the plan depends
on results alone — never on timing or the number of workers — and resuming after ``kill -9``
continues the same plan.

With duplicate deals, a group of entries plays one deal in every seating of the group (all
permutations for groups of up to 3, the cyclic rotations for larger ones): a duplicate set,
in which the luck of the deal cancels out. The seeds the bots are sent follow the seat (and
the deal), so identical bots in a duplicate set play mirrored games.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass


@dataclass(frozen=True)
class ScheduledMatch:
    index: int                 # position in the schedule, from 0; ratings follow this order
    round: int                 # from 0 (a Swiss round, a ladder or SPRT batch)
    seats: tuple[int, ...]     # entry positions, seat by seat
    deal: int                  # the deal number: the game seed is a keyed hash of it
    seed: int = 0              # the game engine's seed, filled in from the tournament's secret


def seatings(group: tuple[int, ...], duplicate: bool) -> list[tuple[int, ...]]:
    """The seatings a group plays: its rotations; for a duplicate set of up to 3, every order."""
    if duplicate and len(group) <= 3:
        return list(itertools.permutations(group))
    return [group[shift:] + group[:shift] for shift in range(len(group))]
