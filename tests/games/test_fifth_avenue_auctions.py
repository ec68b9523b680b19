"""Fifth Avenue commissioners, markers and auction rounds (district and Central Park)."""

from __future__ import annotations

import pytest

from arena.games.base import IllegalAction
from arena.games.fifth_avenue import board as B
from test_fifth_avenue_support import (PASS, after_setup, at_move, commissioner, empty_board,
                                       empty_hands, hand, put, bid, start_round, add, DONE)


def auction_board(players=3):
    """Empty board, empty hands, it is seat 0's closing move."""
    state = empty_board(players=players)
    empty_hands(state)
    return state


def test_leaving_a_district_puts_a_marker_there():
    state = after_setup()
    at_move(state, 0)
    state.apply({"type": "move", "commissioner": "white", "to": "34w"})
    assert state.markers[0] == set()  # none when leaving City Hall
    at_move(state, 0)
    state.apply({"type": "move", "commissioner": "white", "to": "ts"})
    assert state.markers == [{B.DISTRICT_INDEX["34w"]}, set()]


def test_both_commissioners_may_share_a_district():
    state = after_setup()
    commissioner(state, "white", "ts")
    at_move(state, 0)
    state.apply({"type": "move", "commissioner": "beige", "to": "34e"})
    at_move(state, 0)
    state.apply({"type": "move", "commissioner": "beige", "to": "ts"})
    assert state.commissioners == ["ts", "ts"]


def test_moves_follow_the_arrows_only():
    state = after_setup()
    commissioner(state, "white", "42w")
    commissioner(state, "beige", "central_park")
    at_move(state, 0)
    assert {(a["commissioner"], a["to"]) for a in state.legal_actions()} == {
        ("white", "52w"), ("beige", "city_hall")}
    with pytest.raises(IllegalAction):
        state.apply({"type": "move", "commissioner": "white", "to": "52e"})


def test_auction_round_visits_marked_districts_column_by_column_then_central_park():
    state = auction_board()
    hand(state, 0, {"orange": [4]})
    start_round(state, 0, markers=["52e", "34w", "ts"])
    visited = []
    while state.auction is not None:
        visited.append(B.CENTRAL_PARK if state.auction.district is None else B.DISTRICTS[state.auction.district])
        if state.decision() == "park_colour":
            state.apply({"type": "park_colour", "colour": "green"})  # seat 0 holds no green
            continue
        state.apply(PASS)
    assert visited == ["34w", "ts", "52e", "central_park"]


def test_after_the_round_the_commissioner_and_its_markers_are_back_in_city_hall():
    state = auction_board()
    commissioner(state, "beige", "ts", markers=["34e"])
    start_round(state, 0, markers=["34w", "ts"])
    state.apply({"type": "park_colour", "colour": "orange"})
    assert state.commissioners == ["city_hall", "ts"]
    assert state.markers == [set(), {B.DISTRICT_INDEX["34e"]}]
    assert state.decision() == "option" and state.current_seat() == 1


def test_bidding_starts_with_the_mover_and_goes_clockwise():
    state = auction_board()
    for seat in range(3):
        hand(state, seat, {"orange": [4, 4, 5]})
    start_round(state, 1, markers=["ts"])
    order = []
    for coloured in ([4], [5], [4, 4]):
        order.append(state.current_seat())
        bid(state, "orange", coloured)
    assert order == [1, 2, 0]


def test_a_raise_must_exceed_the_highest_total():
    state = auction_board()
    hand(state, 0, {"orange": [5]})
    hand(state, 1, {"orange": [4, 5]})
    start_round(state, 0, markers=["ts"])
    bid(state, "orange", [5])
    state.apply(add("orange", 4))
    assert DONE not in state.legal_actions()
    with pytest.raises(IllegalAction, match="does not exceed"):
        state.apply(DONE)
    state.apply(add("orange", 5))
    assert DONE in state.legal_actions()


def test_bids_are_cumulative():
    state = auction_board(players=2)
    state.black_stack = []  # Alea finds no cards and stays out
    hand(state, 0, {"orange": [4]}, black=[4])
    hand(state, 1, {"green": [5, 6]})
    start_round(state, 0, markers=["ts"])
    bid(state, "orange", [4])
    bid(state, "green", [5])
    # Seat 0 adds a black 4: 4 + 4 = 8 beats 5.
    bid(state, "orange", [], [4])
    assert state.auction.bids[0].total() == 8 and state.auction.high == 8


def test_first_bid_needs_a_coloured_card():
    state = auction_board()
    hand(state, 0, {"orange": [4]}, black=[6, 6])
    start_round(state, 0, markers=["ts"])
    assert add("black", 6) not in state.legal_actions()
    with pytest.raises(IllegalAction, match="must be coloured"):
        state.apply(add("black", 6))


def test_later_cards_must_be_the_first_colour_or_black():
    state = auction_board()
    hand(state, 0, {"orange": [4, 5], "green": [6]}, black=[5])
    hand(state, 1, {"green": [6]})
    start_round(state, 0, markers=["ts"])
    bid(state, "orange", [4])
    bid(state, "green", [6])  # seat 2 holds no card and passes automatically
    assert {a["colour"] for a in state.legal_actions() if a["type"] == "add"} == {"orange", "black"}
    with pytest.raises(IllegalAction, match="orange"):
        state.apply(add("green", 6))


def test_first_card_colour_is_the_own_plot_colour():
    state = auction_board()
    put(state, "ts", "violet", owner=0, towers=1)
    hand(state, 0, {"orange": [4], "violet": [4]})
    start_round(state, 0, markers=["ts"])
    assert state.auction.allowed[0] == (B.COLOUR_INDEX["violet"],)


def test_first_card_colour_is_an_empty_plot_colour_without_own_plot():
    state = auction_board()
    put(state, "ts", "violet", owner=1, towers=1)
    put(state, "ts", "gray", businesses=["boutique"])
    hand(state, 0, {"orange": [4]})
    start_round(state, 0, markers=["ts"])
    assert {B.COLOURS[c] for c in state.auction.allowed[0]} == {"orange", "brown", "green"}


def test_first_card_colour_is_a_business_plot_colour_when_no_plot_is_empty():
    state = auction_board()
    ring = B.RINGS["ts"]
    put(state, "ts", ring[0], owner=1, towers=1)
    put(state, "ts", ring[1], owner=2, towers=1)
    for colour in ring[2:]:
        put(state, "ts", colour, businesses=["gallery"])
    hand(state, 0, {"orange": [4], "gray": [4]})
    start_round(state, 0, markers=["ts"])
    assert {B.COLOURS[c] for c in state.auction.allowed[0]} == set(ring[2:])
    assert state.auction.had_empty is False


def test_a_pass_is_final_and_the_cards_go_back_to_the_hand():
    state = auction_board()
    hand(state, 0, {"orange": [4, 5, 6]})
    hand(state, 1, {"orange": [5, 6]})
    start_round(state, 0, markers=["ts"])
    bid(state, "orange", [4])
    bid(state, "orange", [5])
    state.apply(PASS)
    assert state.coloured[0][0] == [1, 1, 1]
    # Seat 1 is the only bidder left: the auction ends without asking seat 0 again.
    assert state.auction.district is None  # Central Park is next


def test_winner_discards_bid_cards_under_their_stacks():
    state = auction_board()
    hand(state, 0, {"green": [5]}, black=[6, 4])
    start_round(state, 0, markers=["ts"])
    green_before = list(state.stacks[1])
    black_before = list(state.black_stack)
    bid(state, "green", [5], [4, 6])
    assert state.stacks[1] == [5] + green_before
    assert state.black_stack[2:] == black_before and sorted(state.black_stack[:2]) == [4, 6]
    assert state.coloured[0][1] == [0, 0, 0] and state.black[0] == [0, 0, 0]


@pytest.mark.parametrize("coloured, black, built", [
    ([4], [], 3), ([4, 4], [4], 3), ([4], [5], 2), ([5], [4, 4], 2), ([4], [6], 1), ([6], [], 1),
])
def test_winner_builds_three_two_one_by_the_highest_card(coloured, black, built):
    state = auction_board()
    state.own_supply[0] = 5
    hand(state, 0, {"brown": coloured}, black=black)
    start_round(state, 0, markers=["ts"])
    bid(state, "brown", coloured, black)
    d, p = B.DISTRICT_INDEX["ts"], B.RINGS["ts"].index("brown")
    assert state.towers[d][p] == built and state.owner[d][p] == 0
    assert state.own_supply[0] == 5 - built


def test_winner_builds_fewer_when_the_own_supply_is_short():
    state = auction_board()
    state.own_supply[0] = 1
    hand(state, 0, {"brown": [4]})
    start_round(state, 0, markers=["ts"])
    bid(state, "brown", [4])
    d, p = B.DISTRICT_INDEX["ts"], B.RINGS["ts"].index("brown")
    assert state.towers[d][p] == 1 and state.own_supply[0] == 0


def test_winner_builds_on_its_own_plot():
    state = auction_board()
    put(state, "ts", "gray", owner=0, towers=1)
    hand(state, 0, {"gray": [5]})
    start_round(state, 0, markers=["ts"])
    bid(state, "gray", [5])
    assert state.towers[B.DISTRICT_INDEX["ts"]][2] == 3


def test_nobody_builds_when_everybody_passes():
    state = auction_board()
    hand(state, 0, {"brown": [4]})
    start_round(state, 0, markers=["ts"])
    state.apply(PASS)
    assert state.towers[B.DISTRICT_INDEX["ts"]] == [0] * 5
    assert state.coloured[0][3] == [1, 0, 0]


def test_seat_that_cannot_raise_passes_automatically():
    state = auction_board()
    hand(state, 0, {"brown": [4]})
    hand(state, 1, {"brown": [4]})  # cannot beat 4
    hand(state, 2, {"green": [6]})
    start_round(state, 0, markers=["ts"])
    bid(state, "brown", [4])
    assert state.current_seat() == 2
    assert state.auction.passed[1] is True


def test_central_park_opener_chooses_the_colour_for_everybody():
    state = auction_board()
    hand(state, 0, {"green": [4], "orange": [6]})
    hand(state, 1, {"green": [5], "orange": [6]}, black=[4])
    start_round(state, 0)
    assert state.decision() == "park_colour" and state.current_seat() == 0
    state.apply({"type": "park_colour", "colour": "green"})
    assert {a.get("colour") for a in state.legal_actions()} == {None, "green"}
    bid(state, "green", [4])
    assert {a.get("colour") for a in state.legal_actions()} == {None, "green"}
    with pytest.raises(IllegalAction):
        bid(state, "orange", [6])


def test_central_park_winner_places_skyscrapers_around_the_park():
    state = auction_board()
    hand(state, 0, {"green": [5]})
    start_round(state, 0)
    state.apply({"type": "park_colour", "colour": "green"})
    bid(state, "green", [5])
    assert state.park[0] == 2 and state.own_supply[0] == 1


def test_option_c_move_may_start_the_round_and_cards_follow_it():
    state = auction_board()
    commissioner(state, "white", "central_park", markers=["ts"])
    hand(state, 0, {"green": [5]})
    from test_fifth_avenue_support import at_turn
    at_turn(state, 0)
    state.apply({"type": "draw_black"})
    state.apply({"type": "move", "commissioner": "white", "to": "city_hall"})
    assert state.decision() == "bid"
    state.apply(PASS)
    state.apply({"type": "park_colour", "colour": "violet"})
    assert state.decision() == "take_cards" and state.current_seat() == 0
    state.apply(state.legal_actions()[0])
    assert state.decision() == "move"


def test_pass_in_the_middle_of_a_raise_returns_every_card():
    state = auction_board()
    hand(state, 0, {"orange": [4, 6]}, black=[5])
    hand(state, 1, {"orange": [5, 6]})
    start_round(state, 0, markers=["ts"])
    bid(state, "orange", [4])
    bid(state, "orange", [5])
    state.apply(add("black", 5))  # the raise is not done yet
    state.apply(PASS)
    assert state.coloured[0][0] == [1, 0, 1] and state.black[0] == [0, 1, 0]


def test_cards_being_added_are_shown_in_the_observation():
    state = auction_board()
    hand(state, 0, {"orange": [4, 6]})
    start_round(state, 0, markers=["ts"])
    state.apply(add("orange", 4))
    bidder = state.observation(1)["auction"]["bidders"][0]
    assert bidder["bidder"] == 0 and bidder["coloured"] == [4] and bidder["total"] == 4
    assert state.observation(1)["auction"]["high"] == 0


def test_a_card_value_sent_as_json_float_is_taken_as_that_card():
    state = auction_board()
    hand(state, 0, {"orange": [4]}, black=[5])
    start_round(state, 0, markers=["ts"])
    state.apply({"type": "add", "colour": "orange", "value": 4.0})
    state.apply({"type": "add", "colour": "black", "value": 5.0})
    assert state.auction.bids[0].total() == 9
    assert state.coloured[0][0] == [0, 0, 0] and state.black[0] == [0, 0, 0]


def test_finished_auctions_is_empty_before_any_auction_has_ended():
    assert after_setup().observation(0)["finished_auctions"] == []


def test_a_finished_auction_shows_the_winning_bid_the_passes_and_what_was_built():
    state = auction_board()
    hand(state, 0, {"brown": [4]}, black=[5])
    hand(state, 1, {"brown": [4]})  # cannot beat 9: passes automatically, never asked
    start_round(state, 0, markers=["ts"])
    bid(state, "brown", [4], [5])
    [last] = state.observation(1)["finished_auctions"]
    assert (last["number"], last["district"], last["winner"], last["high"]) == (1, "ts", 0, 9)
    assert [(b["bidder"], b["passed"], b["total"]) for b in last["bidders"]] == [(0, False, 9), (1, True, 0), (2, True, 0)]
    assert (last["bidders"][0]["colour"], last["bidders"][0]["coloured"], last["bidders"][0]["black"]) == ("brown", [4], [5])
    assert (last["result"], last["plot"], last["skyscrapers"]) == ("built", "brown", 2)
    assert last["alea_cards"] == []


def test_a_finished_auction_without_bids_has_no_winner():
    state = auction_board()
    hand(state, 0, {"brown": [4]})
    start_round(state, 0, markers=["ts"])
    state.apply(PASS)
    [last] = state.observation(0)["finished_auctions"]
    assert (last["winner"], last["result"], last["plot"], last["skyscrapers"]) == (None, "nobody", None, 0)


def test_a_finished_central_park_auction_counts_the_park_skyscrapers():
    state = auction_board()
    hand(state, 0, {"green": [5]})
    start_round(state, 0)
    state.apply({"type": "park_colour", "colour": "green"})
    bid(state, "green", [5])
    [last] = state.observation(2)["finished_auctions"]
    assert (last["district"], last["park_colour"], last["winner"]) == ("central_park", "green", 0)
    assert (last["result"], last["plot"], last["skyscrapers"]) == ("park", None, 2)


def test_each_finished_auction_is_shown_to_a_seat_until_its_next_decision():
    state = auction_board()
    hand(state, 0, {"brown": [4]})
    start_round(state, 0, markers=["ts"])
    state.apply(PASS)  # seat 0's pass ends the ts auction; Central Park's begins
    assert [a["district"] for a in state.observation(0)["finished_auctions"]] == ["ts"]
    state.apply({"type": "park_colour", "colour": "brown"})  # seat 0 decides: ts is not news any more
    assert state.observation(0)["finished_auctions"] == []
    state.apply(PASS)  # seat 0 passes, seats 1 and 2 (no cards) pass automatically
    assert [a["number"] for a in state.observation(0)["finished_auctions"]] == [2]
    assert [a["number"] for a in state.observation(1)["finished_auctions"]] == [1, 2]  # not asked since


def test_a_last_bidder_who_has_not_bid_yet_still_decides():
    """[decision] Last bidder decides: seats 0 and 1 pass; seat 2 has not bid and is asked
    (it does not win with an empty bid)."""
    state = auction_board()
    hand(state, 0, {"brown": [4]})
    hand(state, 1, {"brown": [4]})
    hand(state, 2, {"brown": [5]})
    start_round(state, 0, markers=["ts"])
    state.apply(PASS)
    state.apply(PASS)
    assert state.current_seat() == 2 and state.decision() == "bid"
    state.apply(PASS)
    assert state.towers[B.DISTRICT_INDEX["ts"]] == [0] * 5


def test_discarded_bid_cards_go_under_the_stack_sixes_lowest_then_fives_then_fours():
    """[decision] Discard order."""
    state = auction_board()
    hand(state, 0, {"green": [4, 5, 6]}, black=[4, 6, 5])
    start_round(state, 0, markers=["ts"])
    green_before, black_before = list(state.stacks[1]), list(state.black_stack)
    bid(state, "green", [5, 4, 6], [5, 4, 6])
    assert state.stacks[1] == [6, 5, 4] + green_before  # the bottom of a stack is its start
    assert state.black_stack == [6, 5, 4] + black_before


def test_a_winner_with_an_empty_own_supply_builds_nothing_but_spends_the_cards():
    """[decision] Short own supply."""
    state = auction_board()
    state.own_supply[0] = 0
    hand(state, 0, {"brown": [4]})
    start_round(state, 0, markers=["ts"])
    bid(state, "brown", [4])
    assert state.towers[B.DISTRICT_INDEX["ts"]] == [0] * 5 and state.coloured[0][3] == [0, 0, 0]
    assert state.stacks[3][0] == 4


def test_the_central_park_opener_may_pass_after_choosing_the_colour():
    """[decision] Park colour: choosing the colour is its own decision; then the opener bids
    like anybody, and may pass."""
    state = auction_board()
    hand(state, 0, {"green": [4]})
    hand(state, 1, {"green": [5]})
    start_round(state, 0)
    state.apply({"type": "park_colour", "colour": "green"})
    assert state.current_seat() == 0 and {"type": "pass"} in state.legal_actions()
    state.apply(PASS)
    assert state.current_seat() == 1
    bid(state, "green", [5])
    assert state.park == [0, 2, 0]
