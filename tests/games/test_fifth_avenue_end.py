"""Fifth Avenue end of the game, final scoring, Central Park, tie-break and ranks."""

from __future__ import annotations

import pytest

from arena.games.fifth_avenue import board as B
from test_fifth_avenue_support import at_turn, empty_board, empty_hands, hand, put


def last_set_state(players=3):
    state = empty_board(players=players)
    empty_hands(state)
    for row in state.supply_row[:-1]:
        row.clear()
    state.supply_row[-1] = [B.BUSINESS_INDEX["gallery"], B.BUSINESS_INDEX["jeweler"]]
    state.below_park = []
    at_turn(state, 1)
    return state


def place_from_last_set(state):
    state.apply({"type": "place_business", "business": "gallery", "district": "34w", "plot": "green"})


def test_placing_from_the_last_set_ends_the_game_at_once():
    state = last_set_state()
    place_from_last_set(state)
    assert state.is_over() and state.end_reason == "last set"
    assert state.current_seat() is None and state.legal_actions() == []


def test_last_tile_goes_below_central_park_and_no_cards_are_taken():
    state = last_set_state()
    place_from_last_set(state)
    assert state.below_park == [B.BUSINESS_INDEX["jeweler"]]
    assert sum(map(sum, state.coloured[1])) == 0
    assert state.commissioners == ["city_hall", "city_hall"]


def test_final_scoring_scores_every_open_district_once_more():
    state = last_set_state()
    put(state, "34w", "orange", owner=0, towers=2)  # neighbours violet, green
    put(state, "34w", "violet", businesses=["boutique"])
    put(state, "52e", "brown", owner=2, towers=1)  # neighbours green, orange
    state.closed[B.DISTRICT_INDEX["42w"]] = True
    place_from_last_set(state)  # gallery on 34w green: orange now sees 2 types
    assert state.scores_ == [2 * 3, 0, 1]


@pytest.mark.parametrize("below, per_skyscraper", [
    (["gallery", "gallery", "gallery"], 2),
    (["gallery", "boutique"], 3),
    (["gallery", "boutique", "jeweler", "perfumery"], 5),
])
def test_central_park_scores_by_the_types_of_three_revealed_tiles(below, per_skyscraper):
    state = last_set_state()
    # The placed gallery's partner tile is the last of ``below`` to arrive below the park.
    state.below_park = [B.BUSINESS_INDEX[b] for b in below[:-1]]
    state.supply_row[-1] = [B.BUSINESS_INDEX["gallery"], B.BUSINESS_INDEX[below[-1]]]
    state.park = [2, 1, 0]
    place_from_last_set(state)
    assert len(state.revealed) == min(3, len(below))
    assert state.scores_ == [2 * per_skyscraper, per_skyscraper, 0]


def test_central_park_scores_nothing_when_no_tile_lies_below_it():
    state = last_set_state()
    state.park = [2, 1, 0]
    state.end_game("second building stop")
    assert state.revealed == [] and state.scores_ == [0, 0, 0]


def test_most_points_wins():
    state = last_set_state()
    state.scores_ = [10, 30, 20]
    place_from_last_set(state)
    assert state.ranks() == [3, 1, 2]


def test_tie_is_broken_by_most_building_cards_in_hand():
    state = last_set_state()
    state.scores_ = [20, 20, 5]
    hand(state, 0, {"green": [4]}, black=[5])
    hand(state, 1, {"green": [4, 6]}, black=[5])
    place_from_last_set(state)
    assert state.ranks() == [2, 1, 3]


def test_full_tie_shares_the_rank():
    state = last_set_state()
    state.scores_ = [20, 20, 5]
    hand(state, 0, black=[5])
    hand(state, 1, {"orange": [4]})
    place_from_last_set(state)
    assert state.ranks() == [1, 1, 3]


def test_turn_limit_ends_a_stalled_game():
    from arena.games.fifth_avenue.state import MAX_TURNS
    state = empty_board(players=2)
    state.turn_number = MAX_TURNS - 1
    at_turn(state, 0)
    state.apply({"type": "take_skyscrapers"})
    state.apply(state.legal_actions()[0])
    state.apply({"type": "move", "commissioner": "white", "to": "34w"})
    assert state.is_over() and state.end_reason == "turn limit"
