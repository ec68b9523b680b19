"""Agent Avenue base game for 2 players: one test per rule, each in an exact situation."""

from __future__ import annotations

import pytest

from arena.games import OptionError, get_game
from arena.games.base import IllegalAction
from arena.games.agent_avenue.cards import AGENT_DECK, MOVES, movement
from test_agent_avenue_support import GAME, FULL_DECK, agent_cards, arrange, choose, new_state, play, turn

DA, EN, CB, SA, DD, SE, SK, MO = ("double_agent", "enforcer", "codebreaker", "saboteur", "daredevil",
                                  "sentinel", "sidekick", "mole")
FILLER = [SK, MO, SE, SE, SE, SE, SE, SE]  # cards to draw that nobody uses


# --- Components and set-up ----------------------------------------------------------------

def test_agent_deck_has_38_cards_with_the_printed_counts():
    assert len(AGENT_DECK) == 38
    assert FULL_DECK == {DA: 6, EN: 6, CB: 6, SA: 6, DD: 6, SE: 6, SK: 1, MO: 1}


@pytest.mark.parametrize("name, values", [
    (DA, (-1, 6, -1)), (EN, (1, 2, 3)), (CB, (0, 0, 0)), (SA, (-1, -1, -2)),
    (DD, (2, 3, 3)), (SE, (0, 2, 6)), (SK, (4,)), (MO, (-3,)),
])
def test_movement_table_for_first_second_third_copy(name, values):
    assert tuple(movement(name, copies) for copies in range(1, len(values) + 1)) == values


@pytest.mark.parametrize("name", [DA, EN, CB, SA, DD, SE])
def test_fourth_fifth_sixth_copies_use_the_third_value(name):
    assert movement(name, 4) == movement(name, 5) == movement(name, 6) == MOVES[name][2]


def test_set_up_deals_four_each_and_spies_start_at_home():
    state = new_state()
    observation = state.observation(0)
    assert [len(hand) for hand in state.hands] == [4, 4]
    assert observation["draw_pile"] == 30
    assert [(spy["position"], spy["total"]) for spy in observation["spies"]] == [(0, 0), (7, 0)]
    assert observation["discards_left"] == [4, 4]
    assert agent_cards(state) == FULL_DECK


def test_seat_zero_starts_by_playing():
    state = new_state()
    assert state.current_seat() == 0
    assert state.phase == "play"


def test_the_same_seed_deals_the_same_cards_and_another_seed_does_not():
    assert new_state(seed=5).snapshot() == new_state(seed=5).snapshot()
    assert new_state(seed=5).snapshot()["deck"] != new_state(seed=6).snapshot()["deck"]


def test_player_counts_and_unknown_options_are_refused_with_a_message():
    game = get_game("agent-avenue")
    with pytest.raises(OptionError, match="2, 3, 4 players"):
        game.validate(5, {})
    with pytest.raises(OptionError, match="no option 'teams'"):
        game.validate(2, {"teams": True})
    assert game.validate(4, {"advanced": "true"}) == {"advanced": True}


# --- Phase 1: play ------------------------------------------------------------------------

def test_two_cards_with_the_same_name_are_refused_when_the_hand_has_other_names():
    state = arrange(new_state(), hands=[[EN, EN, SA, CB], [SE] * 4])
    with pytest.raises(IllegalAction, match="different names"):
        play(state, EN, EN)
    assert {"type": "play", "face_up": EN, "face_down": EN} not in state.legal_actions()


def test_two_cards_with_the_same_name_are_allowed_when_the_whole_hand_has_that_name():
    state = arrange(new_state(), hands=[[DD] * 4, [SE] * 4])
    plays = [action for action in state.legal_actions() if action["type"] == "play"]
    assert plays == [{"type": "play", "face_up": DD, "face_down": DD}]
    play(state, DD, DD)
    assert state.phase == "choose"


def test_every_ordered_pair_of_different_names_is_listed():
    state = arrange(new_state(), hands=[[EN, EN, SA, CB], [SE] * 4])
    plays = {(a["face_up"], a["face_down"]) for a in state.legal_actions() if a["type"] == "play"}
    assert plays == {(EN, SA), (EN, CB), (SA, EN), (SA, CB), (CB, EN), (CB, SA)}


def test_a_card_not_in_hand_is_refused_with_the_hand_in_the_reason():
    state = arrange(new_state(), hands=[[EN, EN, SA, CB], [SE] * 4])
    with pytest.raises(IllegalAction, match="from your hand"):
        play(state, MO, EN)
    assert state.phase == "play" and len(state.hands[0]) == 4


def test_playing_refills_the_hand_to_four_before_the_opponent_chooses():
    state = arrange(new_state(), hands=[[EN, SA, CB, DD], [SE] * 4], deck=[MO, SK] + FILLER)
    play(state, EN, SA)
    assert sorted(state.hands[0]) == sorted([CB, DD, MO, SK])
    assert state.phase == "choose" and state.current_seat() == 1


def test_refill_stops_when_the_draw_pile_runs_out():
    state = arrange(new_state(), hands=[[EN, SA, CB, DD], [SE] * 4], deck=[MO])
    play(state, EN, SA)
    assert sorted(state.hands[0]) == sorted([CB, DD, MO])
    assert state.deck == []


def test_discard_and_redraw_replaces_the_card_face_down():
    state = arrange(new_state(), hands=[[EN, SA, CB, DD], [SE] * 4], deck=[MO] + FILLER)
    state.apply({"type": "discard", "card": DD})
    assert sorted(state.hands[0]) == sorted([EN, SA, CB, MO])
    assert state.discarded[0] == [DD]
    assert state.discards_left == [3, 4]
    assert state.current_seat() == 0 and state.phase == "play"


def test_discard_and_redraw_is_allowed_four_times_per_game():
    state = new_state()
    for _ in range(4):
        state.apply({"type": "discard", "card": state.hands[0][0]})
    assert not any(action["type"] == "discard" for action in state.legal_actions())
    with pytest.raises(IllegalAction, match="used all your discard-and-redraws"):
        state.apply({"type": "discard", "card": state.hands[0][0]})


def test_discard_and_redraw_needs_a_card_in_the_draw_pile():
    state = arrange(new_state(), hands=[[EN, SA, CB, DD], [SE] * 4], deck=[])
    assert not any(action["type"] == "discard" for action in state.legal_actions())
    with pytest.raises(IllegalAction, match="draw pile is empty"):
        state.apply({"type": "discard", "card": EN})


# --- Phase 2: recruit ---------------------------------------------------------------------

def test_the_opponent_takes_the_chosen_card_and_the_active_player_the_other():
    state = arrange(new_state(), hands=[[EN, SA, CB, DD], [SE] * 4])
    turn(state, EN, SA, "face_down")
    assert state.areas[1][SA] == 1 and state.areas[1][EN] == 0
    assert state.areas[0][EN] == 1 and state.areas[0][SA] == 0
    assert state.last_play["face_down"] == SA and state.last_play["taken"] == "face_down"


def test_both_spies_move_by_the_copies_each_now_has_in_play():
    state = arrange(new_state(), hands=[[EN, DA, SA, SE], [SE] * 4], areas=[{DA: 1}, {EN: 1}])
    turn(state, EN, DA, "face_up")
    # the opponent's 2nd enforcer: +2; the active player's 2nd double agent: +6
    assert state.totals == [6, 2]
    assert state.observation(0)["spies"][1]["position"] == 9


def test_moves_are_simultaneous_so_only_the_final_positions_count():
    state = arrange(new_state(), hands=[[DD, EN, SA, SE], [SE] * 4], totals=[6, 0])
    turn(state, DD, EN, "face_up")  # active +1 would reach the other spy, who escapes +2
    assert state.totals == [7, 2]
    assert not state.is_over()
    assert state.current_seat() == 1 and state.phase == "play"


@pytest.mark.parametrize("name", [DA, EN, SA, DD, SE])
def test_a_fourth_copy_in_play_moves_by_the_third_value(name):
    hand = [name, CB, SK, MO]
    state = arrange(new_state(), hands=[hand, [SE] * 4], areas=[{name: 3}, {}], totals=[0, 0])
    turn(state, CB, name, "face_up")
    assert state.areas[0][name] == 4
    assert state.totals[0] == MOVES[name][2]


def test_a_recruit_with_value_zero_leaves_the_spy_where_it_is():
    state = arrange(new_state(), hands=[[CB, SE, SA, EN], [SE] * 4], totals=[3, 1])
    turn(state, SA, CB, "face_up")
    assert state.totals == [3, 0]


# --- Phase 3: check -----------------------------------------------------------------------

def test_landing_on_the_other_spy_catches_it():
    state = arrange(new_state(), hands=[[CB, DA, SA, EN], [SE] * 4], totals=[1, 0], areas=[{DA: 1}, {}])
    turn(state, CB, DA, "face_up")
    assert state.totals == [7, 0]
    assert state.is_over() and state.ranks() == [1, 2] and state.scores() == [1.0, 0.0]


def test_passing_the_other_spy_catches_it():
    state = arrange(new_state(), hands=[[CB, DA, SA, EN], [SE] * 4], totals=[3, 0], areas=[{DA: 1}, {}])
    turn(state, CB, DA, "face_up")
    assert state.is_over() and state.winner == 0


def test_an_opponent_moving_backward_onto_your_spy_is_caught():
    state = arrange(new_state(), hands=[[SA, CB, EN, DD], [SE] * 4], totals=[0, -6])
    turn(state, SA, CB, "face_up")
    assert state.totals == [0, -7]
    assert state.is_over() and state.winner == 0


def test_the_opponent_catches_the_active_player():
    state = arrange(new_state(), hands=[[CB, SA, EN, DD], [SE] * 4], totals=[0, 6])
    turn(state, CB, SA, "face_up")
    assert state.is_over() and state.ranks() == [2, 1]


def test_the_third_codebreaker_wins():
    state = arrange(new_state(), hands=[[EN, CB, SA, DD], [SE] * 4], areas=[{CB: 2}, {}])
    turn(state, EN, CB, "face_up")
    assert state.is_over() and state.winner == 0
    assert "3 codebreakers" in state.end_reason


def test_the_third_codebreaker_counts_only_after_both_spies_moved():
    # The opponent recruits its 3rd codebreaker while the active player catches it: both win.
    state = arrange(new_state(), hands=[[CB, DA, SA, EN], [SE] * 4], totals=[1, 0],
                    areas=[{DA: 1}, {CB: 2}])
    turn(state, CB, DA, "face_up")
    assert state.is_over() and state.winner == 0
    assert "tie" in state.end_reason


def test_the_third_daredevil_loses():
    state = arrange(new_state(), hands=[[EN, DD, SA, CB], [SE] * 4], areas=[{DD: 2}, {}])
    turn(state, EN, DD, "face_up")
    assert state.is_over() and state.winner == 1
    assert "3 daredevils" in state.end_reason


def test_the_third_daredevil_moves_three_before_the_loss_is_checked():
    # +3 reaches the other spy: the active player both wins and loses, and so wins.
    state = arrange(new_state(), hands=[[CB, DD, SA, EN], [SE] * 4], totals=[4, 0], areas=[{DD: 2}, {}])
    turn(state, CB, DD, "face_up")
    assert state.totals == [7, 0]
    assert state.is_over() and state.winner == 0


def test_when_both_players_lose_the_active_player_wins():
    state = arrange(new_state(), hands=[[DD] * 4, [SE] * 4], areas=[{DD: 2}, {DD: 2}])
    turn(state, DD, DD, "face_up")
    assert state.is_over() and state.winner == 0


def test_when_the_opponent_both_wins_and_loses_the_active_player_wins():
    state = arrange(new_state(), hands=[[DD, CB, SA, EN], [SE] * 4], totals=[0, 4], areas=[{}, {DD: 2}])
    turn(state, DD, CB, "face_up")  # the opponent's 3rd daredevil: +3 catches, and loses
    assert state.totals == [0, 7]
    assert state.is_over() and state.winner == 0


def test_when_both_players_win_the_active_player_wins():
    # The opponent's enforcer catches the active spy; the active player gets its 3rd codebreaker.
    state = arrange(new_state(), hands=[[EN, CB, SA, DD], [SE] * 4], totals=[0, 6], areas=[{CB: 2}, {}])
    turn(state, EN, CB, "face_up")
    assert state.totals == [0, 7]
    assert state.is_over() and state.winner == 0
    assert "tie" in state.end_reason


def test_when_the_opponent_wins_and_the_active_player_loses_the_opponent_wins():
    # The active player's 3rd daredevil (+3) loses; the opponent's sidekick (+4) catches it.
    state = arrange(new_state(), hands=[[DD, SK, SA, EN], [SE] * 4], totals=[0, 6], areas=[{DD: 2}, {}])
    turn(state, DD, SK, "face_down")
    assert state.totals == [3, 10]
    assert state.is_over() and state.winner == 1 and "tie" not in state.end_reason


def test_without_a_result_the_opponent_becomes_the_active_player():
    state = arrange(new_state(), hands=[[EN, SA, CB, DD], [SE] * 4])
    turn(state, EN, SA, "face_up")
    assert state.current_seat() == 1 and state.phase == "play" and state.active == 1
    turn(state, SE, SE, "face_up")
    assert state.current_seat() == 0 and state.active == 0


# --- Deck exhaustion ----------------------------------------------------------------------

def test_exhaustion_the_spy_fewer_spaces_behind_wins():
    state = arrange(new_state(), hands=[[EN, SA], [SE]], deck=[], totals=[0, 0])
    turn(state, EN, SA, "face_up")  # opponent +1, active -1: the active spy is further behind
    assert state.is_over() and state.winner == 1
    assert "draw pile is empty" in state.end_reason


def test_exhaustion_the_active_player_ahead_wins():
    state = arrange(new_state(), hands=[[EN, SA], [SE]], deck=[], totals=[0, 0])
    turn(state, EN, SA, "face_down")  # opponent -1, active +1
    assert state.is_over() and state.winner == 0


def test_exhaustion_at_equal_distance_the_active_player_wins():
    state = arrange(new_state(), hands=[[EN, CB], [SE]], deck=[], totals=[-1, 0])
    turn(state, EN, CB, "face_down")
    assert state.totals == [0, 0]
    assert state.is_over() and state.winner == 0


def test_exhaustion_waits_while_the_next_player_has_two_cards():
    state = arrange(new_state(), hands=[[EN, SA], [SE, MO]], deck=[])
    turn(state, EN, SA, "face_up")
    assert not state.is_over() and state.current_seat() == 1


def test_exhaustion_needs_an_empty_draw_pile():
    state = arrange(new_state(), hands=[[EN, SA, CB, DD], [SE]], deck=[MO, SK, SE])
    turn(state, EN, SA, "face_up")
    assert not state.is_over()


# --- Refusals -----------------------------------------------------------------------------

def test_an_action_of_the_wrong_type_is_refused_with_the_allowed_types():
    state = new_state()
    with pytest.raises(IllegalAction, match='"discard" or "play"'):
        choose(state, "face_up")
    with pytest.raises(IllegalAction, match="JSON object"):
        state.apply(["play"])


def test_choose_needs_face_up_or_face_down():
    state = arrange(new_state(), hands=[[EN, SA, CB, DD], [SE] * 4])
    play(state, EN, SA)
    with pytest.raises(IllegalAction, match='"face_up" or "face_down"'):
        choose(state, "left")


def test_no_action_is_accepted_after_the_end():
    state = arrange(new_state(), hands=[[EN, CB, SA, DD], [SE] * 4], areas=[{CB: 2}, {}])
    turn(state, EN, CB, "face_up")
    assert state.current_seat() is None and state.legal_actions() == []
    with pytest.raises(IllegalAction, match="game is over"):
        play(state, SA, DD)


# --- Decisions ----------------------------------------------------------------------------

def test_a_catch_ends_the_game_at_once_so_the_lead_never_wraps():
    """[decision] Catch ends the game: a lead of 7 is a catch, and nothing is played after it."""
    state = arrange(new_state(), hands=[[CB, DA, SA, EN], [SE] * 4], totals=[1, 0], areas=[{DA: 1}, {}])
    turn(state, CB, DA, "face_up")
    assert state.is_over() and state.observation(1)["lead"] == -7 and state.legal_actions() == []


def test_the_team_variant_is_three_or_four_players_with_no_option_of_its_own():
    """[decision] Team variant option."""
    assert [option.name for option in GAME.options] == ["advanced"]
    assert new_state(2).teams() is None
    assert new_state(3).teams() == [[0, 2], [1]] and new_state(4).teams() == [[0, 2], [1, 3]]


def test_discarded_agents_leave_the_game_and_the_draw_pile_is_never_reshuffled():
    """[decision] Discards: an empty draw pile stays empty although discards exist."""
    state = arrange(new_state(), hands=[[CB, DA, SA, EN], [SE] * 4], deck=[MO])
    state.apply({"type": "discard", "card": CB})
    assert state.discarded[0] == [CB] and state.deck == []
    turn(state, DA, SA, "face_up")
    assert len(state.hands[0]) == 2 and state.deck == [] and state.discarded[0] == [CB]
