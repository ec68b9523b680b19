"""Round-robin schedules: who meets, seat balance, repeats and seeds."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from arena.tournament.formats.roundrobin import match_count, match_seed, round_robin


@pytest.mark.parametrize("entries, players", [(2, 2), (4, 2), (5, 3), (6, 4), (5, 5)])
def test_every_combination_of_players_meets_once_per_seat_rotation(entries, players):
    schedule = round_robin(entries, players, rounds=1, seed=1)
    meetings = Counter(frozenset(m.seats) for m in schedule)
    assert set(meetings) == {frozenset(c) for c in itertools.combinations(range(entries), players)}
    assert set(meetings.values()) == {players}
    assert len(schedule) == match_count(entries, players)


@pytest.mark.parametrize("entries, players", [(4, 2), (5, 3), (6, 4)])
def test_each_bot_sits_in_each_seat_equally_often(entries, players):
    seats = Counter((bot, seat) for m in round_robin(entries, players, 1, 1) for seat, bot in enumerate(m.seats))
    assert len(set(seats.values())) == 1
    assert len(seats) == entries * players


def test_rounds_repeat_the_schedule_with_fresh_seeds():
    schedule = round_robin(3, 2, rounds=3, seed=5)
    per_round = [[m.seats for m in schedule if m.round == r] for r in range(3)]
    assert per_round[0] == per_round[1] == per_round[2]
    assert len({m.seed for m in schedule}) == len(schedule)
    assert [m.index for m in schedule] == list(range(18))


def test_the_tournament_seed_determines_every_match_seed():
    assert round_robin(4, 3, 2, seed=42) == round_robin(4, 3, 2, seed=42)
    assert [m.seed for m in round_robin(4, 3, 2, 42)] != [m.seed for m in round_robin(4, 3, 2, 43)]
    assert round_robin(4, 2, 1, 42)[3].seed == match_seed(42, 3)


def test_a_match_seed_does_not_depend_on_the_schedule_length():
    assert round_robin(3, 2, 1, 9)[2].seed == round_robin(6, 2, 4, 9)[2].seed


def test_seeds_fit_in_a_signed_64_bit_column():
    assert all(0 <= match_seed(s, i) < 2 ** 63 for s in range(20) for i in range(20))


def test_fewer_bots_than_seats_is_refused():
    with pytest.raises(ValueError, match="need at least 3 bots"):
        round_robin(2, 3, 1, 1)


def test_zero_rounds_is_refused():
    with pytest.raises(ValueError, match="rounds"):
        round_robin(3, 2, 0, 1)
