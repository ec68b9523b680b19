"""Gauntlet: one or more candidates against a field, in every seat rotation.

Every candidate meets every combination of ``players - 1`` field entries, in each seating of
the group (with duplicate deals: on one deal, every order for up to 3 players). Candidates do
not meet each other, and the field does not play among itself. ``rounds`` repeats it all on
fresh deals; the order is balanced, like a round-robin's.
"""

from __future__ import annotations

import itertools
import math
import random

from arena.tournament.formats import ScheduledMatch
from arena.tournament.formats.roundrobin import order_groups


def match_count(candidates: int, field: int, players: int, rounds: int, duplicate: bool) -> int:
    per_group = math.factorial(players) if duplicate and players <= 3 else players
    return candidates * math.comb(field, players - 1) * per_group * rounds


def gauntlet(candidates: list[int], field: list[int], players: int, rounds: int, seed: int,
             duplicate: bool = False) -> list[ScheduledMatch]:
    """The schedule for ``candidates`` and ``field`` (entry positions)."""
    if len(field) < players - 1:
        raise ValueError(f"{players}-player matches need a field of at least {players - 1} bots, got {len(field)}")
    if not candidates:
        raise ValueError("a gauntlet needs at least one candidate")
    groups = [(candidate, *others) for candidate in candidates
              for others in itertools.combinations(field, players - 1)]
    entries = max(candidates + field) + 1
    return order_groups(groups, entries, rounds, random.Random(f"arena-gauntlet:{seed}"), duplicate)
