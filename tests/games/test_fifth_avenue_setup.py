"""Fifth Avenue set-up: starting businesses, supply row, hands, supplies, snake placement."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.games.fifth_avenue import board as B
from test_fifth_avenue_support import after_setup, new_state


@pytest.mark.parametrize("seed", range(40))
def test_starting_businesses_one_per_district_every_colour_once_or_twice(seed):
    state = new_state(players=3, seed=seed)
    colours = Counter()
    for d in range(len(B.DISTRICTS)):
        occupied = [p for p in range(5) if state.businesses[d][p]]
        assert len(occupied) == 1 and len(state.businesses[d][occupied[0]]) == 1
        colours[B.RINGS[B.DISTRICTS[d]][occupied[0]]] += 1
    assert set(colours) == set(B.COLOURS)
    assert max(colours.values()) <= 2


def test_supply_row_has_eight_sets_of_three_and_two():
    state = new_state()
    assert [len(row) for row in state.supply_row] == [3, 2, 3, 2, 3, 2, 3, 2]


def test_all_36_businesses_are_accounted_for_with_9_removed():
    state = new_state()
    on_board = [b for d in state.businesses for p in d for b in p]
    row = [b for r in state.supply_row for b in r]
    assert len(state.removed) == 9 and len(on_board) == 7 and len(row) == 20
    assert Counter(on_board + row + state.removed) == Counter({b: 9 for b in range(4)})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_player_gets_one_card_of_each_colour_and_four_black(players):
    state = new_state(players=players)
    for seat in range(players):
        assert [sum(c) for c in state.coloured[seat]] == [1] * 5
        assert sum(state.black[seat]) == 4
    assert [len(s) for s in state.stacks] == [12 - players] * 5
    assert len(state.black_stack) == 50 - 4 * players


def test_colour_stacks_hold_five_fours_four_fives_three_sixes():
    state = new_state(players=2)
    for colour in range(5):
        cards = Counter(state.stacks[colour])
        for seat in range(2):
            for i in range(3):
                cards[4 + i] += state.coloured[seat][colour][i]
        assert cards == Counter({4: 5, 5: 4, 6: 3})


def test_black_stack_holds_twenty_fours_sixteen_fives_fourteen_sixes():
    state = new_state(players=4)
    cards = Counter(state.black_stack)
    for seat in range(4):
        for i in range(3):
            cards[4 + i] += state.black[seat][i]
    assert cards == Counter({4: 20, 5: 16, 6: 14})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_skyscraper_supplies_start_with_three_own_and_twelve_general(players):
    state = new_state(players=players)
    assert state.own_supply[:players] == [3] * players
    assert state.general[:players] == [12] * players


@pytest.mark.parametrize("players, order", [
    (2, [0, 1, 1, 0]),
    (3, [0, 2, 1, 1, 2, 0]),
    (4, [0, 3, 2, 1, 1, 2, 3, 0]),
])
def test_snake_placement_of_the_first_skyscrapers(players, order):
    state = new_state(players=players)
    seen = []
    while state.decision() == "place_skyscraper":
        seen.append(state.current_seat())
        state.apply(state.legal_actions()[-1])
    assert seen == order


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_player_places_two_skyscrapers_at_set_up(players):
    state = after_setup(players=players)
    placed = Counter(o for d in state.owner for o in d if o >= 0)
    assert placed == Counter({seat: 2 for seat in range(players)})
    assert all(t in (0, 1) for d in state.towers for t in d)


def test_commissioners_start_in_city_hall_and_seat_0_takes_the_first_turn():
    state = after_setup(players=3)
    assert state.commissioners == ["city_hall", "city_hall"]
    assert state.decision() == "option" and state.current_seat() == 0


def test_set_up_is_reproducible_from_the_seed():
    assert new_state(seed=7).snapshot() == new_state(seed=7).snapshot()
    assert new_state(seed=7).snapshot() != new_state(seed=8).snapshot()
