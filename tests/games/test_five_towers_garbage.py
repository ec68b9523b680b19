"""Five Towers refuses any garbage action cleanly: whatever JSON value a bot sends, ``apply``
applies it (only a legal action) or raises ``IllegalAction`` with a reason, never another
exception, and a refusal leaves the state exactly as it was."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import IllegalAction, get_game
from arena.games.five_towers import BUILD, CAP, COLOURS, card_json
from test_garbage_support import Thrower, check_refused_or_legal, random_state

GAME = get_game("five-towers")
THROWER = Thrower(GAME, [(players, None) for players in (2, 3, 4, 5)])


def rules_accept(state, action) -> bool:
    """Besides the listed actions the rules accept any well-formed build: the taken cards in
    any order (placed as listed; one that cannot be placed is the rules' rollback) and a
    missing "teardown" meaning none."""
    if state.phase != BUILD or not isinstance(action, dict) or action.get("type") != "build":
        return False
    if not set(action) <= {"type", "cards", "teardown"} or not isinstance(action.get("cards"), list):
        return False
    cards = action["cards"]
    for card in cards:
        if not (isinstance(card, list) and len(card) == 2 and isinstance(card[0], str) and card[0] in COLOURS
                and type(card[1]) is int and 0 <= card[1] <= 15):
            return False
    market = Counter(tuple(card_json(code)) for code in state.market)
    if len(cards) != state.take or Counter(tuple(card) for card in cards) - market:
        return False
    teardown = action.get("teardown")
    if teardown is None:
        return True
    tower = state.towers[state.winner][COLOURS.index(teardown)] if teardown in COLOURS else None
    return bool(tower) and tower[-1] != CAP


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), players=st.sampled_from([2, 3, 4, 5]), seed=st.integers(0, 2 ** 32),
       steps=st.integers(0, 120))
def test_any_json_value_is_applied_only_if_legal_else_refused_without_a_change(data, players, seed, steps):
    state = random_state(GAME, players, seed, steps)
    for _ in range(8):
        check_refused_or_legal(state, THROWER.throw(data, state), rules_accept)


# The bugs the property test found, one test each.
def test_an_action_with_a_key_it_does_not_have_is_refused_naming_the_key():
    state = GAME.new_game(3, 1)
    state.apply({"type": "bid", "amount": 1})
    for action in ({"type": "pass", "amount": 2}, {"type": "bid", "amount": 2, "amonut": 3}):
        with pytest.raises(IllegalAction, match="unexpected key"):
            state.apply(action)


def test_a_refusal_reason_stays_short_whatever_the_action_holds():
    state = GAME.new_game(2, 1)
    for action in ([["x" * 100_000]], {"type": "bid", "amount": 10 ** 4000}, {"type": "x" * 100_000}):
        with pytest.raises(IllegalAction) as refusal:
            state.apply(action)
        assert len(refusal.value.reason) < 300
