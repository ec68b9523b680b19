"""Five Towers: one test per rule of docs/games/five-towers.md, its examples and decisions."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from arena.games import IllegalAction, get_game
from arena.games.five_towers import BID, BUILD, COLOURS, OVER, REBID, can_place, card_code, deck_for, score_of

PASS = {"type": "pass"}


def bid(amount):
    return {"type": "bid", "amount": amount}


def build(*cards, teardown=None):
    return {"type": "build", "cards": [list(card) for card in cards], "teardown": teardown}


def code(colour, value):
    return card_code(COLOURS.index(colour), value)


def new_state(players=2, seed=1):
    return get_game("five-towers").new_game(players, seed)


def with_market(state, *cards):
    state.market = [code(colour, value) for colour, value in cards]
    return state


def set_tower(state, seat, colour, values):
    state.towers[seat][COLOURS.index(colour)] = list(values)


def tower(state, seat, colour):
    return state.towers[seat][COLOURS.index(colour)]


def play(state, *actions):
    for action in actions:
        state.apply(action)
    return state


MARKET = [("tree", 7), ("candy", 12), ("scary", 3), ("sand", 15), ("scrap", 9)]


def round_won_by_seat_0(take, market=MARKET, players=2, towers=None):
    """Seat 0 (start player, with ``towers``) bids ``take``, every other seat passes."""
    state = with_market(new_state(players), *market)
    for colour, values in (towers or {}).items():
        set_tower(state, 0, colour, values)
    play(state, bid(take))
    while state.phase == BID:
        state.apply(PASS)
    return state


# ----------------------------------------------------------------------------- components
@pytest.mark.parametrize("players", [2, 3])
def test_two_and_three_players_use_80_cards_one_per_value_and_colour(players):
    state = new_state(players)
    cards = Counter(state.draw + state.market)
    assert sum(cards.values()) == 80
    assert cards == Counter(code(c, v) for c in COLOURS for v in range(16))


@pytest.mark.parametrize("players", [4, 5])
def test_four_and_five_players_add_a_second_0_2_5_7_10_12_per_colour(players):
    state = new_state(players)
    cards = Counter(state.draw + state.market)
    assert sum(cards.values()) == 110
    for colour in COLOURS:
        for value in range(16):
            assert cards[code(colour, value)] == (2 if value in (0, 2, 5, 7, 10, 12) else 1)


def test_the_five_tower_colours():
    assert COLOURS == ("candy", "scary", "tree", "scrap", "sand")


# ----------------------------------------------------------------------------- set-up
def test_the_deck_is_shuffled_by_the_seed():
    assert new_state(3, 7).snapshot() == new_state(3, 7).snapshot()
    assert new_state(3, 7).snapshot()["draw_pile"] != new_state(3, 8).snapshot()["draw_pile"]


def test_seat_0_is_the_first_start_player():
    state = new_state(4)
    assert state.start_player == 0 and state.current_seat() == 0 and state.phase == BID


# ----------------------------------------------------------------------------- 1. market
def test_a_round_reveals_the_top_five_cards_of_the_draw_pile():
    state = new_state(2, seed=11)
    deck = deck_for(2)
    random.Random(11).shuffle(deck)  # the engine's draw pile, its top at the end
    assert state.market == deck[:-6:-1] and state.draw == deck[:-5]


# ----------------------------------------------------------------------------- 2. bidding
def test_start_player_must_bid_0_to_5_and_may_not_pass():
    state = new_state(3)
    assert state.legal_actions() == [bid(n) for n in range(6)]
    with pytest.raises(IllegalAction, match="may not pass"):
        state.apply(PASS)
    with pytest.raises(IllegalAction, match="0 to 5"):
        state.apply(bid(6))


def test_other_players_must_bid_strictly_higher_or_pass():
    state = play(new_state(3), bid(2))
    assert state.current_seat() == 1
    assert state.legal_actions() == [bid(3), bid(4), bid(5), PASS]
    with pytest.raises(IllegalAction, match="3 to 5 or pass"):
        state.apply(bid(2))


def test_bidding_goes_clockwise_from_the_start_player():
    state = new_state(4)
    for _ in range(2):  # two rounds won with a bid of 1 move the start player to seat 2
        play(state, bid(1), PASS, PASS, PASS)
        state.apply(state.legal_actions()[0])
    assert state.start_player == 2
    seats = []
    for action in (bid(0), PASS, PASS, PASS):
        seats.append(state.current_seat())
        state.apply(action)
    assert seats == [2, 3, 0, 1]


def test_each_other_player_bids_exactly_once():
    state = play(new_state(3), bid(1), bid(2), bid(3))
    assert state.phase == BUILD and state.current_seat() == 2 and state.take == 3


def test_bidding_stops_as_soon_as_someone_bids_five():
    state = play(new_state(4), bid(1), bid(5))
    assert state.phase == BUILD and state.current_seat() == 1 and state.take == 5
    assert state.to_bid == [2, 3]


def test_bids_cannot_exceed_the_market_size():
    state = with_market(new_state(3), ("tree", 4), ("candy", 6), ("sand", 1))
    assert state.legal_actions() == [bid(n) for n in range(4)]
    with pytest.raises(IllegalAction):
        state.apply(bid(4))
    play(state, bid(3))  # the market size ends the bidding like a 5 does
    assert state.phase == BUILD and state.take == 3


def test_the_highest_bid_wins():
    state = play(new_state(3), bid(1), bid(3), PASS)
    assert state.phase == BUILD and state.winner == 1 and state.take == 3


# ----------------------------------------------------------------------------- 3. building
def test_winner_takes_the_market_cards_of_its_choice():
    state = round_won_by_seat_0(2)
    play(state, build(("scary", 3), ("sand", 15)))
    assert tower(state, 0, "scary") == [3] and tower(state, 0, "sand") == [15]
    assert Counter(state.discard) == Counter([code("tree", 7), code("candy", 12), code("scrap", 9)])


def test_a_build_must_take_exactly_the_winning_bid_in_cards():
    state = round_won_by_seat_0(2)
    with pytest.raises(IllegalAction, match="take exactly 2"):
        state.apply(build(("scary", 3)))


def test_a_build_may_only_take_cards_from_the_market():
    state = round_won_by_seat_0(1)
    with pytest.raises(IllegalAction, match="not in the market"):
        state.apply(build(("scary", 4)))


def test_identical_market_cards_are_one_choice():
    state = round_won_by_seat_0(1, market=[("candy", 0), ("candy", 0), ("tree", 3), ("tree", 2), ("sand", 5)],
                                players=4)
    actions = state.legal_actions()
    assert actions.count(build(("candy", 0))) == 1
    assert len(actions) == len({repr(a) for a in actions})


def test_the_same_card_cannot_be_taken_twice_unless_the_market_has_two():
    state = round_won_by_seat_0(2, market=[("candy", 0), ("tree", 12), ("tree", 3), ("tree", 2), ("sand", 5)])
    with pytest.raises(IllegalAction, match="listed more often"):
        state.apply(build(("tree", 3), ("tree", 3)))


def test_teardown_moves_the_top_card_to_the_personal_discard_pile():
    state = round_won_by_seat_0(1, towers={"candy": [14, 11]})
    play(state, build(("sand", 15), teardown="candy"))
    assert tower(state, 0, "candy") == [14]
    assert state.torn[0] == [code("candy", 11)]
    assert state.observation(1)["torn_down"] == [1, 0]


def test_teardown_happens_before_the_cards_are_placed():
    state = round_won_by_seat_0(1, towers={"tree": [10, 3]})
    play(state, build(("tree", 7), teardown="tree"))
    assert tower(state, 0, "tree") == [10, 7]


def test_a_zero_can_never_be_torn_down():
    state = round_won_by_seat_0(1, towers={"candy": [14, 0]})
    with pytest.raises(IllegalAction, match="0, which can never be torn down"):
        state.apply(build(("sand", 15), teardown="candy"))
    assert all(action["teardown"] != "candy" for action in state.legal_actions())


def test_an_empty_tower_cannot_be_torn_down():
    state = round_won_by_seat_0(1)
    with pytest.raises(IllegalAction, match="no candy tower"):
        state.apply(build(("sand", 15), teardown="candy"))


def test_at_most_one_tower_is_torn_down():
    state = round_won_by_seat_0(1, towers={"candy": [14, 11], "scary": [14, 11]})
    assert {action["teardown"] for action in state.legal_actions()} == {None, "candy", "scary"}
    with pytest.raises(IllegalAction, match="teardown"):
        state.apply({"type": "build", "cards": [["sand", 15]], "teardown": ["candy", "scary"]})


def test_the_first_card_of_a_colour_starts_its_tower_with_any_value():
    assert all(can_place(-1, value) for value in range(16))
    state = round_won_by_seat_0(2, market=[("tree", 0), ("candy", 9), ("scary", 3), ("sand", 15), ("scrap", 9)])
    play(state, build(("candy", 9), ("tree", 0)))
    assert tower(state, 0, "tree") == [0] and tower(state, 0, "candy") == [9]


def test_each_colour_has_one_tower_holding_only_that_colour():
    state = round_won_by_seat_0(3, market=[("tree", 12), ("tree", 4), ("scary", 3), ("tree", 15), ("scrap", 9)])
    play(state, build(("tree", 15), ("tree", 12), ("tree", 4)))
    assert tower(state, 0, "tree") == [15, 12, 4]
    assert [len(t) for t in state.towers[0]] == [0, 0, 3, 0, 0]


def test_a_card_must_be_strictly_lower_than_the_card_it_covers():
    assert can_place(12, 11) and not can_place(12, 12) and not can_place(12, 13)


def test_tower_15_12_8_accepts_14_because_anything_goes_on_an_eight():
    assert can_place(8, 14)
    state = round_won_by_seat_0(1, market=[("tree", 14), ("candy", 12), ("scary", 3), ("sand", 15), ("scrap", 9)],
                                towers={"tree": [15, 12, 8]})
    assert build(("tree", 14)) in state.legal_actions()
    play(state, build(("tree", 14)))
    assert tower(state, 0, "tree") == [15, 12, 8, 14]


def test_tower_15_12_rejects_12_and_13():
    market = [("tree", 12), ("tree", 13), ("scary", 3), ("sand", 15), ("scrap", 9)]
    state = round_won_by_seat_0(1, market=market, towers={"tree": [15, 12]})
    assert not can_place(12, 12) and not can_place(12, 13)
    assert build(("tree", 12)) not in state.legal_actions()
    assert build(("tree", 13)) not in state.legal_actions()
    play(state, build(("tree", 13)))
    assert state.phase == REBID and tower(state, 0, "tree") == [15, 12]


def test_descending_resumes_from_the_card_placed_on_an_eight():
    state = round_won_by_seat_0(2, market=[("tree", 14), ("tree", 15), ("tree", 13), ("sand", 15), ("scrap", 9)],
                                towers={"tree": [8]})
    assert build(("tree", 14), ("tree", 13)) in state.legal_actions()
    assert build(("tree", 14), ("tree", 15)) not in state.legal_actions()


def test_tower_7_3_accepts_9():
    assert can_place(3, 9)
    state = round_won_by_seat_0(1, towers={"scrap": [7, 3]})
    play(state, build(("scrap", 9)))
    assert tower(state, 0, "scrap") == [7, 3, 9]


def test_tower_7_0_accepts_nothing():
    assert not any(can_place(0, value) for value in range(16))
    state = round_won_by_seat_0(1, market=[("tree", 14), ("tree", 9), ("tree", 8), ("tree", 3), ("tree", 0)],
                                players=4, towers={"tree": [7, 0]})
    assert state.phase == REBID  # no tree card fits, so nothing can be built: automatic rollback


def test_a_nine_is_refused_only_on_a_zero():
    assert [top for top in range(16) if not can_place(top, 9)] == [0]


def test_a_zero_caps_a_tower():
    state = round_won_by_seat_0(2, market=[("tree", 0), ("tree", 9), ("scary", 3), ("sand", 15), ("scrap", 9)])
    assert build(("tree", 0), ("tree", 9)) not in state.legal_actions()
    assert build(("tree", 9), ("tree", 0)) in state.legal_actions()


def test_the_winner_chooses_the_placement_order():
    state = round_won_by_seat_0(2, market=[("tree", 9), ("tree", 5), ("scary", 3), ("sand", 15), ("scrap", 9)],
                                towers={"tree": [7]})
    legal = state.legal_actions()
    assert build(("tree", 5), ("tree", 9)) in legal and build(("tree", 9), ("tree", 5)) in legal
    play(state, build(("tree", 9), ("tree", 5)))
    assert tower(state, 0, "tree") == [7, 9, 5]


def test_any_valid_order_a_bot_submits_is_accepted():
    state = round_won_by_seat_0(3, market=[("tree", 9), ("tree", 5), ("scary", 3), ("sand", 15), ("scrap", 9)])
    play(state, build(("tree", 9), ("scary", 3), ("tree", 5)))  # colours interleaved: not the listed form
    assert tower(state, 0, "tree") == [9, 5] and tower(state, 0, "scary") == [3]


def test_the_order_of_cards_in_a_tower_never_changes():
    state = round_won_by_seat_0(1, market=[("tree", 4), ("candy", 12), ("scary", 3), ("sand", 15), ("scrap", 9)],
                                towers={"tree": [13, 8, 11]})
    play(state, build(("tree", 4)))
    assert tower(state, 0, "tree") == [13, 8, 11, 4]


# ----------------------------------------------------------------------------- 4. rollback
def test_an_impossible_build_is_rolled_back_not_illegal():
    state = round_won_by_seat_0(2, market=[("tree", 6), ("tree", 4), ("scary", 3), ("sand", 15), ("scrap", 9)])
    before = Counter(state.market)
    play(state, build(("tree", 4), ("tree", 6)))
    assert state.phase == REBID and state.current_seat() == 0
    assert tower(state, 0, "tree") == [] and Counter(state.market) == before
    assert state.history[-1] == {"seat": 0, "type": "rollback", "bid": 2, "automatic": False}


def test_rollback_puts_the_torn_down_card_back():
    state = round_won_by_seat_0(1, towers={"candy": [14, 11], "tree": [5]})
    play(state, build(("tree", 7), teardown="candy"))
    assert state.phase == REBID
    assert tower(state, 0, "candy") == [14, 11] and state.torn[0] == []


def test_after_a_rollback_the_winner_bids_lower_than_the_failed_bid_and_higher_than_the_others():
    state = with_market(new_state(3), ("tree", 6), ("tree", 4), ("tree", 3), ("tree", 2), ("scrap", 9))
    set_tower(state, 2, "tree", [0])
    play(state, bid(1), PASS, bid(4))  # seat 2 can place no tree card at all
    assert state.phase == REBID and state.current_seat() == 2 and state.failed_bid == 4
    assert state.legal_actions() == [bid(2), bid(3), PASS]
    with pytest.raises(IllegalAction, match="2 to 3 or pass"):
        state.apply(bid(4))


def test_after_a_rollback_pass_the_highest_remaining_bid_wins():
    state = with_market(new_state(3), ("tree", 6), ("tree", 4), ("tree", 3), ("tree", 2), ("scrap", 9))
    set_tower(state, 2, "tree", [0])
    play(state, bid(1), PASS, bid(4), PASS)
    assert state.phase == BUILD and state.winner == 0 and state.take == 1


def test_after_a_rollback_a_lower_bid_wins_again():
    state = with_market(new_state(2), ("tree", 6), ("tree", 4), ("tree", 3), ("candy", 2), ("scrap", 9))
    set_tower(state, 1, "tree", [0])
    play(state, bid(0), bid(4), bid(2))
    assert state.phase == BUILD and state.winner == 1 and state.take == 2


def test_after_a_rollback_of_a_bid_of_five_the_seats_that_had_no_chance_bid():
    state = with_market(new_state(4), ("tree", 6), ("tree", 4), ("tree", 3), ("tree", 2), ("scrap", 9))
    set_tower(state, 1, "tree", [0])
    play(state, bid(1), bid(5))  # bidding stops at 5, seats 2 and 3 have not bid yet
    assert state.phase == REBID
    play(state, bid(2))
    assert state.phase == BID and state.current_seat() == 2
    assert state.legal_actions() == [bid(3), bid(4), bid(5), PASS]


def test_after_a_rollback_everyone_passed_discards_the_market_and_keeps_the_start_player():
    state = round_won_by_seat_0(2, market=[("tree", 6), ("tree", 4), ("tree", 3), ("tree", 2), ("tree", 1)])
    set_tower(state, 0, "tree", [0])  # nothing fits, but the rollback was decided before: submit anyway
    play(state, build(("tree", 6), ("tree", 4)))
    assert state.phase == REBID
    old_market = Counter(state.market)
    play(state, PASS)
    assert state.round == 2 and state.start_player == 0 and state.current_seat() == 0
    assert Counter(state.discard) == old_market


def test_a_start_player_that_passes_after_a_rollback_leaves_no_bid_standing():
    state = with_market(new_state(3), ("tree", 6), ("tree", 4), ("tree", 3), ("tree", 2), ("tree", 1))
    set_tower(state, 0, "tree", [0])
    play(state, bid(5))
    play(state, PASS)  # no bid stands: the next seat may bid from 0
    assert state.phase == BID and state.current_seat() == 1
    assert state.legal_actions() == [bid(n) for n in range(6)] + [PASS]


def test_no_buildable_choice_rolls_back_at_once():
    state = with_market(new_state(2), ("tree", 6), ("tree", 4), ("tree", 3), ("tree", 2), ("scrap", 9))
    set_tower(state, 0, "tree", [0])
    play(state, bid(2), PASS)  # one card (scrap 9) fits, two never do
    assert state.phase == REBID and state.current_seat() == 0
    assert state.history[-1] == {"seat": 0, "type": "rollback", "bid": 2, "automatic": True}
    assert state.legal_actions() == [bid(0), bid(1), PASS]


def test_the_listed_builds_are_exactly_the_buildable_ones():
    state = round_won_by_seat_0(2, market=[("tree", 9), ("tree", 5), ("tree", 8), ("candy", 0), ("candy", 3)],
                                towers={"tree": [7], "candy": [4]})
    legal = state.legal_actions()
    for action in legal:
        trial = copy.deepcopy(state)
        trial.apply(action)
        assert trial.phase != REBID
    # [tree 5, tree 8] cannot go on 7 in either order without tearing the 7 down
    assert build(("tree", 8), ("tree", 5)) not in legal
    assert build(("tree", 8), ("tree", 5), teardown="tree") in legal
    assert build(("tree", 5), ("tree", 8), teardown="tree") not in legal


# ----------------------------------------------------------------------------- 5. clean-up
def test_clean_up_discards_the_cards_left_in_the_market():
    state = round_won_by_seat_0(1)
    play(state, build(("sand", 15)))
    assert Counter(state.discard) == Counter(code(c, v) for c, v in MARKET if c != "sand")


def test_the_next_seat_becomes_start_player():
    state = round_won_by_seat_0(1, players=3)
    play(state, build(("sand", 15)))
    assert state.start_player == 1 and state.current_seat() == 1 and state.round == 2


def test_a_start_bid_of_0_with_all_others_passing_keeps_the_start_player():
    state = round_won_by_seat_0(0, players=3)
    assert state.phase == BUILD and state.legal_actions() == [build()]
    old_market = Counter(state.market)
    play(state, build())
    assert state.start_player == 0 and state.round == 2
    assert Counter(state.discard) == old_market and len(state.market) == 5


def test_a_start_bid_of_0_that_wins_after_another_seats_rollback_pass_keeps_the_start_player():
    state = with_market(new_state(2), ("tree", 6), ("tree", 4), ("tree", 3), ("tree", 2), ("tree", 1))
    set_tower(state, 1, "tree", [0])
    play(state, bid(0), bid(2), PASS)  # seat 1's 2 cannot be built; it passes, seat 0's 0 wins
    assert state.phase == BUILD and state.winner == 0 and state.take == 0
    play(state, build())
    assert state.start_player == 0 and state.current_seat() == 0 and state.round == 2


def test_a_winning_bid_of_0_by_another_seat_passes_the_start_on():
    state = with_market(new_state(3), ("tree", 6), ("tree", 4), ("tree", 3), ("tree", 2), ("tree", 1))
    set_tower(state, 0, "tree", [0])
    play(state, bid(5), PASS, bid(0), PASS)  # seat 0's 5 fails and is withdrawn; seat 1 wins with 0
    assert state.phase == BUILD and state.winner == 1 and state.take == 0
    play(state, build())
    assert state.start_player == 1 and state.current_seat() == 1 and state.round == 2


def test_a_winning_bid_of_0_takes_no_cards_but_may_tear_down():
    state = round_won_by_seat_0(0, towers={"candy": [14, 11]})
    assert state.legal_actions() == [build(), build(teardown="candy")]
    play(state, build(teardown="candy"))
    assert tower(state, 0, "candy") == [14] and len(state.torn[0]) == 1


# ----------------------------------------------------------------------------- end
def finish_round(state):
    """Seat to move bids 0, everyone passes, build nothing: the market goes to the discard pile."""
    play(state, bid(0))
    while state.phase == BID:
        state.apply(PASS)
    state.apply(build())


def test_the_first_time_the_draw_pile_runs_out_the_discard_pile_is_shuffled_into_it():
    state = new_state(2)
    discarded = [code("tree", v) for v in range(10)]
    state.discard = list(discarded)
    market = list(state.market)
    state.draw = []
    finish_round(state)
    assert state.pass_number == 2 and state.discard == []
    assert Counter(state.market + state.draw) == Counter(discarded + market)
    assert state.market + state.draw != list(reversed(discarded + market))  # shuffled, not flipped


def test_the_reshuffle_is_seeded():
    def reshuffled(seed):
        state = new_state(2, seed)
        state.discard, state.draw = [code("tree", v) for v in range(16)], []
        finish_round(state)
        return state.snapshot()["draw_pile"]

    assert reshuffled(3) == reshuffled(3)


def test_the_last_market_of_the_first_pass_is_part_of_the_reshuffle():
    state = new_state(2)
    state.draw = []
    market = Counter(state.market)
    finish_round(state)
    assert Counter(state.market + state.draw) == market


def test_running_out_mid_reveal_on_the_first_pass_completes_the_market_from_the_reshuffle():
    state = new_state(2)
    state.draw = [code("tree", 1), code("tree", 2)]
    state.discard = [code("sand", v) for v in range(10)]
    finish_round(state)
    assert len(state.market) == 5 and state.pass_number == 2
    assert {code("tree", 1), code("tree", 2)} <= set(state.market)


def test_the_game_ends_after_the_round_in_which_the_draw_pile_runs_out_the_second_time():
    state = new_state(2)
    state.pass_number = 2
    state.draw = [code("tree", v) for v in range(5)]
    state.discard = [code("sand", v) for v in range(10)]  # never reshuffled a second time
    finish_round(state)
    assert state.last_round and not state.is_over() and state.draw == []
    finish_round(state)
    assert state.is_over() and state.phase == OVER and state.current_seat() is None
    assert state.legal_actions() == []


def test_the_discard_pile_is_reshuffled_only_once():
    state = new_state(2)
    state.pass_number = 2
    state.draw = [code("tree", v) for v in range(7)]
    state.discard = [code("sand", v) for v in range(10)]
    finish_round(state)
    finish_round(state)  # reveals the last 2 cards: the draw pile runs out the second time
    assert state.last_round and len(state.market) == 2
    finish_round(state)
    assert state.is_over() and state.pass_number == 2 and state.round == 3
    assert len(state.discard) == 10 + 5 + 5 + 2 and state.draw == []


def test_the_final_market_may_have_fewer_than_five_cards():
    state = new_state(3)
    state.pass_number = 2
    state.draw = [code("tree", 1), code("tree", 2), code("tree", 3)]
    finish_round(state)
    assert len(state.market) == 3 and state.last_round
    assert state.legal_actions() == [bid(n) for n in range(4)]


def test_an_empty_reshuffle_with_an_empty_market_ends_the_game():
    state = with_market(new_state(2), *MARKET)
    state.draw, state.discard = [], []
    play(state, bid(5), build(*MARKET))
    assert state.is_over() and state.round == 1


def test_actions_after_the_end_are_illegal():
    state = new_state(2)
    state.draw, state.discard = [], []
    play(state, bid(0), PASS, build())
    assert state.is_over() is False  # the reshuffled market still had the 5 discarded cards
    finish_round(state)
    assert state.is_over()
    with pytest.raises(IllegalAction, match="over"):
        state.apply(bid(0))


# ----------------------------------------------------------------------------- scoring
def test_scoring_example_from_the_rules_scores_7():
    towers = [[10, 4, 0], [6], [], [], []]
    assert score_of(towers, 2) == 7


def test_a_card_scores_1_point_and_2_under_a_zero():
    assert score_of([[5], [], [], [], []], 0) == 1 + 1
    assert score_of([[5, 0], [3, 2], [], [], []], 0) == 4 + 2 + 2


def test_the_tallest_tower_bonus_is_counted_once_for_equal_towers():
    assert score_of([[5, 4], [3, 2], [], [], []], 0) == 4 + 2


def test_a_capped_tallest_tower_scores_3_points_per_card():
    assert score_of([[5, 4, 0], [], [], [], []], 0) == 9


def test_the_nth_torn_down_card_costs_n_points():
    assert [score_of([[], [], [], [], []], n) for n in range(5)] == [0, -1, -3, -6, -10]


def test_engine_scores_use_the_towers_and_teardown_counts():
    state = new_state(2)
    state.towers[0] = [[10, 4, 0], [6], [], [], []]
    state.torn[0] = [code("tree", 3), code("tree", 2)]
    assert state.scores() == [7, 0]


def test_equal_scores_share_a_rank():
    state = new_state(3)
    state.towers[0] = [[10, 4], [], [], [], []]
    state.towers[2] = [[], [], [], [], [10, 4]]
    state.towers[1] = [[5], [], [], [], []]
    assert state.scores() == [4, 2, 4] and state.ranks() == [1, 3, 1]


# ----------------------------------------------------------------------------- illegal actions
@pytest.mark.parametrize("action, reason", [
    ("bid 2", "must be an object"),
    ({"type": "raise"}, "not allowed in the bid phase"),
    ({"type": "bid", "amount": True}, "not allowed now"),
    ({"type": "bid", "amount": "2"}, "not allowed now"),
    ({"type": "bid"}, "not allowed now"),
])
def test_malformed_bids_are_illegal_with_a_reason(action, reason):
    state = new_state(2)
    with pytest.raises(IllegalAction, match=reason):
        state.apply(action)


@pytest.mark.parametrize("action, reason", [
    (bid(1), "send a \"build\" action"),
    ({"type": "build"}, "needs \"cards\""),
    ({"type": "build", "cards": [["tree"]]}, "is not a card"),
    ({"type": "build", "cards": [["wood", 3]]}, "is not a card"),
    ({"type": "build", "cards": [["tree", 16]]}, "is not a card"),
    ({"type": "build", "cards": [["tree", 7]], "teardown": "wood"}, "must be null or one of"),
])
def test_malformed_builds_are_illegal_with_a_reason(action, reason):
    state = round_won_by_seat_0(1)
    with pytest.raises(IllegalAction, match=reason):
        state.apply(action)


def test_an_illegal_action_leaves_the_state_unchanged():
    state = round_won_by_seat_0(2)
    before = state.snapshot()
    with pytest.raises(IllegalAction):
        state.apply(build(("tree", 7), ("tree", 7)))
    assert state.snapshot() == before


# ----------------------------------------------------------------------------- observation
def test_observation_shows_torn_down_counts_not_cards():
    state = round_won_by_seat_0(1, towers={"candy": [14, 11]})
    play(state, build(("sand", 15), teardown="candy"))
    observation = state.observation(1)
    assert observation["torn_down"] == [1, 0]
    assert "torn_down_cards" not in observation and "draw_pile" not in observation


def test_observation_shows_bids_passes_and_the_high_bid():
    state = play(new_state(3), bid(1), PASS)
    observation = state.observation(0)
    assert observation["bids"] == [1, None, None] and observation["passed"] == [False, True, False]
    assert observation["high_bid"] == 1 and observation["high_bidder"] == 0
    assert observation["current_seat"] == 2 and observation["to_bid"] == []
    assert observation["history"] == [{"seat": 0, "type": "bid", "amount": 1}, {"seat": 1, "type": "pass"}]


def test_a_bid_amount_sent_as_a_float_is_refused_with_a_reason_naming_integers():
    import pytest

    from arena.games import IllegalAction, get_game

    state = get_game("five-towers").new_game(2, 1)
    with pytest.raises(IllegalAction, match="JSON integer"):
        state.apply({"type": "bid", "amount": 2.0})


def test_a_failing_order_is_a_rollback_even_if_another_order_would_work():
    """[decision] Order as given: 4 then 6 fails on an empty tree tower; 6 then 4 would fit."""
    state = round_won_by_seat_0(2, market=[("tree", 6), ("tree", 4), ("scary", 3), ("sand", 15), ("scrap", 9)])
    assert build(("tree", 6), ("tree", 4)) in state.legal_actions()
    play(state, build(("tree", 4), ("tree", 6)))
    assert state.phase == REBID and tower(state, 0, "tree") == []


def test_observation_shows_the_shared_discard_pile_the_draw_pile_size_and_the_pass():
    state = round_won_by_seat_0(1)
    play(state, build(("sand", 15)))
    observation = state.observation(1)
    assert observation["discard_pile"] == [list(card) for card in MARKET if card[0] != "sand"]
    assert observation["draw_pile_size"] == len(state.draw) and observation["pass"] == 1
    assert observation["market"] == [[COLOURS[c >> 4], c & 15] for c in state.market]
