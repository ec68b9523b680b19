"""Fifth Avenue refuses any garbage action cleanly: whatever JSON value a bot sends, ``apply``
applies it (only a listed action) or raises ``IllegalAction`` with a reason, never another
exception, and a refusal leaves the state exactly as it was."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import IllegalAction, get_game
from test_garbage_support import Thrower, check_refused_or_legal, random_state

GAME = get_game("fifth-avenue")
THROWER = Thrower(GAME, [(players, {"board": board}) for players in (2, 3, 4) for board in ("5-plot", "6-plot")])


def rules_accept(state, action) -> bool:
    """Besides the listed actions: the two colours of a take_cards in either order."""
    return (isinstance(action, dict) and set(action) == {"type", "colours"} and action["type"] == "take_cards"
            and isinstance(action["colours"], list)
            and any(listed["colours"] == action["colours"][::-1] for listed in state.legal_actions()
                    if listed["type"] == "take_cards"))


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), players=st.sampled_from([2, 3, 4]), board=st.sampled_from(["5-plot", "6-plot"]),
       seed=st.integers(0, 2 ** 32), steps=st.integers(0, 400))
def test_any_json_value_is_applied_only_if_legal_else_refused_without_a_change(data, players, board, seed, steps):
    state = random_state(GAME, players, seed, steps, {"board": board})
    for _ in range(8):
        check_refused_or_legal(state, THROWER.throw(data, state), rules_accept)


# The bugs the property test found, one test each.
def test_take_cards_with_a_key_it_does_not_have_is_refused_in_either_order():
    from test_fifth_avenue_support import after_setup, at_turn
    state = after_setup(players=3)
    at_turn(state, 0)
    state.apply({"type": "take_skyscrapers"})
    colours = state.legal_actions()[0]["colours"]
    for order in (colours, colours[::-1]):
        with pytest.raises(IllegalAction, match="unexpected key"):
            state.apply({"type": "take_cards", "colours": order, "x": 1})
    state.apply({"type": "take_cards", "colours": colours[::-1]})


def test_a_listed_type_with_a_wrong_key_is_refused_naming_the_key():
    from test_fifth_avenue_support import after_setup
    state = after_setup(players=3)
    with pytest.raises(IllegalAction, match="unexpected key"):
        state.apply({"type": "take_skyscrapers", "count": 3})
    with pytest.raises(IllegalAction, match="missing key"):
        state.apply({"type": "place_business", "business": "boutique", "district": "34w"})


def test_a_refusal_reason_stays_short_whatever_the_action_holds():
    state = GAME.new_game(2, 1)
    for action in ([["x" * 100_000]], {"type": "x" * 100_000}, {"type": "place_skyscraper", "district": "x" * 100_000,
                                                                  "plot": [10 ** 4000]}):
        with pytest.raises(IllegalAction) as refusal:
            state.apply(action)
        assert len(refusal.value.reason) < 400
