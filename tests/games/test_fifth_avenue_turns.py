"""Fifth Avenue turn options A-D, taking cards, spread bonuses and district scoring."""

from __future__ import annotations

import pytest

from arena.games.base import IllegalAction
from arena.games.fifth_avenue import board as B
from arena.games.fifth_avenue import scoring
from test_fifth_avenue_support import (after_setup, at_turn, commissioner, empty_board, empty_hands,
                                       put, types)

MOVE_WHITE_34W = {"type": "move", "commissioner": "white", "to": "34w"}


def total_cards(state, seat):
    return sum(map(sum, state.coloured[seat])), sum(state.black[seat])


def test_option_a_takes_three_skyscrapers_from_general_into_own_supply():
    state = after_setup()
    state.apply({"type": "take_skyscrapers"})
    assert state.general[0] == 9 and state.own_supply[0] == 6


def test_option_a_takes_fewer_when_fewer_remain():
    state = after_setup()
    state.general[0] = 2
    state.apply({"type": "take_skyscrapers"})
    assert state.general[0] == 0 and state.own_supply[0] == 5


def test_option_a_then_two_cards_of_different_colours_then_a_move():
    state = after_setup()
    state.apply({"type": "take_skyscrapers"})
    assert state.decision() == "take_cards"
    pairs = [tuple(a["colours"]) for a in state.legal_actions()]
    assert len(pairs) == 10 and all(a != b for a, b in pairs)
    top_orange, top_gray = state.stacks[0][-1], state.stacks[2][-1]
    state.apply({"type": "take_cards", "colours": ["gray", "orange"]})  # any order is accepted
    assert state.coloured[0][0][top_orange - 4] >= 1 and state.coloured[0][2][top_gray - 4] >= 1
    assert total_cards(state, 0)[0] == 7
    assert state.decision() == "move" and state.current_seat() == 0


def test_taking_the_same_colour_twice_is_refused():
    state = after_setup()
    state.apply({"type": "take_skyscrapers"})
    with pytest.raises(IllegalAction):
        state.apply({"type": "take_cards", "colours": ["gray", "gray"]})


def test_empty_colour_stacks_are_not_offered():
    state = after_setup()
    state.stacks[0] = []
    state.stacks[1] = []
    state.apply({"type": "take_skyscrapers"})
    offered = {c for a in state.legal_actions() for c in a["colours"]}
    assert offered == {"gray", "brown", "violet"}


def test_with_one_non_empty_stack_its_card_is_taken_automatically():
    state = after_setup()
    for colour in range(4):
        state.stacks[colour] = []
    state.apply({"type": "take_skyscrapers"})
    assert state.decision() == "move"
    assert sum(state.coloured[0][4]) == 2


def test_the_closing_commissioner_move_ends_the_turn_and_play_goes_clockwise():
    state = after_setup()
    state.apply({"type": "take_skyscrapers"})
    state.apply(state.legal_actions()[0])
    state.apply(MOVE_WHITE_34W)
    assert state.commissioners[0] == "34w"
    assert state.decision() == "option" and state.current_seat() == 1


def test_option_b_takes_only_from_the_leftmost_non_empty_set():
    state = empty_board()
    state.supply_row[0] = []
    state.supply_row[1] = [B.BUSINESS_INDEX["gallery"], B.BUSINESS_INDEX["jeweler"]]
    at_turn(state, 0)
    offered = {a["business"] for a in state.legal_actions() if a["type"] == "place_business"}
    assert offered == {"gallery", "jeweler"}


def test_option_b_plot_must_be_empty_or_hold_exactly_one_business():
    state = empty_board()
    put(state, "34w", "orange", businesses=["boutique"])
    put(state, "34w", "green", businesses=["boutique", "gallery"])
    put(state, "34w", "gray", owner=1, towers=2)
    at_turn(state, 0)
    targets = {a["plot"] for a in state.legal_actions()
               if a["type"] == "place_business" and a["district"] == "34w"}
    assert targets == {"orange", "brown", "violet"}


def test_option_b_may_add_the_same_type_as_the_one_already_there():
    state = empty_board()
    state.supply_row[0] = [B.BUSINESS_INDEX["boutique"]] * 3
    put(state, "34w", "orange", businesses=["boutique"])
    at_turn(state, 0)
    state.apply({"type": "place_business", "business": "boutique", "district": "34w", "plot": "orange"})
    assert state.businesses[0][0] == [0, 0]


def test_taking_the_second_to_last_tile_sends_the_last_below_central_park():
    state = empty_board()
    state.supply_row[0] = [0, 1, 2]
    at_turn(state, 0)
    state.apply({"type": "place_business", "business": "boutique", "district": "ts", "plot": "gray"})
    assert state.supply_row[0] == [1, 2] and state.below_park == []
    state.apply(state.legal_actions()[0])
    state.apply(MOVE_WHITE_34W)
    state.apply({"type": "place_business", "business": "gallery", "district": "ts", "plot": "brown"})
    assert state.supply_row[0] == [] and state.below_park == [1]


def test_option_b_then_cards_then_move():
    state = after_setup()
    action = next(a for a in state.legal_actions() if a["type"] == "place_business")
    state.apply(action)
    assert state.decision() == "take_cards"
    state.apply(state.legal_actions()[0])
    assert state.decision() == "move"


def test_option_c_draws_the_top_black_card_moves_takes_cards_and_moves_again():
    state = after_setup()
    top = state.black_stack[-1]
    before = list(state.black[0])
    state.apply({"type": "draw_black"})
    assert state.black[0][top - 4] == before[top - 4] + 1
    assert state.decision() == "move"
    state.apply(MOVE_WHITE_34W)
    assert state.decision() == "take_cards"
    state.apply(state.legal_actions()[0])
    assert state.decision() == "move" and state.current_seat() == 0
    state.apply({"type": "move", "commissioner": "white", "to": "ts"})
    assert state.current_seat() == 1 and state.commissioners[0] == "ts"


def test_option_d_is_not_offered_while_no_commissioner_stands_in_a_district():
    state = after_setup()
    assert "score_district" not in types(state)
    commissioner(state, "white", "central_park")
    at_turn(state, 0)
    assert "score_district" not in types(state)


def test_option_d_offers_the_districts_holding_a_commissioner():
    state = after_setup()
    commissioner(state, "white", "ts")
    commissioner(state, "beige", "52e")
    at_turn(state, 0)
    offered = {a["district"] for a in state.legal_actions() if a["type"] == "score_district"}
    assert offered == {"ts", "52e"}


def test_option_d_scores_the_district_and_hands_out_black_cards():
    state = empty_board(players=3)
    empty_hands(state)
    put(state, "ts", "orange", owner=0, towers=2)  # neighbours violet, brown
    put(state, "ts", "violet", businesses=["boutique", "jeweler"])
    put(state, "ts", "brown", businesses=["gallery"])
    put(state, "ts", "gray", owner=1, towers=1)  # neighbours brown, green
    commissioner(state, "white", "ts")
    at_turn(state, 0)
    state.apply({"type": "score_district", "district": "ts"})
    assert state.scores_ == [2 * 5, 2, 0]
    # The scorer draws 2; seat 2, with no skyscraper in ts, draws 1; seat 1 draws none.
    assert [sum(b) for b in state.black] == [2, 0, 1]
    assert state.decision() == "move" and state.current_seat() == 0


def test_option_d_scorer_without_a_skyscraper_there_takes_a_third_black_card():
    state = empty_board(players=3)
    empty_hands(state)
    put(state, "ts", "gray", owner=1, towers=1)
    commissioner(state, "white", "ts")
    at_turn(state, 0)
    state.apply({"type": "score_district", "district": "ts"})
    # Every player with no skyscraper in the district takes 1: the scorer too (2 + 1).
    assert [sum(b) for b in state.black] == [3, 0, 1]


def test_spread_bonus_after_the_third_sixth_and_ninth_business():
    state = empty_board(players=3)
    for i, d in enumerate(B.DISTRICTS[:5]):
        put(state, d, B.RINGS[d][0], owner=0, towers=1)  # seat 0 in 5 districts
    for d in B.DISTRICTS[:4]:
        put(state, d, B.RINGS[d][1], owner=1, towers=1)  # seat 1 in 4
    for d in B.DISTRICTS[:3]:
        put(state, d, B.RINGS[d][2], owner=2, towers=1)  # seat 2 in 3
    expected = {3: [4, 4, 4], 6: [10, 10, 4], 9: [18, 10, 4]}
    for number in range(1, 10):
        state.businesses_placed = number
        state.spread_bonus()
        if number in expected:
            assert state.scores_ == expected[number]
    assert state.scores_ == [18, 10, 4]


def test_spread_bonus_is_given_by_placing_the_third_business():
    state = empty_board(players=2)
    for d in ("34w", "ts", "52e"):
        put(state, d, B.RINGS[d][0], owner=1, towers=1)
    state.businesses_placed = 2
    at_turn(state, 0)
    state.apply({"type": "place_business", "business": B.BUSINESSES[state.supply_row[0][0]],
                 "district": "42w", "plot": "green"})
    assert state.scores_ == [0, 4]


@pytest.mark.parametrize("neighbour_types, points", [
    ([], 1), (["boutique"], 2), (["boutique", "jeweler"], 3),
    (["boutique", "jeweler", "gallery"], 5), (["boutique", "jeweler", "gallery", "perfumery"], 8),
])
def test_district_score_by_different_types_on_the_two_neighbours(neighbour_types, points):
    state = empty_board()
    put(state, "34w", "green", owner=0, towers=1)  # neighbours orange and gray
    put(state, "34w", "orange", businesses=neighbour_types[:2])
    put(state, "34w", "gray", businesses=neighbour_types[2:])
    assert state.district_points(0)[0] == points


def test_two_equal_businesses_count_as_one_type():
    state = empty_board()
    put(state, "34w", "green", owner=0, towers=1)
    put(state, "34w", "orange", businesses=["boutique", "boutique"])
    put(state, "34w", "gray", businesses=["boutique"])
    assert state.district_points(0)[0] == 2


def test_the_eight_point_skyscraper_check():
    """Neighbours boutique+jeweler and gallery+perfumery: 8 points (official rules check)."""
    businesses = [[0, 1], [], [2, 3]]
    assert scoring.skyscraper_value(businesses, (0, 2)) == 8


def test_every_skyscraper_on_a_plot_scores():
    state = empty_board()
    put(state, "34w", "green", owner=0, towers=3)
    put(state, "34w", "orange", businesses=["boutique"])
    assert state.district_points(0)[0] == 6


def test_a_business_from_a_later_set_is_refused_with_the_allowed_ones():
    state = empty_board()
    state.supply_row[0] = [B.BUSINESS_INDEX["gallery"]] * 3
    at_turn(state, 0)
    with pytest.raises(IllegalAction, match="leftmost non-empty set"):
        state.apply({"type": "place_business", "business": "boutique", "district": "ts", "plot": "gray"})


def test_an_action_of_the_wrong_kind_names_the_allowed_kinds():
    state = after_setup()
    with pytest.raises(IllegalAction, match="allowed action types"):
        state.apply({"type": "pass"})


def test_with_no_non_empty_colour_stack_nothing_is_taken():
    """[decision] Fewer than two stacks: with none left, the step simply passes."""
    state = after_setup()
    for colour in range(5):
        state.stacks[colour] = []
    state.apply({"type": "take_skyscrapers"})
    assert state.decision() == "move" and total_cards(state, 0)[0] == 5


def test_the_starting_businesses_do_not_count_for_the_spread_bonus():
    """[decision] Spread count: after set-up 7 businesses lie on the board, yet the 3rd
    business placed in the game (not the 10th on the board) gives the first bonus."""
    state = after_setup(players=2)
    assert sum(len(p) for d in state.businesses for p in d) == 7 and state.businesses_placed == 0
    for d in ("34w", "ts", "52e"):
        put(state, d, B.RINGS[d][4], owner=1, towers=1)
    state.businesses_placed = 2
    at_turn(state, 0)
    place = next(a for a in state.legal_actions() if a["type"] == "place_business")
    state.apply(place)
    assert state.businesses_placed == 3 and state.scores_[1] == 4


def test_option_d_black_cards_go_clockwise_from_the_scorer_while_the_stack_lasts():
    """[decision] Option D order: with 3 black cards left, the scorer (seat 1) takes 2, then
    seat 2 (clockwise) takes the last one; seat 0, also absent, gets nothing."""
    state = empty_board(players=3)
    empty_hands(state)
    put(state, "ts", "gray", owner=1, towers=1)
    commissioner(state, "white", "ts")
    state.black_stack = [4, 5, 6]
    at_turn(state, 1)
    state.apply({"type": "score_district", "district": "ts"})
    assert [sum(b) for b in state.black] == [0, 2, 1]


def test_a_black_card_from_an_empty_black_stack_is_not_drawn():
    """[decision] Empty black stack: option C draws nothing, and the turn goes on."""
    state = after_setup()
    state.black_stack = []
    before = total_cards(state, 0)
    state.apply({"type": "draw_black"})
    assert total_cards(state, 0) == before and state.decision() == "move"
