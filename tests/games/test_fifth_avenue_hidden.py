"""Fifth Avenue hidden information: a seat's observation does not change when only information
hidden from that seat changes (others' black cards, the black stack order, the removed
businesses, the colour stacks below their top cards). The public records of finished
auctions (``finished_auctions``, with Alea's turned cards) are part of the checked observations."""

from __future__ import annotations

import copy
import json
import random

import pytest

from test_fifth_avenue_support import GAME, after_setup


def other_black_reshuffled(state, seat, rng):
    """Same counts, different values, for every seat except ``seat``."""
    changed = copy.deepcopy(state)
    for other in range(state.players):
        if other != seat:
            count = sum(changed.black[other])
            changed.black[other] = [0, 0, 0]
            for _ in range(count):
                changed.black[other][rng.randrange(3)] += 1
    return changed


def black_stack_reordered(state, seat, rng):
    changed = copy.deepcopy(state)
    rng.shuffle(changed.black_stack)
    return changed


def removed_businesses_changed(state, seat, rng):
    changed = copy.deepcopy(state)
    changed.removed = [rng.randrange(4) for _ in changed.removed]
    return changed


def colour_stacks_changed_below_the_top(state, seat, rng):
    changed = copy.deepcopy(state)
    for stack in changed.stacks:
        below = stack[:-1]
        rng.shuffle(below)
        stack[:-1] = below
    return changed


HIDDEN_CHANGES = [other_black_reshuffled, black_stack_reordered, removed_businesses_changed,
                  colour_stacks_changed_below_the_top]


@pytest.mark.parametrize("change", HIDDEN_CHANGES)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_observation_ignores_hidden_changes_throughout_a_game(change, players):
    rng = random.Random(players)
    state = GAME.new_game(players, players)
    checked = with_finished = with_alea_cards = 0
    while not state.is_over():
        if rng.random() < 0.2:
            for seat in range(players):
                assert change(state, seat, rng).observation(seat) == state.observation(seat)
                checked += 1
            finished = [record for seat in range(players) for record in state.observation(seat)["finished_auctions"]]
            with_finished += bool(finished)
            with_alea_cards += any(record["alea_cards"] for record in finished)
        legal = state.legal_actions()
        kinds = sorted({a["type"] for a in legal})
        kind = rng.choice(kinds)
        state.apply(rng.choice([a for a in legal if a["type"] == kind]))
    # The checks covered finished auctions, with Alea's turned cards in 2-player games.
    assert checked > 0 and with_finished > 0 and (players > 2 or with_alea_cards > 0)


def test_own_black_cards_are_visible_to_the_owner_only():
    state = after_setup(players=3)
    changed = copy.deepcopy(state)
    changed.black[1] = [4, 0, 0] if state.black[1] != [4, 0, 0] else [0, 4, 0]
    assert changed.observation(1) != state.observation(1)
    assert changed.observation(0) == state.observation(0)
    assert state.observation(1)["your_black_cards"] == sorted(
        [4] * state.black[1][0] + [5] * state.black[1][1] + [6] * state.black[1][2])


def test_black_card_counts_of_others_are_public():
    state = after_setup(players=3)
    changed = copy.deepcopy(state)
    changed.black[1][0] += 1
    assert changed.observation(0) != state.observation(0)
    assert [p["black_count"] for p in changed.observation(0)["players_info"]] == [4, 5, 4]


def test_coloured_cards_and_stack_tops_are_public():
    state = after_setup(players=3)
    observation = state.observation(2)
    assert observation["players_info"][0]["coloured_cards"] == {
        colour: [4 + i for i in range(3) for _ in range(state.coloured[0][c][i])]
        for c, colour in enumerate(("orange", "green", "gray", "brown", "violet"))}
    assert observation["stacks"]["orange"] == {"top": state.stacks[0][-1], "size": len(state.stacks[0])}
    assert observation["stacks"]["black"] == {"size": len(state.black_stack)}


def test_observation_is_plain_json():
    state = after_setup(players=2)
    observation = state.observation(0)
    assert json.loads(json.dumps(observation)) == observation
    assert "removed" not in json.dumps(observation)


@pytest.mark.parametrize("players", [2, 3])
def test_finished_auctions_are_public_records_the_same_for_every_seat(players):
    """What a seat is shown of a finished auction is the public record, whoever the seat is."""
    rng = random.Random(10 + players)
    state = GAME.new_game(players, 10 + players)
    while not state.is_over():
        log = state.snapshot()["auction_log"]
        for seat in range(players):
            shown = state.observation(seat)["finished_auctions"]
            assert shown == log[len(log) - len(shown):]
        legal = state.legal_actions()
        kind = rng.choice(sorted({a["type"] for a in legal}))
        state.apply(rng.choice([a for a in legal if a["type"] == kind]))
    assert log
