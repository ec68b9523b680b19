"""The Agent Avenue docs page stays in step with the engine: its examples are real engine
output, every observation field, phase and action type is documented, and every decision
marked in the code is on the page."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from test_agent_avenue_support import new_state

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "games" / "agent-avenue.md").read_text()
ENGINE = ROOT / "arena" / "games" / "agent_avenue"


def json_blocks():
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC, re.S)]


def documented_choose_observation():
    """The documented situation: seed 28, advanced, random play, seat 0 chooses in turn 3."""
    state = new_state(2, advanced=True, seed=28)
    rng = random.Random(28)
    while not (state.phase == "choose" and state.turn_number == 3):
        state.apply(state.random_action(rng))
    return state.observation(0)


def test_the_example_observation_is_a_real_observation():
    assert json_blocks()[0] == documented_choose_observation()


def test_the_example_legal_list_is_the_real_one_for_the_partner_after_a_double_agent():
    state = new_state(4, seed=2)
    state.apply({"type": "play_face_up", "card": "double_agent"})
    assert json_blocks()[1] == state.legal_actions()


def test_every_observation_field_is_documented():
    for players, advanced in ((2, True), (4, False)):
        observation = new_state(players, advanced=advanced).observation(0)
        for key in observation:
            assert f"`{key}`" in DOC, key
        for key in observation["spies"][0]:
            assert f"`{key}`" in DOC, key
    for key in json_blocks()[0]["black_market"]:
        assert f"`{key}`" in DOC, key


def test_every_phase_and_action_type_is_documented():
    from arena.games.agent_avenue.black_market import EFFECT_PHASES
    from arena.games.agent_avenue.state import ALLOWED
    phases = set(ALLOWED) | set(EFFECT_PHASES) | {"over"}
    for phase in phases:
        assert f"`{phase}`" in DOC, phase
    for kinds in list(ALLOWED.values()) + [(phase,) for phase in EFFECT_PHASES]:
        for kind in kinds:
            assert f'{{"type": "{kind}"' in DOC, kind



def test_every_decision_marked_in_the_code_is_on_the_docs_page_and_back():
    """``# [decision] Title: ...`` in the engine and ``**[decision] Title.**`` on the page."""
    in_code = set()
    for path in ENGINE.glob("*.py"):
        in_code |= set(re.findall(r"\[decision\] ([A-Z][\w -]*):", path.read_text()))
    on_page = set(re.findall(r"\*\*\[decision\] ([A-Z][\w -]*)\.\*\*", DOC))
    assert len(on_page) >= 18 and in_code == on_page
