"""The Fifth Avenue docs page stays in step with the engine."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from test_fifth_avenue_support import after_setup, new_state

DOC = (Path(__file__).resolve().parents[2] / "docs" / "games" / "fifth-avenue.md").read_text()
EXAMPLE_SEED, EXAMPLE_ACTIONS = 161, 27  # the example: 3 players, 27 actions of the policy below
# The finished-auctions example: 2 players, 21 actions; Alea's draw ended the 34w auction.
ALEA_SEED, ALEA_ACTIONS = 186, 21


def json_blocks():
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC, re.S)]


def example_state(players=3, seed=EXAMPLE_SEED, actions=EXAMPLE_ACTIONS):
    """Replay the documented example: a policy that picks an action type, then an action of
    that type, uniformly (random.Random(seed))."""
    state = new_state(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        legal = state.legal_actions()
        kind = rng.choice(sorted({action["type"] for action in legal}))
        state.apply(rng.choice([action for action in legal if action["type"] == kind]))
    return state


def test_example_observation_is_the_engines_exact_output():
    state = example_state()
    assert json_blocks()[0] == state.observation(state.current_seat())


def test_example_legal_actions_are_the_engines_exact_output():
    assert json_blocks()[1] == example_state().legal_actions()


def test_finished_auctions_example_is_what_both_seats_are_shown():
    state = example_state(players=2, seed=ALEA_SEED, actions=ALEA_ACTIONS)
    example = json_blocks()[2]
    assert example[0]["alea_cards"] and example[0]["winner"] == 1
    assert state.current_seat() == 1 and state.decision() == "bid"
    assert state.observation(0)["finished_auctions"] == example
    assert state.observation(1)["finished_auctions"] == example


def test_every_finished_auction_key_is_documented():
    section = DOC.split("### Finished auctions", 1)[1].split("A real example", 1)[0]
    for key in json_blocks()[2][0]:
        assert f"`{key}`" in section, key


def test_example_observation_has_the_keys_of_a_real_observation():
    example = json_blocks()[0]
    real = after_setup(players=3).observation(0)
    assert set(example) == set(real)
    assert set(example["players_info"][0]) == set(real["players_info"][0])
    assert set(example["districts"][0]["plots"][0]) == set(real["districts"][0]["plots"][0])


def test_every_observation_key_is_documented():
    keys = set(new_state(players=2).observation(0)) | {"build_choice", "end"}
    for key in keys:
        assert f"`{key}`" in DOC, key
