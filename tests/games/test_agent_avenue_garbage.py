"""Agent Avenue refuses any garbage action cleanly: whatever JSON value a bot sends, ``apply``
applies it (only a listed action) or raises ``IllegalAction`` with a reason, never another
exception, and a refusal leaves the state exactly as it was."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import IllegalAction, get_game
from test_garbage_support import Thrower, check_refused_or_legal, random_state

GAME = get_game("agent-avenue")
THROWER = Thrower(GAME, [(players, {"advanced": advanced}) for players in (2, 3, 4) for advanced in (False, True)])


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), players=st.sampled_from([2, 3, 4]), advanced=st.booleans(),
       seed=st.integers(0, 2 ** 32), steps=st.integers(0, 60))
def test_any_json_value_is_applied_only_if_legal_else_refused_without_a_change(data, players, advanced, seed, steps):
    state = random_state(GAME, players, seed, steps, {"advanced": advanced})
    for _ in range(8):
        check_refused_or_legal(state, THROWER.throw(data, state))


# The bugs the property test found, one test each.
def test_an_action_with_a_key_it_does_not_have_is_refused_naming_the_key():
    state = GAME.new_game(2, 1)
    hand = state.hands[0]
    up, down = hand[0], next(card for card in hand if card != hand[0])
    with pytest.raises(IllegalAction, match="unexpected key"):
        state.apply({"type": "play", "face_up": up, "face_down": down, "face-down": down})
    state.apply({"type": "play", "face_up": up, "face_down": down})
    with pytest.raises(IllegalAction, match="unexpected key"):
        state.apply({"type": "choose", "take": "face_up", "index": 0})


def test_a_refusal_reason_stays_short_whatever_the_action_holds():
    state = GAME.new_game(2, 1)
    for action in ([["x" * 100_000]], {"type": "play", "face_up": "x" * 100_000}, {"type": {"type": [10 ** 4000]}}):
        with pytest.raises(IllegalAction) as refusal:
            state.apply(action)
        assert len(refusal.value.reason) < 300
