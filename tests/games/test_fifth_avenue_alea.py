"""Fifth Avenue with 2 players: the virtual bidder Alea."""

from __future__ import annotations

from itertools import product

from arena.games.base import random_playout
from arena.games.fifth_avenue import board as B
from arena.games.fifth_avenue.auction import alea_draw
from test_fifth_avenue_support import (GAME, PASS, at_turn, commissioner, empty_board, empty_hands,
                                       hand, put, bid, start_round)

TS = B.DISTRICT_INDEX["ts"]
ALEA = 2


def two_player(draw_first):
    """Empty 2-player board and hands; Alea's next draw turns up ``draw_first`` in this order."""
    state = empty_board(players=2)
    empty_hands(state)
    state.black_stack = [6, 6, 6, 6] + list(reversed(draw_first))
    return state


def test_alea_bid_is_always_between_8_and_21():
    sums = set()
    for cards in product((4, 5, 6), repeat=4):
        drawn = alea_draw(list(reversed(cards)))
        assert drawn[-1] in drawn[:-1]  # stops at the first repeat
        sums.add(sum(drawn))
    assert min(sums) == 8 and max(sums) == 21


def test_alea_extremes_are_4_4_and_4_5_6_6():
    assert sum(alea_draw([4, 4])) == 8
    assert sum(alea_draw([6, 6, 5, 4])) == 21


def test_alea_is_not_a_seat():
    state, record = random_playout(GAME, 2, 5)
    assert {seat for seat, _ in record.actions} <= {0, 1}
    assert len(state.scores()) == 2 and len(state.ranks()) == 2


def test_alea_acts_third_and_only_once():
    state = two_player([4, 5, 4])
    hand(state, 0, {"orange": [4, 6]}, black=[6, 6])
    hand(state, 1, {"orange": [5]})
    start_round(state, 0, markers=["ts"])
    bid(state, "orange", [4])
    assert state.auction.alea_acted is False
    bid(state, "orange", [5])
    # Alea turned up 4, 5, 4: bid 13 beats 5.
    assert state.auction.alea_acted is True and state.auction.leader == ALEA and state.auction.high == 13
    assert state.auction.alea_cards == [4, 5, 4]
    assert state.current_seat() == 0


def test_alea_cards_go_to_the_bottom_of_the_black_stack():
    state = two_player([4, 5, 4])
    hand(state, 0, {"orange": [4]})
    start_round(state, 0, markers=["ts"])
    state.apply(PASS)
    assert state.black_stack[:3] == [4, 5, 4] and len(state.black_stack) == 7


def test_alea_is_out_when_its_sum_does_not_beat_the_top_bid():
    state = two_player([4, 4])
    hand(state, 0, {"orange": [4, 6]})
    hand(state, 1, {"orange": [5]})
    start_round(state, 0, markers=["ts"])
    bid(state, "orange", [4, 6])  # 10 beats Alea's 8; seat 1 cannot beat 10
    d, p = TS, B.RINGS["ts"].index("orange")
    assert state.owner[d][p] == 0 and ALEA not in state.owner[d]


def test_alea_wins_when_both_players_pass_and_builds_by_its_highest_card():
    state = two_player([5, 4, 5])  # 14, highest 5: two skyscrapers
    hand(state, 0, {"orange": [4]})
    hand(state, 1, {"orange": [4]})
    start_round(state, 0, markers=["ts"])
    state.apply(PASS)
    state.apply(PASS)
    assert sorted(state.towers[TS]) == [0, 0, 0, 0, 2]
    assert ALEA in state.owner[TS] and state.own_supply[ALEA] == 16


def test_players_may_overbid_alea_which_is_then_out():
    state = two_player([4, 4])
    hand(state, 0, {"orange": [4]}, black=[5])
    hand(state, 1, {"green": [5]})
    start_round(state, 0, markers=["ts"])
    bid(state, "orange", [4])
    state.apply(PASS)  # seat 1
    assert state.auction.leader == ALEA and state.current_seat() == 0
    bid(state, "orange", [], [5])  # 9 beats 8
    d, p = TS, B.RINGS["ts"].index("orange")
    assert state.owner[d][p] == 0 and state.towers[d][p] == 2


def test_alea_is_out_as_soon_as_a_player_overbids_it():
    state = two_player([4, 4])
    hand(state, 0, {"orange": [4]}, black=[5])
    hand(state, 1, {"green": [5]}, black=[6, 6])
    start_round(state, 0, markers=["ts"])
    bid(state, "orange", [4])
    bid(state, "green", [5])
    assert state.auction.leader == ALEA  # 8 beats 5
    bid(state, "orange", [], [5])  # seat 0: 9 beats 8
    alea = state.observation(1)["auction"]["bidders"][2]
    assert alea["bidder"] == "alea" and alea["passed"] is True and alea["total"] == 0
    assert state.current_seat() == 1 and state.auction.leader == 0


def test_alea_builds_on_its_own_plot():
    state = two_player([4, 4])
    put(state, "ts", "green", owner=ALEA, towers=1)
    start_round(state, 0, markers=["ts"])
    assert state.towers[TS][B.RINGS["ts"].index("green")] == 4


def test_alea_skips_auctions_without_own_plot_and_without_empty_plot():
    state = two_player([4, 4])
    for colour in B.RINGS["ts"]:
        put(state, "ts", colour, businesses=["boutique"])
    start_round(state, 0, markers=["ts"])
    assert not state.closed[TS] and len(state.black_stack) == 6  # Alea drew nothing
    assert state.decision() == "park_colour"


def test_alea_central_park_win_builds_nothing():
    state = two_player([4, 4])
    hand(state, 0, {"orange": [4]})
    start_round(state, 0)
    state.apply({"type": "park_colour", "colour": "orange"})
    state.apply(PASS)
    assert state.park == [0, 0, 0] and state.own_supply[ALEA] == 18
    assert state.coloured[0][0] == [1, 0, 0]


def test_alea_scores_nothing():
    state = two_player([4, 4])
    put(state, "ts", "orange", owner=ALEA, towers=3)
    commissioner(state, "white", "ts")
    at_turn(state, 0)
    state.apply({"type": "score_district", "district": "ts"})
    assert state.scores_ == [0, 0]


def test_alea_skyscrapers_count_for_the_building_stop_declarer():
    state = two_player([4, 4])
    ring = B.RINGS["ts"]
    put(state, "ts", ring[0], owner=ALEA, towers=3)
    put(state, "ts", ring[1], owner=1, towers=1)
    for colour in ring[2:]:
        put(state, "ts", colour, businesses=["boutique"])
    hand(state, 0, {ring[2]: [6]}, black=[6, 6, 6])  # 24 beats any Alea bid
    start_round(state, 0, markers=["ts"])
    bid(state, ring[2], [6], [6, 6, 6])
    assert state.closed[TS] and state.scores_[0] == 4
    assert state.gone == [0, 1, 3]


def test_alea_uses_its_own_supply_of_18():
    state = empty_board(players=2)
    assert state.own_supply[ALEA] == 18 and state.general[ALEA] == 0


def test_alea_cards_reach_both_seats_when_the_auction_ends_right_after_alea_turns_them():
    """Seat 0 bids 10; seat 1 (no cards) passes automatically; Alea turns 4, 4 (8, not
    enough): the auction ends before any seat is asked again, so only ``finished_auctions``
    can show Alea's cards, and it shows them to both seats."""
    state = two_player([4, 4])
    hand(state, 0, {"orange": [4, 6]})
    start_round(state, 0, markers=["ts"])
    bid(state, "orange", [4, 6])
    assert state.decision() == "park_colour"  # the ts auction is over
    for seat in (0, 1):
        [last] = state.observation(seat)["finished_auctions"]
        assert last["district"] == "ts" and last["alea_cards"] == [4, 4]
        assert last["winner"] == 0 and last["high"] == 10


def test_alea_cards_reach_both_seats_when_alea_wins_after_both_passed():
    state = two_player([5, 4, 5])
    start_round(state, 0, markers=["ts"])  # neither seat holds a card: both pass automatically
    assert state.decision() == "park_colour"
    for seat in (0, 1):
        [last] = state.observation(seat)["finished_auctions"]
        assert last["alea_cards"] == [5, 4, 5] and last["winner"] == "alea"
        alea = last["bidders"][2]
        assert (alea["bidder"], alea["passed"], alea["black"], alea["total"]) == ("alea", False, [4, 5, 5], 14)
        assert (last["result"], last["skyscrapers"]) == ("built", 2)


def test_in_random_games_every_auction_alea_turned_cards_in_reaches_both_seats():
    """The reported bug: auctions ending right after Alea's draw never showed its cards.
    Now each seat's requests show every finished auction (unless the game ends first)."""
    import random
    checked = 0
    for seed in range(20):
        state = GAME.new_game(2, seed)
        rng = random.Random(seed)
        seen = {0: set(), 1: set()}  # auction numbers each seat was shown when asked
        asked_at = {0: 0, 1: 0}  # auctions finished when the seat was last asked
        while not state.is_over():
            seat = state.current_seat()
            seen[seat] |= {record["number"] for record in state.observation(seat)["finished_auctions"]}
            asked_at[seat] = len(state.auction_log)
            legal = state.legal_actions()
            kind = rng.choice(sorted({a["type"] for a in legal}))
            state.apply(rng.choice([a for a in legal if a["type"] == kind]))
        for record in state.auction_log:
            if record["alea_cards"]:
                for seat in (0, 1):
                    if record["number"] <= asked_at[seat]:
                        assert record["number"] in seen[seat]
                        checked += 1
    assert checked > 50


def test_alea_turned_cards_go_under_the_black_stack_in_the_order_turned():
    """[decision] Discard order: the first card turned lies lowest."""
    state = two_player([5, 4, 6, 4])
    below = list(state.black_stack[:-4])
    start_round(state, 0, markers=["ts"])
    assert state.black_stack[:4] == [5, 4, 6, 4] and state.black_stack[4:] == below


def test_alea_with_a_short_black_stack_bids_the_cards_it_turned():
    """[decision] Alea's short stack: the stack runs out before a value repeats."""
    state = empty_board(players=2)
    empty_hands(state)
    state.black_stack = [6, 4]  # turned: 4, then 6, then nothing
    start_round(state, 0, markers=["ts"])
    [record] = state.observation(0)["finished_auctions"][:1]
    assert record["alea_cards"] == [4, 6] and record["winner"] == "alea" and record["high"] == 10


def test_alea_with_an_empty_black_stack_stays_out():
    state = empty_board(players=2)
    empty_hands(state)
    state.black_stack = []
    start_round(state, 0, markers=["ts"])
    [record] = state.observation(0)["finished_auctions"][:1]
    assert record["alea_cards"] == [] and record["winner"] is None
    assert ALEA not in state.owner[TS]


def test_alea_places_no_skyscrapers_at_set_up():
    """[decision] Alea's set-up: only the two seats place, 0, 1, 1, 0."""
    from test_fifth_avenue_support import after_setup
    state = after_setup(players=2)
    assert not any(ALEA in owners for owners in state.owner) and state.own_supply[ALEA] == 18


def test_alea_never_declares_a_building_stop():
    """[decision] Alea builds: on its own plot, also in a district without an empty plot."""
    state = two_player([5, 5])
    ring = B.RINGS["ts"]
    put(state, "ts", ring[0], owner=ALEA, towers=1)
    for colour in ring[1:]:
        put(state, "ts", colour, businesses=["boutique"])
    start_round(state, 0, markers=["ts"])  # neither seat holds a card: Alea wins with 10
    assert not state.closed[TS] and state.towers[TS][0] == 3 and state.stops == 0
