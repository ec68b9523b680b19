"""Agent Avenue advanced game: taking Black Market cards, each of the 15 cards, and the
interactions the rules spell out. Every test sets up an exact situation on the advanced board
(corners 2, 5, 9, 12; seat 0's home is 0, seat 1's is 7)."""

from __future__ import annotations

import pytest

from arena.games.base import IllegalAction
from arena.games.agent_avenue.cards import BLACK_MARKET, INSTANT, ONGOING
from test_agent_avenue_support import arrange, new_state, take, turn

DA, EN, CB, SA, DD, SE, SK, MO = ("double_agent", "enforcer", "codebreaker", "saboteur", "daredevil",
                                  "sentinel", "sidekick", "mole")
FILLER = [SK, MO, SE, SE, SE, SE, SE, SE]
OTHER_CARDS = ["watchtower", "masterplan", "surveillance_truck", "security_system"]


def advanced(**arrangement):
    arrangement.setdefault("hands", [[CB, DD, SA, EN], [SE] * 4])
    arrangement.setdefault("deck", list(FILLER))
    return arrange(new_state(advanced=True), **arrangement)


def land_on_two(card: str, **arrangement):
    """Seat 0 plays codebreaker up, daredevil down; seat 1 takes the codebreaker (stays), seat 0
    recruits its first daredevil (+2) from 0 onto corner 2 and may take ``card`` (offered)."""
    arrangement.setdefault("offer", [card, "watchtower", "masterplan"])
    arrangement.setdefault("bm_pile", ["surveillance_truck", "security_system"])
    state = advanced(**arrangement)
    turn(state, CB, DD, "face_up")
    assert state.phase == "take" and state.current_seat() == 0
    return state


# --- Set-up and taking a card -------------------------------------------------------------

def test_black_market_set_up_offers_three_and_keeps_twelve_face_down():
    state = new_state(advanced=True)
    assert len(state.bm_offer) == 3 and len(state.bm_pile) == 12
    assert sorted(state.bm_offer + state.bm_pile) == sorted(BLACK_MARKET)
    assert len(ONGOING) == 8 and len(INSTANT) == 7


def test_the_base_game_has_no_black_market():
    state = arrange(new_state(), hands=[[CB, DD, SA, EN], [SE] * 4])
    turn(state, CB, DD, "face_up")  # lands on 2, which is no corner on the beginners' side
    assert state.phase == "play" and state.current_seat() == 1
    assert state.observation(0)["black_market"] is None


def test_ending_a_move_exactly_on_a_corner_takes_a_card():
    state = land_on_two("watchtower", offer=["watchtower", "masterplan", "outpost"])
    assert state.legal_actions() == [{"type": "take", "card": c} for c in ["watchtower", "masterplan", "outpost"]]
    take(state, "masterplan")
    assert state.owned[0] == ["masterplan"]
    assert state.bm_offer == ["watchtower", "outpost", "surveillance_truck"]


def test_moving_backward_onto_a_corner_takes_a_card():
    state = advanced(hands=[[SA, CB, DD, EN], [SE] * 4], totals=[3, 0], offer=OTHER_CARDS[:3], bm_pile=[])
    turn(state, CB, SA, "face_up")  # seat 0: saboteur -1 from 3 onto 2
    assert state.totals[0] == 2
    assert state.phase == "take" and state.current_seat() == 0


def test_passing_over_a_corner_takes_nothing():
    state = advanced(totals=[1, 0], offer=OTHER_CARDS[:3], bm_pile=[])
    turn(state, CB, DD, "face_up")  # 1 -> 3 passes corner 2
    assert state.phase == "play" and state.current_seat() == 1


def test_staying_on_a_corner_takes_nothing():
    state = advanced(totals=[2, 0], offer=OTHER_CARDS[:3], bm_pile=[])
    turn(state, EN, CB, "face_up")  # seat 0 recruits a codebreaker: 0 steps, still on 2
    assert state.totals == [2, 1]
    assert state.phase == "play" and state.current_seat() == 1


def test_an_empty_offer_gives_nothing():
    state = advanced(offer=[], bm_pile=[])
    turn(state, CB, DD, "face_up")
    assert state.totals[0] == 2
    assert state.phase == "play" and state.current_seat() == 1


def test_a_card_not_on_offer_is_refused():
    state = land_on_two("watchtower")
    with pytest.raises(IllegalAction, match="offered Black Market cards"):
        take(state, "mind_control")


def test_the_offer_is_refilled_before_the_card_takes_effect():
    # Smoke screen recruits seat 0's 2nd daredevil (+3): 2 -> 5, a corner again; the card
    # taken next can be the one that refilled the offer.
    state = land_on_two("smoke_screen", deck=[SE, SE, DD] + FILLER)
    take(state, "smoke_screen")
    assert state.totals[0] == 5
    assert state.phase == "take" and state.current_seat() == 0
    assert {"type": "take", "card": "surveillance_truck"} in state.legal_actions()


def test_both_on_corners_the_active_player_resolves_first_including_chains():
    # seat 0: 2nd sentinel +2 onto 2; seat 1: daredevil +2 from 7 onto 9. Seat 0's smoke screen
    # recruits its 3rd enforcer (+3): 2 -> 5, so seat 0 takes again before seat 1.
    state = advanced(hands=[[DD, SE, SA, CB], [SE] * 4], deck=[SA, SA, EN] + FILLER,
                     areas=[{SE: 1, EN: 2}, {}], offer=["smoke_screen", "watchtower", "masterplan"],
                     bm_pile=["surveillance_truck", "security_system"])
    turn(state, DD, SE, "face_up")
    assert [spy["position"] for spy in state.observation(0)["spies"]] == [2, 9]
    assert state.queue == [0, 1] and state.current_seat() == 0
    take(state, "smoke_screen")
    assert state.totals[0] == 5 and state.queue == [0, 1] and state.current_seat() == 0
    take(state, "watchtower")
    assert state.current_seat() == 1 and state.phase == "take"
    take(state, "masterplan")
    assert state.owned == [["watchtower"], ["masterplan"]]
    assert state.phase == "play" and state.current_seat() == 1


# --- Ongoing cards ------------------------------------------------------------------------

def test_getaway_car_moves_three_more_from_the_other_home():
    state = advanced(totals=[5, 5], owned=[["getaway_car"], []])
    turn(state, CB, DD, "face_up")  # 5 -> 7 (seat 1's home) -> 10
    assert state.totals == [10, 5]


def test_getaway_car_works_moving_backward_onto_your_own_home():
    state = advanced(hands=[[SA, CB, DD, EN], [SE] * 4], totals=[1, 0], owned=[["getaway_car"], []])
    turn(state, CB, SA, "face_up")  # 1 -> 0 -> 3
    assert state.totals[0] == 3


def test_getaway_car_does_not_move_a_spy_that_stays_on_a_home():
    state = advanced(hands=[[SA, CB, DD, EN], [SE] * 4], owned=[["getaway_car"], []])
    turn(state, SA, CB, "face_up")  # seat 0 recruits a codebreaker on its home: no move
    assert state.totals[0] == 0


def test_security_system_wins_when_the_other_spy_is_on_your_home():
    state = advanced(hands=[[DD, CB, SA, EN], [SE] * 4], totals=[3, 5], owned=[["security_system"], []])
    turn(state, DD, CB, "face_up")  # seat 1: 7 + 5 + 2 = 14, space 0
    assert state.is_over() and state.winner == 0
    assert "Security System" in state.end_reason


def test_masterplan_wins_with_seven_different_agents_in_play():
    areas = [{DA: 1, EN: 1, CB: 1, SA: 1, SE: 1, SK: 1}, {}]
    state = advanced(hands=[[MO, CB, SA, EN], [SE] * 4], totals=[4, 0], areas=areas, owned=[["masterplan"], []])
    turn(state, CB, MO, "face_up")
    assert state.is_over() and state.winner == 0
    assert "Masterplan" in state.end_reason


def test_masterplan_needs_seven_names_not_seven_cards():
    areas = [{DA: 2, EN: 2, CB: 1, SA: 1}, {}]
    state = advanced(hands=[[SE, CB, SA, EN], [SE] * 4], totals=[4, 0], areas=areas, owned=[["masterplan"], []])
    turn(state, CB, SE, "face_up")
    assert not state.is_over()


def test_leader_of_the_pack_turns_three_daredevils_into_a_win():
    state = advanced(hands=[[DD, CB, SA, EN], [SE] * 4], totals=[-10, 0], areas=[{DD: 2}, {}],
                     owned=[["leader_of_the_pack"], []])
    turn(state, CB, DD, "face_up")
    assert state.is_over() and state.winner == 0
    assert "Leader of the Pack" in state.end_reason


def test_supercomputer_moves_three_forward_on_a_codebreaker():
    state = advanced(hands=[[SA, CB, DD, EN], [SE] * 4], totals=[0, 4], owned=[["supercomputer"], []])
    turn(state, SA, CB, "face_up")
    assert state.totals == [3, 3]


def test_watchtower_adds_two_to_an_enforcer():
    state = advanced(hands=[[SA, EN, DD, CB], [SE] * 4], totals=[0, 4], owned=[["watchtower"], []])
    turn(state, SA, EN, "face_up")
    assert state.totals == [3, 3]


def test_distraction_device_moves_a_saboteur_forward():
    state = advanced(hands=[[SA, CB, DD, EN], [SE] * 4], totals=[0, 4], areas=[{SA: 2}, {}],
                     owned=[["distraction_device"], []])
    turn(state, CB, SA, "face_up")  # 3rd saboteur: +2 instead of -2
    assert state.totals == [2, 4]


@pytest.mark.parametrize("in_play, expected", [(0, -2), (1, 12)])
def test_sinister_twin_doubles_a_double_agent_either_way(in_play, expected):
    state = advanced(hands=[[DA, CB, DD, EN], [SE] * 4], totals=[0, 10], areas=[{DA: in_play}, {}],
                     owned=[["sinister_twin"], []])
    turn(state, CB, DA, "face_up")
    assert state.totals[0] == expected


def test_an_ongoing_card_does_not_change_the_agent_recruited_the_same_turn():
    # 1st enforcer +1 from 1 onto 2; the watchtower taken there adds nothing to that enforcer.
    state = advanced(hands=[[EN, CB, DD, SA], [SE] * 4], totals=[1, 0],
                     offer=["watchtower", "masterplan", "outpost"], bm_pile=[])
    turn(state, CB, EN, "face_up")
    take(state, "watchtower")
    assert state.totals[0] == 2
    assert state.phase == "play" and state.current_seat() == 1


def test_an_ongoing_card_changes_the_next_recruit():
    state = advanced(hands=[[EN, CB, DD, SA], [SE, SE, SE, SE]], totals=[1, 0],
                     offer=["watchtower", "masterplan", "outpost"], bm_pile=[])
    turn(state, CB, EN, "face_up")
    take(state, "watchtower")
    turn(state, SE, SE, "face_up")  # seat 0 takes seat 1's sentinel (0); seat 1 gets one too
    assert state.current_seat() == 0
    state.hands[0] = [EN, CB, SA, DD]
    turn(state, CB, EN, "face_up")  # 2nd enforcer: +2, watchtower +2
    assert state.totals[0] == 6


def test_a_recruit_triggered_card_fires_for_an_agent_recruited_by_another_card():
    state = land_on_two("smoke_screen", deck=[SE, SE, CB] + FILLER, owned=[["supercomputer"], []])
    take(state, "smoke_screen")  # recruits a codebreaker: 0 + 3 with the supercomputer
    assert state.areas[0][CB] == 1
    assert state.totals[0] == 5


# --- Instant cards ------------------------------------------------------------------------

def test_surveillance_truck_moves_one_forward_and_is_discarded():
    state = land_on_two("surveillance_truck", bm_pile=[])
    take(state, "surveillance_truck")
    assert state.totals[0] == 3
    assert state.bm_discard == ["surveillance_truck"] and state.owned == [[], []]


def test_smoke_screen_recruits_the_top_card_of_the_draw_pile():
    state = land_on_two("smoke_screen", deck=[SE, SE, EN] + FILLER)
    take(state, "smoke_screen")
    assert state.areas[0][EN] == 1 and state.totals[0] == 3
    assert state.deck[-1] == FILLER[0]


def test_smoke_screen_with_an_empty_draw_pile_does_nothing():
    state = land_on_two("smoke_screen", deck=[SE, SE])
    take(state, "smoke_screen")
    assert state.totals[0] == 2 and sum(state.areas[0].values()) == 1
    assert state.phase == "play"


def test_outpost_recruits_a_sentinel_from_hand_and_refills():
    state = land_on_two("outpost", hands=[[CB, DD, SE, EN], [SE] * 4], deck=[MO, SK, DA] + FILLER)
    take(state, "outpost")  # hand after play: SE, EN, MO, SK
    assert state.areas[0][SE] == 1 and state.totals[0] == 2
    assert sorted(state.hands[0]) == sorted([EN, MO, SK, DA])


def test_outpost_without_a_sentinel_in_hand_does_nothing():
    state = land_on_two("outpost", hands=[[CB, DD, SA, EN], [SE] * 4], deck=[MO, SK] + FILLER)
    take(state, "outpost")
    assert sorted(state.hands[0]) == sorted([SA, EN, MO, SK])
    assert state.phase == "play" and state.current_seat() == 1


def test_secret_recruit_offers_only_names_not_in_play_and_refills():
    state = land_on_two("secret_recruit", hands=[[CB, DD, DD, EN], [SE] * 4], deck=[SK, SA, MO] + FILLER,
                        areas=[{EN: 1}, {}])
    take(state, "secret_recruit")  # hand: DD, EN, SK, SA; daredevil and enforcer are in play
    assert state.phase == "secret_recruit" and state.current_seat() == 0
    assert state.legal_actions() == [{"type": "secret_recruit", "agent": SA},
                                     {"type": "secret_recruit", "agent": SK}]
    with pytest.raises(IllegalAction, match="one of"):
        state.apply({"type": "secret_recruit", "agent": EN})
    state.apply({"type": "secret_recruit", "agent": SK})
    assert state.totals[0] == 6 and state.areas[0][SK] == 1
    assert sorted(state.hands[0]) == sorted([DD, EN, SA, MO])


def test_secret_recruit_with_nothing_eligible_does_nothing():
    state = land_on_two("secret_recruit", hands=[[CB, DD, DD, EN], [SE] * 4], deck=[DD, EN] + FILLER,
                        areas=[{EN: 1}, {}])
    take(state, "secret_recruit")
    assert state.phase == "play" and state.current_seat() == 1


def test_double_trouble_recruits_one_of_a_pair_and_keeps_the_other():
    state = land_on_two("double_trouble", hands=[[CB, DD, EN, EN], [SE] * 4], deck=[SA, MO, SK] + FILLER)
    take(state, "double_trouble")
    assert state.legal_actions() == [{"type": "double_trouble", "agent": EN}]
    state.apply({"type": "double_trouble", "agent": EN})
    assert state.areas[0][EN] == 1 and state.totals[0] == 3
    assert sorted(state.hands[0]) == sorted([EN, SA, MO, SK])


def test_double_trouble_without_a_pair_does_nothing():
    state = land_on_two("double_trouble", hands=[[CB, DD, EN, SA], [SE] * 4], deck=[MO, SK] + FILLER)
    take(state, "double_trouble")
    assert state.phase == "play" and state.current_seat() == 1


def test_spycation_takes_an_agent_back_to_hand_without_moving():
    state = land_on_two("spycation", areas=[{EN: 2}, {}])
    take(state, "spycation")
    assert {"type": "spycation", "agent": EN, "recruit": False} in state.legal_actions()
    state.apply({"type": "spycation", "agent": EN, "recruit": False})
    assert state.areas[0][EN] == 1 and state.totals[0] == 2
    assert state.hands[0].count(EN) == 2 and len(state.hands[0]) == 5


def test_spycation_recruiting_at_once_moves_by_the_value_again():
    # two double agents in play: one back, and at once in again as the 2nd copy: +6
    state = land_on_two("spycation", areas=[{DA: 2}, {}])
    take(state, "spycation")
    state.apply({"type": "spycation", "agent": DA, "recruit": True})
    assert state.areas[0][DA] == 2 and state.totals[0] == 8
    assert len(state.hands[0]) == 4


def test_spycation_needs_a_recruit_flag():
    state = land_on_two("spycation")
    take(state, "spycation")
    with pytest.raises(IllegalAction, match="true or false"):
        state.apply({"type": "spycation", "agent": DD})


def test_mind_control_takes_an_opponents_agent_into_hand_and_moves_no_spy():
    state = land_on_two("mind_control", areas=[{}, {CB: 2, SA: 1}], totals=[0, 3])
    take(state, "mind_control")  # seat 1 has 3 codebreakers in play now (one just recruited)
    assert [a["agent"] for a in state.legal_actions()] == [CB, SA]
    state.apply({"type": "mind_control", "agent": CB})
    assert state.areas[1][CB] == 2 and state.totals == [2, 3]
    assert len(state.hands[0]) == 5  # above 4: no draw
    assert not state.is_over()  # the 3rd codebreaker is gone before the check


def test_mind_control_with_an_empty_opposing_play_area_does_nothing():
    state = advanced(hands=[[EN, DD, SA, CB], [SE] * 4], offer=["mind_control", "watchtower", "masterplan"],
                     bm_pile=[])
    turn(state, EN, DD, "face_down")  # seat 1's daredevil: 7 -> 9, a corner
    assert state.current_seat() == 1 and state.phase == "take"
    state.areas[0] = dict.fromkeys(state.areas[0], 0)  # seat 0 with nothing in play
    take(state, "mind_control")
    assert state.phase == "play" and len(state.hands[1]) == 4


def test_an_effect_hand_above_four_draws_only_when_below_four_again():
    state = land_on_two("mind_control", areas=[{}, {SA: 1}])
    take(state, "mind_control")
    state.apply({"type": "mind_control", "agent": SA})
    assert len(state.hands[0]) == 5
    turn(state, SE, SE, "face_up")
    play_cards = [a for a in state.legal_actions() if a["type"] == "play"]
    state.apply(play_cards[0])
    assert len(state.hands[0]) == 4  # 5 - 2 = 3, refilled to 4


# --- Decisions ----------------------------------------------------------------------------

@pytest.mark.parametrize("corner", [2, 5, 9, 12])
def test_each_of_the_four_corners_is_a_black_market_space(corner):
    state = advanced(totals=[corner - 2, 0], offer=OTHER_CARDS[:3], bm_pile=[])
    turn(state, CB, DD, "face_up")  # seat 0: daredevil +2 onto the corner
    assert state.observation(0)["spies"][0]["position"] == corner
    assert state.phase == "take" and state.current_seat() == 0


def test_a_check_phase_card_taken_this_turn_already_applies_in_its_check_phase():
    """[decision] Same turn: seat 1's spy stands on seat 0's home; seat 0 takes the Security
    System on corner 2 and wins in the check phase of the same turn."""
    state = land_on_two("security_system", totals=[0, 7])
    take(state, "security_system")
    assert state.is_over() and state.winner == 0 and "Security System" in state.end_reason


def test_taking_is_a_decision_even_with_one_card_on_offer():
    """[decision] Taking is a decision."""
    state = land_on_two("watchtower", offer=["watchtower"], bm_pile=[])
    assert state.phase == "take" and state.legal_actions() == [{"type": "take", "card": "watchtower"}]


def test_a_modified_move_is_one_move_judged_where_it_ends():
    """[decision] One move: from 1, an enforcer's printed +1 would end on corner 2, but with the
    watchtower the move is +3 and ends on 4: no card."""
    state = advanced(hands=[[CB, EN, SA, DD], [SE] * 4], totals=[1, 0], owned=[["watchtower"], []],
                     offer=OTHER_CARDS[:3], bm_pile=[])
    turn(state, CB, EN, "face_up")
    assert state.totals[0] == 4 and state.phase == "play"


def test_a_getaway_car_move_that_ends_on_a_home_goes_on_and_takes_no_card():
    """[decision] One move: 5 -> 7 (a home) -> 10, never a corner."""
    state = advanced(totals=[5, 5], owned=[["getaway_car"], []], offer=OTHER_CARDS[:3], bm_pile=[])
    turn(state, CB, DD, "face_up")
    assert state.observation(0)["spies"][0]["position"] == 10 and state.phase == "play"


def test_an_instant_effect_with_options_must_pick_one_of_them():
    """[decision] Instant effects: mind control has a target, so it cannot be skipped."""
    state = land_on_two("mind_control", areas=[{}, {EN: 1}])
    take(state, "mind_control")  # seat 1 holds the enforcer and the codebreaker it just took
    assert state.legal_actions() == [{"type": "mind_control", "agent": CB}, {"type": "mind_control", "agent": EN}]
    with pytest.raises(IllegalAction):
        state.apply({"type": "pass"})
