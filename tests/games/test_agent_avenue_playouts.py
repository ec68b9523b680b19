"""Agent Avenue random legal playouts in every variant and player count: the game always ends
with exactly one winning side, no card is created or lost, the same seed and actions give the
same game, every listed action is accepted after a JSON round trip, refusals change nothing."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest

from arena.games import get_game
from arena.games.base import IllegalAction, random_playout
from test_agent_avenue_support import FULL_BLACK_MARKET, FULL_DECK, agent_cards, black_market_cards, new_state

VARIANTS = [(2, False), (2, True), (3, False), (3, True), (4, False), (4, True)]
GAME = get_game("agent-avenue")


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_random_playouts_end_with_exactly_one_winning_side(players, advanced):
    for seed in range(40):
        state, _ = random_playout(GAME, players, seed, {"advanced": advanced})
        ranks = state.ranks()
        winners = {seat for seat in range(players) if ranks[seat] == 1}
        assert set(ranks) == {1, 2}
        assert winners == set(state.sides[state.winner])
        assert state.scores() == [1.0 if seat in winners else 0.0 for seat in range(players)]
        assert state.current_seat() is None and state.end_reason


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_no_card_is_created_or_lost(players, advanced):
    for seed in range(8):
        state = new_state(players, advanced, seed)
        rng = random.Random(seed)
        while not state.is_over():
            state.apply(state.random_action(rng))
            assert agent_cards(state) == FULL_DECK
            assert black_market_cards(state) == (FULL_BLACK_MARKET if advanced else Counter())
            assert all(count >= 0 for area in state.areas for count in area.values())


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_the_same_seed_and_actions_replay_the_same_game(players, advanced):
    for seed in range(5):
        first, record = random_playout(GAME, players, seed, {"advanced": advanced})
        again = GAME.new_game(players, seed, record.options)
        for seat, action in record.actions:
            assert again.current_seat() == seat
            again.apply(json.loads(json.dumps(action)))
        assert again.snapshot() == first.snapshot()
        assert random_playout(GAME, players, seed, {"advanced": advanced})[1].actions == record.actions


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_every_listed_action_is_accepted_after_a_json_round_trip(players, advanced):
    state = new_state(players, advanced, seed=11)
    rng = random.Random(11)
    while not state.is_over():
        actions = state.legal_actions()
        assert actions, f"no legal action in phase {state.phase}"
        assert len({json.dumps(a, sort_keys=True) for a in actions}) == len(actions)
        for action in actions:
            copy.deepcopy(state).apply(json.loads(json.dumps(action)))
        state.apply(rng.choice(actions))


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_a_refused_action_changes_nothing(players, advanced):
    bad = [{"type": "play", "face_up": "ghost", "face_down": "ghost"}, {"type": "discard", "card": "ghost"},
           {"type": "choose", "take": "both"}, {"type": "take", "card": "ghost"}, {"type": "nonsense"},
           {"type": "play_face_up", "card": 7}, {"type": "play_face_down", "card": None},
           {"type": "mind_control", "agent": "ghost"}, {"type": "spycation", "agent": "ghost", "recruit": 1}, "x"]
    state = new_state(players, advanced, seed=12)
    rng = random.Random(12)
    while not state.is_over():
        before = state.snapshot()
        for action in bad:
            with pytest.raises(IllegalAction):
                state.apply(action)
            assert state.snapshot() == before
        state.apply(state.random_action(rng))
