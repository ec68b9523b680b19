"""Round-robin schedules: which entries meet, in which seats, on which deal, in which order.

For k-player matches every combination of k entries meets once per round, in k seatings
(the cyclic rotations of the combination), so each entry sits in each seat equally often:
``comb(n - 1, k - 1)`` times per seat per round. ``rounds`` repeats the whole round on fresh
deals. With ``duplicate``, a combination's seatings share one deal (a duplicate set, so the
luck of the deal cancels out between them) and, for up to 3 players, are all its orders.

The matches of a round are ordered so that at any moment every entry has played about as
many matches as every other (an interrupted tournament has fair partial results): the entry
that has played least goes next, with ties and its own order of opponents drawn from the
tournament seed. The same configuration always gives the same schedule.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from math import comb

from arena.tournament.formats import ScheduledMatch, seatings


def match_count(entries: int, players: int, rounds: int = 1, duplicate: bool = False) -> int:
    per_group = math.factorial(players) if duplicate and players <= 3 else players
    return comb(entries, players) * per_group * rounds


def check_size(entries: int, players: int, rounds: int) -> None:
    if players < 1:
        raise ValueError(f"a match needs at least one player, not {players}")
    if entries < players:
        raise ValueError(f"{players}-player matches need at least {players} bots, got {entries}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, not {rounds}")


def balanced_order(groups: list[tuple[int, ...]], entries: int, rng: random.Random,
                   window: int = 8) -> list[int]:
    """An order of ``groups`` (matches as entry tuples) in which every entry's count of played
    matches stays close to every other's: repeatedly, the entry with the fewest played plays
    next — of its next few unplayed matches (in an order drawn for it), the one whose other
    entries have played least."""
    queues: list[list[int]] = [[] for _ in range(entries)]
    for number, group in enumerate(groups):
        for entry in set(group):
            queues[entry].append(number)
    for queue in queues:
        rng.shuffle(queue)
    position = [0] * entries
    played = [0] * entries
    tiebreak = [rng.random() for _ in range(entries)]
    heap = [(0, tiebreak[e], e) for e in range(entries) if queues[e]]
    heapq.heapify(heap)
    done = [False] * len(groups)
    order: list[int] = []
    while heap:
        count, _, entry = heapq.heappop(heap)
        if count != played[entry]:
            continue  # a stale heap entry
        queue = queues[entry]
        while position[entry] < len(queue) and done[queue[position[entry]]]:
            position[entry] += 1
        if position[entry] == len(queue):
            continue
        best, best_key, looked, i = position[entry], None, 0, position[entry]
        while i < len(queue) and looked < window:
            if not done[queue[i]]:
                looked += 1
                key = max(played[member] for member in groups[queue[i]])
                if best_key is None or key < best_key:
                    best, best_key = i, key
            i += 1
        queue[best], queue[position[entry]] = queue[position[entry]], queue[best]
        number = queue[position[entry]]
        done[number] = True
        order.append(number)
        for member in set(groups[number]):
            played[member] += 1
            heapq.heappush(heap, (played[member], tiebreak[member], member))
    return order


def round_robin(entries: int, players: int, rounds: int, seed: int, duplicate: bool = False) -> list[ScheduledMatch]:
    """The whole schedule for ``entries`` participants (numbered 0..entries-1)."""
    check_size(entries, players, rounds)
    rng = random.Random(f"arena-round-robin:{seed}")
    groups = list(itertools.combinations(range(entries), players))
    return order_groups(groups, entries, rounds, rng, duplicate)


def order_groups(groups: list[tuple[int, ...]], entries: int, rounds: int, rng: random.Random,
                 duplicate: bool, first_index: int = 0, first_deal: int = 0, first_round: int = 0) -> list[ScheduledMatch]:
    """Every group in each of its seatings, ``rounds`` times, in a balanced order.

    Without ``duplicate`` every match has a deal of its own; with it, the seatings of a group
    share one deal and are played one after the other."""
    schedule: list[ScheduledMatch] = []
    deal = first_deal
    for round_number in range(first_round, first_round + rounds):
        sets: list[list[tuple[tuple[int, ...], int]]] = []  # per group: (seats, deal) of each seating
        for group in groups:
            seats_list = seatings(group, duplicate)
            if duplicate:
                sets.append([(seats, deal) for seats in seats_list])
                deal += 1
            else:
                for seats in seats_list:
                    sets.append([(seats, deal)])
                    deal += 1
        order = balanced_order([members[0][0] for members in sets], entries, rng)
        for number in order:
            for seats, match_deal in sets[number]:
                schedule.append(ScheduledMatch(first_index + len(schedule), round_number, seats, match_deal))
    return schedule
