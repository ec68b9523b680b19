"""The Fifth Avenue docs page stays in step with the engine."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_fifth_avenue_support import after_setup, new_state

DOC = (Path(__file__).resolve().parents[2] / "docs" / "games" / "fifth-avenue.md").read_text()



def json_blocks():
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC, re.S)]


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


def test_example_legal_actions_are_bid_actions():
    legal = json_blocks()[1]
    assert {action["type"] for action in legal} <= {"pass", "add", "done"}
