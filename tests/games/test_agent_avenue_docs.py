"""The Agent Avenue docs page stands alone and stays in step with the engine: its examples are
real engine output, every observation field, phase and action type is documented, it names
nothing outside the repository, and it lists every decision, each marked in the code."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from test_agent_avenue_support import new_state
from test_docs_support import check_decisions, forbidden_words, paths_outside_the_repository

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "games" / "agent-avenue.md").read_text()
ENGINE = ROOT / "arena" / "games" / "agent_avenue"

# Every decision, checked line by line against the rules the engine implements (the English
# rules with their decisions, which are not part of the repository), with key phrases its
# text on the page must contain. The first six are decisions of those rules; the others are
# the engine's own, where even they are silent.
DECISIONS = {
    # "After a catch the game ends, so D never needs to wrap around."
    "Catch ends the game": ("game is over", "wrap"),
    # "When the offer is empty, nothing is taken."
    "Empty offer": ("offer is empty", "takes nothing"),
    # "an ongoing card does not affect the agent recruited in the same turn it was taken
    # [decision: this concerns movement ... check-phase conditions ... already apply]"
    "Same turn": ("concerns movement", "check phase of the turn the card was taken"),
    # "teammates alternate as the opener from one team turn to the next"
    "Opener": ("alternate as the opener",),
    # "the bot of the opposing team's next opener ... decides"
    "Chooser": ("next opener",),
    # "Deck exhaustion ends the game when an opposing team has no cards at all in hand, or
    # when an opposing player alone has fewer than 2"
    "Team exhaustion": ("no card", "fewer than 2"),
    # The engine's own:
    "Team variant option": ("3 or 4", "players *is* the team variant"),
    "Three players": ("seat 1", "plays alone"),
    "Black Market taker": ("the opener for", "the chooser for the other team"),
    "Instant effects": ("whenever they can be", "optional"),
    "One move": ("one move", "never a"),
    "Taking is a decision": ("only one",),
    "Smoke screen": ("empty draw pile does nothing",),
    "Discards": ("face down", "never reshuffled"),
    "Team refill": ("after seeing the face-up card", "opener draws first"),
    "Last card": ("teams of two only",),
    "Face-down card": ("only by the", "not by the opener"),
    "Double trouble": ("not remembered",),
}


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


def test_the_page_names_no_file_outside_the_repository():
    assert forbidden_words("agent-avenue") == [] and paths_outside_the_repository("agent-avenue") == []


def test_every_decision_is_on_the_page_and_marked_in_the_engine():
    """``**[decision] Title.**`` on the page, ``[decision] Title:`` in the engine's code."""
    check_decisions("agent-avenue", ENGINE, DECISIONS)
