"""Round-robin schedules: who meets, seat balance, repeats, deals, and a fair order."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from arena.results import keys
from arena.tournament.formats.roundrobin import match_count, round_robin


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


def test_rounds_repeat_the_meetings_on_fresh_deals():
    schedule = round_robin(3, 2, rounds=3, seed=5)
    per_round = [sorted(m.seats for m in schedule if m.round == r) for r in range(3)]
    assert per_round[0] == per_round[1] == per_round[2]
    assert len({m.deal for m in schedule}) == len(schedule)
    assert [m.index for m in schedule] == list(range(18))
    assert [m.round for m in schedule] == sorted(m.round for m in schedule)


def test_the_tournament_seed_determines_the_schedule():
    assert round_robin(6, 3, 2, seed=42) == round_robin(6, 3, 2, seed=42)
    assert [m.seats for m in round_robin(6, 3, 2, 42)] != [m.seats for m in round_robin(6, 3, 2, 43)]


@pytest.mark.parametrize("entries, players", [(200, 2), (30, 4), (12, 3)])
def test_at_any_moment_every_bot_has_played_about_as_many_matches(entries, players):
    schedule = round_robin(entries, players, rounds=1, seed=3)
    played = [0] * entries
    worst = 0
    for match in schedule:
        for entry in match.seats:
            played[entry] += 1
        worst = max(worst, max(played) - min(played))
    assert worst <= players + 1


def test_duplicate_sets_of_three_players_share_a_deal_in_every_order():
    schedule = round_robin(4, 3, rounds=1, seed=2, duplicate=True)
    assert len(schedule) == match_count(4, 3, 1, duplicate=True) == 4 * 6
    by_deal: dict[int, list] = {}
    for match in schedule:
        by_deal.setdefault(match.deal, []).append(match.seats)
    for orders in by_deal.values():
        assert len(orders) == 6 and len(set(orders)) == 6
        assert len({frozenset(s) for s in orders}) == 1


def test_duplicate_sets_of_four_players_are_the_rotations_played_together():
    schedule = round_robin(5, 4, rounds=1, seed=2, duplicate=True)
    for start in range(0, len(schedule), 4):
        block = schedule[start:start + 4]
        assert len({m.deal for m in block}) == 1
        assert {m.seats[0] for m in block} == set(block[0].seats)


def test_deal_seeds_are_keyed_by_the_secret_and_fit_a_signed_64_bit_column():
    secret = keys.secret_for("tournament", 1)
    assert keys.deal_seed(secret, 3) == keys.deal_seed(secret, 3)
    assert keys.deal_seed(secret, 3) != keys.deal_seed(keys.secret_for("tournament", 2), 3)
    assert all(0 <= keys.deal_seed(secret, i) < 2 ** 63 for i in range(50))


def test_fewer_bots_than_seats_is_refused():
    with pytest.raises(ValueError, match="need at least 3 bots"):
        round_robin(2, 3, 1, 1)


def test_zero_rounds_is_refused():
    with pytest.raises(ValueError, match="rounds"):
        round_robin(3, 2, 0, 1)
