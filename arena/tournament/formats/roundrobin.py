"""Round-robin schedules: which entries meet, in which seats, on which deal, in which order.

For k-player matches every combination of k entries meets once per round, in k seatings
(the cyclic rotations of the combination), so each entry sits in each seat equally often:
``comb(n - 1, k - 1)`` times per seat per round. ``rounds`` repeats the whole round on fresh
deals. With ``duplicate``, the k seatings of a combination share one deal (a duplicate set),
so the luck of the deal cancels out between them.

The matches of a round are ordered so that at any moment every entry has played about as
many matches as every other (an interrupted tournament has fair partial results): the entry
that has played least goes next, with ties and its own order of opponents drawn from the
tournament seed. The same configuration always gives the same schedule.
"""

from __future__ import annotations

import heapq
import itertools
import random
from dataclasses import dataclass
from math import comb


@dataclass(frozen=True)
class ScheduledMatch:
    index: int                 # position in the schedule, from 0; ratings follow this order
    round: int                 # from 0
    seats: tuple[int, ...]     # entry positions, seat by seat
    deal: int                  # the deal number: the game seed is a keyed hash of it
    seed: int = 0              # the game engine's seed, filled in from the tournament's secret


def match_count(entries: int, players: int, rounds: int = 1) -> int:
    return comb(entries, players) * players * rounds


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
    schedule: list[ScheduledMatch] = []
    deal = 0
    for round_number in range(rounds):
        seatings: list[tuple[tuple[int, ...], int]] = []  # (seats, deal)
        for group in itertools.combinations(range(entries), players):
            for shift in range(players):
                seatings.append((group[shift:] + group[:shift], deal if duplicate else deal + shift))
            deal += 1 if duplicate else players
        if duplicate:
            # A duplicate set is played together: order sets, not single matches.
            sets = [tuple(range(i, i + players)) for i in range(0, len(seatings), players)]
            order = balanced_order([seatings[s[0]][0] for s in sets], entries, rng)
            numbers = [n for set_number in order for n in sets[set_number]]
        else:
            numbers = balanced_order([s for s, _ in seatings], entries, rng)
        for number in numbers:
            seats, match_deal = seatings[number]
            schedule.append(ScheduledMatch(len(schedule), round_number, seats, match_deal))
    return schedule
