"""Round-robin schedules: which entries meet, in which seats, with which seed.

For k-player matches every combination of k entries meets once per round, in k seatings
(the cyclic rotations of the combination), so each entry sits in each seat equally often:
``comb(n - 1, k - 1)`` times per seat per round. ``rounds`` repeats the whole round with
fresh seeds. Every match seed is derived from the tournament seed and the match's place in
the schedule, so the same configuration always gives the same schedule.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from math import comb


@dataclass(frozen=True)
class ScheduledMatch:
    index: int                 # position in the schedule, from 0; ratings follow this order
    round: int                 # from 0
    seats: tuple[int, ...]     # entry positions, seat by seat
    seed: int


def match_seed(tournament_seed: int, index: int) -> int:
    """A 63-bit seed for the match at ``index``, independent of the schedule's length."""
    digest = hashlib.sha256(f"arena-match:{tournament_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def match_count(entries: int, players: int, rounds: int = 1) -> int:
    return comb(entries, players) * players * rounds


def round_robin(entries: int, players: int, rounds: int, seed: int) -> list[ScheduledMatch]:
    """The whole schedule for ``entries`` participants (numbered 0..entries-1)."""
    if players < 1:
        raise ValueError(f"a match needs at least one player, not {players}")
    if entries < players:
        raise ValueError(f"{players}-player matches need at least {players} bots, got {entries}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, not {rounds}")
    schedule: list[ScheduledMatch] = []
    for round_number in range(rounds):
        for group in itertools.combinations(range(entries), players):
            for shift in range(players):
                seats = group[shift:] + group[:shift]
                index = len(schedule)
                schedule.append(ScheduledMatch(index, round_number, seats, match_seed(seed, index)))
    return schedule
