"""Agent Avenue team variant (3 and 4 players): teams, the split play, the opposing team's
choice, discard allowances, the last-card rule and the team exhaustion rule."""

from __future__ import annotations

import pytest

from arena.games.base import IllegalAction
from test_agent_avenue_support import arrange, choose, new_state, take

DA, EN, CB, SA, DD, SE, SK, MO = ("double_agent", "enforcer", "codebreaker", "saboteur", "daredevil",
                                  "sentinel", "sidekick", "mole")
FILLER = [SK, MO, SE, SE, SE, SE, SE, SE, SE, SE]


def up(state, card):
    state.apply({"type": "play_face_up", "card": card})


def down(state, card):
    state.apply({"type": "play_face_down", "card": card})


def team_turn(state, face_up, face_down, taken):
    up(state, face_up)
    down(state, face_down)
    choose(state, taken)


def four(**arrangement):
    arrangement.setdefault("hands", [[EN, SA, CB, DD], [SE] * 4, [SA, EN, CB, MO], [SE] * 4])
    arrangement.setdefault("deck", list(FILLER))
    return arrange(new_state(4, advanced=arrangement.pop("advanced", False)), **arrangement)


def test_seats_alternate_between_teams():
    assert new_state(4).teams() == [[0, 2], [1, 3]]
    assert new_state(3).teams() == [[0, 2], [1]]
    assert new_state(2).teams() is None


def test_each_teammate_may_discard_twice_and_a_player_alone_four_times():
    assert new_state(4).discards_left == [2, 2, 2, 2]
    assert new_state(3).discards_left == [2, 4, 2]


def test_a_teammate_may_not_discard_a_third_time():
    state = new_state(4)
    for _ in range(2):
        state.apply({"type": "discard", "card": state.hands[0][0]})
    with pytest.raises(IllegalAction, match="used all your discard-and-redraws"):
        state.apply({"type": "discard", "card": state.hands[0][0]})


def test_the_player_alone_discards_up_to_four_times_and_plays_both_cards():
    state = arrange(new_state(3), hands=[[EN, SA, CB, DD], [SE, EN, SA, MO], [SA, EN, CB, MO]],
                    deck=list(FILLER))
    team_turn(state, EN, SA, "face_up")
    assert state.current_seat() == 1 and state.phase == "play"
    for _ in range(4):
        state.apply({"type": "discard", "card": state.hands[1][0]})
    assert not any(action["type"] == "discard" for action in state.legal_actions())
    state.apply(next(action for action in state.legal_actions() if action["type"] == "play"))
    assert state.phase == "choose" and state.current_seat() == 2


def test_one_teammate_plays_face_up_then_the_other_face_down():
    state = four()
    assert state.current_seat() == 0 and state.phase == "play_face_up"
    up(state, EN)
    assert state.current_seat() == 2 and state.phase == "play_face_down"
    down(state, SA)
    assert state.current_seat() == 1 and state.phase == "choose"


def test_the_face_down_card_must_have_another_name_than_the_face_up_card():
    state = four()
    up(state, EN)
    assert {"type": "play_face_down", "card": EN} not in state.legal_actions()
    with pytest.raises(IllegalAction, match="unless every card in your hand"):
        down(state, EN)


def test_the_face_down_card_may_match_when_the_whole_hand_has_that_name():
    state = four(hands=[[EN, SA, CB, DD], [SE] * 4, [EN] * 4, [SE] * 4])
    up(state, EN)
    assert [a for a in state.legal_actions() if a["type"] == "play_face_down"] == [
        {"type": "play_face_down", "card": EN}]
    down(state, EN)
    assert state.phase == "choose"


def test_both_teammates_refill_to_four_after_playing():
    state = four(deck=[MO, SK] + FILLER)
    up(state, EN)
    assert len(state.hands[0]) == 3
    down(state, SA)
    assert state.hands[0][-1] == MO and state.hands[2][-1] == SK
    assert [len(hand) for hand in state.hands] == [4, 4, 4, 4]


def test_teams_share_one_spy_and_one_play_area():
    state = four()
    team_turn(state, EN, SA, "face_down")  # team 1 takes the saboteur, team 0 the enforcer
    assert state.areas[0][EN] == 1 and state.areas[1][SA] == 1
    assert state.totals == [1, -1]
    team_turn(state, SE, SE, "face_up")  # team 1: seat 1 up, seat 3 down (all sentinels)
    assert state.areas[0][SE] == 1 and state.areas[1][SE] == 1


def test_openers_alternate_and_the_opposing_next_opener_chooses():
    state = four(hands=[[EN, SA, CB, DD], [EN, SA, CB, DD], [SA, EN, CB, MO], [SA, EN, CB, MO]])
    seen = []
    for _ in range(4):
        seen.append((state.current_seat(), state.partner, state.chooser))
        opener = state.current_seat()
        card = state.hands[opener][0]
        up(state, card)
        down(state, next(c for c in state.hands[state.to_move] if c != card))
        choose(state, "face_up")
        if state.is_over():
            break
    assert seen == [(0, 2, 1), (1, 3, 2), (2, 0, 3), (3, 1, 0)]


def test_the_last_card_of_the_draw_pile_goes_to_the_face_up_player():
    state = four(deck=[MO, SK, DA])
    team_turn(state, EN, SA, "face_down")  # the teammates draw the mole and the sidekick
    assert state.current_seat() == 1 and len(state.hands[1]) == 5 and state.hands[1][-1] == DA
    assert len(state.hands[3]) == 4 and state.deck == []


def test_team_exhaustion_waits_while_every_opponent_has_a_card():
    state = four(hands=[[EN, SA], [SE], [SA, EN], [MO]], deck=[])
    team_turn(state, EN, SA, "face_up")
    assert not state.is_over() and state.current_seat() == 1


def test_team_exhaustion_ends_the_game_when_an_opponent_has_no_card():
    state = four(hands=[[EN, SA], [SE, SE], [SA, EN], []], deck=[])
    team_turn(state, EN, SA, "face_down")  # team 1 -1, team 0 +1
    assert state.is_over() and state.winner == 0
    assert state.ranks() == [1, 2, 1, 2] and state.scores() == [1.0, 0.0, 1.0, 0.0]


def test_exhaustion_ends_the_game_when_the_player_alone_has_fewer_than_two_cards():
    state = arrange(new_state(3), hands=[[EN, SA], [SE], [SA, EN]], deck=[])
    team_turn(state, EN, SA, "face_up")  # team 1 +1, team 0 -1
    assert state.is_over() and state.winner == 1
    assert state.ranks() == [2, 1, 2]


def test_the_team_that_catches_wins_together():
    state = four(totals=[6, 0])
    team_turn(state, EN, SA, "face_down")
    assert state.is_over() and state.ranks() == [1, 2, 1, 2]


def test_in_a_team_the_face_up_player_takes_for_the_active_side_with_their_hand():
    state = four(advanced=True, hands=[[CB, DD, SE, EN], [SE] * 4, [DD, SA, EN, MO], [SE] * 4],
                 offer=["outpost", "watchtower", "masterplan"], bm_pile=[], deck=list(FILLER))
    team_turn(state, CB, DD, "face_up")  # team 0 recruits a daredevil: 0 -> 2
    assert state.phase == "take" and state.current_seat() == 0
    take(state, "outpost")
    assert state.areas[0][SE] == 1 and SE not in state.hands[0][:2]


def test_in_a_team_the_chooser_takes_for_the_other_side():
    state = four(advanced=True, offer=["watchtower", "masterplan", "outpost"], bm_pile=[])
    team_turn(state, DD, EN, "face_up")  # team 1 recruits a daredevil: 7 -> 9
    assert state.phase == "take" and state.current_seat() == 1


def test_the_partner_may_discard_and_redraw_after_seeing_the_face_up_card():
    """[decision] Team refill: each teammate discards before playing their own card."""
    state = four()
    up(state, EN)
    assert {"type": "discard", "card": SA} in state.legal_actions()
    state.apply({"type": "discard", "card": SA})
    assert state.phase == "play_face_down" and state.discards_left[2] == 1


def test_when_the_draw_pile_cannot_refill_both_teammates_the_opener_draws_first():
    """[decision] Team refill: two cards left; the partner's discard takes one, the opener
    gets the last one when both refill."""
    state = four(deck=[MO, SK])
    up(state, EN)
    state.apply({"type": "discard", "card": SA})  # seat 2 draws the mole
    down(state, CB)
    assert state.deck == [] and state.hands[0][-1] == SK
    assert [len(hand) for hand in state.hands] == [4, 4, 3, 4]


def test_a_player_alone_takes_the_last_card_only_when_refilling():
    """[decision] Last card: the rule is for teams of two; seat 1 alone starts its turn with 4
    cards although one card is left, and draws it after playing."""
    state = arrange(new_state(3), hands=[[EN, SA, CB, DD], [SE, EN, SA, MO], [SA, EN, CB, MO]],
                    deck=[SK, DA, MO])
    team_turn(state, EN, SA, "face_up")  # seats 0 and 2 refill with the sidekick and the double agent
    assert state.current_seat() == 1 and state.phase == "play"
    assert len(state.deck) == 1 and len(state.hands[1]) == 4
    state.apply({"type": "play", "face_up": SE, "face_down": EN})
    assert state.deck == [] and len(state.hands[1]) == 3 and MO in state.hands[1]


def test_teammates_share_their_black_market_cards():
    state = four(advanced=True, hands=[[CB, DD, SE, EN], [SE] * 4, [DD, SA, EN, MO], [SE] * 4],
                 offer=["watchtower", "masterplan", "outpost"], bm_pile=[], deck=list(FILLER))
    team_turn(state, CB, DD, "face_up")  # team 0 recruits a daredevil: 0 -> 2; seat 0 takes
    take(state, "watchtower")
    assert state.owned[0] == ["watchtower"]
    assert state.observation(2)["black_market"]["owned"][0] == ["watchtower"]
