"""Fifth Avenue building stops: forced or chosen, scoring, clearing, closing, the second stop."""

from __future__ import annotations

from arena.games.fifth_avenue import board as B
from test_fifth_avenue_support import (at_move, at_turn, commissioner, empty_board, empty_hands,
                                       hand, put, bid, start_round)

TS = B.DISTRICT_INDEX["ts"]


def full_times_square(players=3):
    """The official example: ts is full; seat 1 has 1 skyscraper worth 5, seat 2 has 3 worth 2
    each (6 in all); four skyscrapers in the district. Ring: orange brown gray green violet."""
    state = empty_board(players=players)
    empty_hands(state)
    put(state, "ts", "orange", owner=1, towers=1)  # neighbours violet + brown: 3 types
    put(state, "ts", "violet", businesses=["boutique", "jeweler"])
    put(state, "ts", "brown", businesses=["gallery"])
    put(state, "ts", "gray", owner=2, towers=3)  # neighbours brown + green: 1 type
    put(state, "ts", "green", businesses=["gallery"])
    return state


def test_official_example_declarer_gets_4_and_others_half():
    state = full_times_square()
    hand(state, 0, {"violet": [4]})
    start_round(state, 0, markers=["ts"])
    bid(state, "violet", [4])  # seats 1 and 2 hold no cards
    assert state.scores_ == [4, 2, 3]


def test_winner_without_a_skyscraper_there_must_stop():
    state = full_times_square()
    hand(state, 0, {"brown": [4]})
    start_round(state, 0, markers=["ts"])
    bid(state, "brown", [4])
    assert state.closed[TS] and state.decision() == "park_colour"


def test_winner_with_a_skyscraper_there_chooses_build_or_stop():
    state = full_times_square()
    hand(state, 1, {"orange": [5]})
    start_round(state, 1, markers=["ts"])
    bid(state, "orange", [5])
    assert state.decision() == "build_or_stop" and state.current_seat() == 1
    assert state.legal_actions() == [{"type": "build"}, {"type": "building_stop"}]
    state.apply({"type": "build"})
    assert state.towers[TS][0] == 3 and not state.closed[TS]


def test_chosen_building_stop_scores_for_the_declarer():
    state = full_times_square()
    hand(state, 2, {"gray": [5]})
    start_round(state, 2, markers=["ts"])
    bid(state, "gray", [5])
    state.apply({"type": "building_stop"})
    assert state.scores_ == [0, 2, 4]


def test_no_choice_when_the_district_had_an_empty_plot():
    state = empty_board()
    empty_hands(state)
    put(state, "ts", "orange", owner=1, towers=1)
    hand(state, 1, {"orange": [4]})
    start_round(state, 1, markers=["ts"])
    bid(state, "orange", [4])
    assert state.towers[TS][0] == 4 and not state.closed[TS]


def test_stop_removes_everything_and_closes_the_district():
    state = full_times_square()
    hand(state, 0, {"green": [4]})
    start_round(state, 0, markers=["ts"])
    bid(state, "green", [4])
    assert state.closed[TS]
    assert state.businesses[TS] == [[]] * 5 and state.towers[TS] == [0] * 5 and state.owner[TS] == [-1] * 5
    assert state.gone == [0, 1, 3]


def test_closed_district_is_skipped_by_commissioners():
    state = full_times_square()
    state.closed[TS] = True
    commissioner(state, "white", "34e")
    at_move(state, 0)
    targets = {a["to"] for a in state.legal_actions() if a["commissioner"] == "white"}
    assert targets == {"52w", "52e", "42e"}


def test_marker_lying_in_a_stopped_district_goes_back_without_auction():
    state = full_times_square()
    commissioner(state, "beige", "52e", markers=["ts", "34e"])
    hand(state, 0, {"green": [4]})
    start_round(state, 0, markers=["ts"])
    bid(state, "green", [4])
    assert state.markers[1] == {B.DISTRICT_INDEX["34e"]}


def test_commissioner_in_a_stopped_district_stays_but_leaves_no_marker():
    state = full_times_square()
    commissioner(state, "beige", "ts")
    hand(state, 0, {"green": [4]})
    start_round(state, 0, markers=["ts"])
    bid(state, "green", [4])
    state.apply({"type": "park_colour", "colour": "green"})
    assert state.commissioners[1] == "ts"
    at_move(state, 1)
    state.apply({"type": "move", "commissioner": "beige", "to": "52e"})
    assert state.markers[1] == set()


def test_closed_district_can_be_neither_scored_nor_built_on():
    state = full_times_square()
    state.closed[TS] = True
    for p in range(5):
        state.owner[TS][p], state.towers[TS][p], state.businesses[TS][p] = -1, 0, []
    commissioner(state, "white", "ts")
    at_turn(state, 0)
    actions = state.legal_actions()
    assert not any(a.get("district") == "ts" for a in actions)


def test_second_building_stop_ends_the_game_without_further_auctions():
    state = full_times_square()
    state.stops = 1
    hand(state, 0, {"green": [4], "orange": [4]})
    start_round(state, 0, markers=["ts", "52e"])
    bid(state, "green", [4])
    assert state.is_over() and state.end_reason == "second building stop"
    assert state.towers[B.DISTRICT_INDEX["52e"]] == [0] * 5
    assert state.coloured[0][0] == [1, 0, 0]  # the 52e auction never happened


def test_first_building_stop_does_not_end_the_game():
    state = full_times_square()
    hand(state, 0, {"green": [4]})
    start_round(state, 0, markers=["ts"])
    bid(state, "green", [4])
    assert state.decision() == "park_colour"
    state.apply({"type": "park_colour", "colour": "green"})
    assert not state.is_over() and state.stops == 1 and state.decision() == "option"


def test_build_choice_is_shown_to_the_chooser():
    state = full_times_square()
    hand(state, 1, {"orange": [5]})
    start_round(state, 1, markers=["ts"])
    bid(state, "orange", [5])
    assert state.observation(1)["build_choice"] == {"district": "ts", "plot": "orange", "skyscrapers": 2}


def test_a_finished_auction_records_a_forced_building_stop():
    state = full_times_square()
    hand(state, 0, {"brown": [4]})
    start_round(state, 0, markers=["ts"])
    bid(state, "brown", [4])
    [last] = state.observation(1)["finished_auctions"]
    assert (last["winner"], last["result"], last["plot"]) == (0, "building_stop", "brown")


def test_a_finished_auction_records_the_build_or_stop_choice_once_made():
    state = full_times_square()
    hand(state, 1, {"orange": [5]})
    start_round(state, 1, markers=["ts"])
    bid(state, "orange", [5])
    assert state.observation(0)["finished_auctions"][-1]["result"] == "build_or_stop"
    state.apply({"type": "build"})
    last = state.observation(0)["finished_auctions"][-1]
    assert (last["result"], last["plot"], last["skyscrapers"]) == ("built", "orange", 2)
