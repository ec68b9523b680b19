"""Agent Avenue hidden information: a seat's observation does not change when only what that
seat may not see changes (other hands, teammates' included; the draw pile and Black Market
pile order; face-down discards; the face-down card, to everyone but the seat that played it)."""

from __future__ import annotations

import copy
import json
import random

import pytest

from test_agent_avenue_support import new_state

VARIANTS = [(2, False), (2, True), (3, False), (3, True), (4, False), (4, True)]


def states_along_playouts(players, advanced, seeds=(3, 4)):
    """Copies of every state met in random playouts."""
    for seed in seeds:
        state = new_state(players, advanced, seed)
        rng = random.Random(seed)
        while not state.is_over():
            yield copy.deepcopy(state)
            state.apply(state.random_action(rng))


def swap_with_deck(cards: list, deck: list) -> bool:
    """Exchange each card for a differently named one from the draw pile; True if any changed."""
    changed = False
    for i, card in enumerate(cards):
        for j, other in enumerate(deck):
            if other != card:
                cards[i], deck[j] = other, card
                changed = True
                break
    return changed


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_other_hands_are_invisible_teammates_included(players, advanced):
    changed = 0
    for state in states_along_playouts(players, advanced):
        for seat in range(players):
            before = state.observation(seat)
            other = copy.deepcopy(state)
            for hand_seat in range(players):
                if hand_seat != seat:
                    changed += swap_with_deck(other.hands[hand_seat], other.deck)
            assert other.observation(seat) == before
    assert changed  # the hands really were different


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_your_own_hand_is_visible(players, advanced):
    state = next(states_along_playouts(players, advanced))
    other = copy.deepcopy(state)
    assert swap_with_deck(other.hands[1], other.deck)
    assert other.observation(1) != state.observation(1)


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_the_order_of_the_draw_pile_and_black_market_pile_is_invisible(players, advanced):
    for state in states_along_playouts(players, advanced, seeds=(5,)):
        other = copy.deepcopy(state)
        other.deck.reverse()
        other.bm_pile.reverse()
        for seat in range(players):
            assert other.observation(seat) == state.observation(seat)


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_face_down_discards_are_invisible(players, advanced):
    changed = 0
    for state in states_along_playouts(players, advanced, seeds=(6, 7)):
        other = copy.deepcopy(state)
        for discarded in other.discarded:
            changed += swap_with_deck(discarded, other.deck)
        for seat in range(players):
            assert other.observation(seat) == state.observation(seat)
    assert changed


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_only_the_seat_that_played_it_sees_the_face_down_card(players, advanced):
    checked = 0
    for state in states_along_playouts(players, advanced):
        if state.phase != "choose":
            continue
        other = copy.deepcopy(state)
        replacement = next(card for card in other.deck if card != other.face_down) if other.deck else None
        if replacement is None:
            continue
        other.face_down = replacement
        for seat in range(players):
            if seat == state.face_down_seat:
                assert other.observation(seat) != state.observation(seat)
                assert state.observation(seat)["current_play"]["face_down"] == state.face_down
            else:
                assert other.observation(seat) == state.observation(seat)
                assert state.observation(seat)["current_play"]["face_down"] is None
        checked += 1
    assert checked


def test_a_teammate_does_not_see_the_face_down_card_of_the_face_up_player_s_partner():
    state = new_state(4, seed=2)
    state.apply(next(a for a in state.legal_actions() if a["type"] == "play_face_up"))
    state.apply(next(a for a in state.legal_actions() if a["type"] == "play_face_down"))
    assert state.observation(2)["current_play"]["face_down"] == state.face_down
    assert state.observation(0)["current_play"]["face_down"] is None
    assert state.observation(0)["current_play"]["face_up"] == state.face_up


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_observations_are_plain_json(players, advanced):
    for state in states_along_playouts(players, advanced, seeds=(8,)):
        for seat in range(players):
            observation = state.observation(seat)
            assert json.loads(json.dumps(observation)) == observation


def test_the_copy_kept_by_double_trouble_is_not_remembered_in_observations():
    """[decision] Double trouble: the pair was revealed, but no observation records the kept
    copy: the other seat's view is the same whatever that hand card is."""
    from test_agent_avenue_support import arrange, take, turn
    state = arrange(new_state(2, advanced=True), hands=[["codebreaker", "daredevil", "enforcer", "enforcer"],
                                                       ["sentinel"] * 4],
                    deck=["saboteur", "mole", "sidekick"] + ["sentinel"] * 8,
                    offer=["double_trouble", "watchtower", "masterplan"], bm_pile=[])
    turn(state, "codebreaker", "daredevil", "face_up")
    take(state, "double_trouble")
    state.apply({"type": "double_trouble", "agent": "enforcer"})
    assert "enforcer" in state.hands[0]
    changed = copy.deepcopy(state)
    changed.hands[0][changed.hands[0].index("enforcer")] = "double_agent"
    assert changed.observation(1) == state.observation(1)
