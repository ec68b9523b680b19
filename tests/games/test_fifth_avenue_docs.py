"""The Fifth Avenue docs page stands alone and stays in step with the engine: its examples are
real engine output, every observation key is documented, it names nothing outside the
repository, and it lists every decision, each marked in the code."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from test_docs_support import check_decisions, forbidden_words, paths_outside_the_repository
from test_fifth_avenue_support import after_setup, new_state

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "games" / "fifth-avenue.md").read_text()
ENGINE = ROOT / "arena" / "games" / "fifth_avenue"

# Every decision, checked line by line against the rules the engine implements (the English
# rules with their decisions, which are not part of the repository), with key phrases its
# text on the page must contain. The first fourteen are decisions of those rules; the others
# are the engine's own, where even they are silent.
DECISIONS = {
    "District name": ("42e",),  # "42e (42nd St East [decision: name])"
    "Ring order": ("board art",),  # "Ring order, clockwise [decision: the board art is not available]"
    "First set of three": ("3, 2, 3, 2", "three comes first"),  # "8 sets of sizes 3,2,... [decision: a 3-set first]"
    "Seat 0 starts": ("first turn",),  # "Seat 0 takes the first turn [decision]"
    "Fewer than two stacks": ("take what exists",),  # "with fewer than 2 non-empty stacks take what exists"
    "Short own supply": ("fewer",),  # "(fewer if the supply is short [decision])"
    "Turn limit": ("400 turns", "normal end"),  # "A guard ends a game that reaches 400 turns"
    "Alea's cards are public": ("ends right after alea",),  # "also when the auction ends at once"
    "Alea's short stack": ("runs out before a value repeats", "empty black stack"),
    "Alea builds": ("own plot", "random empty plot"),
    "Alea skips": ("no plot is empty",),
    "Alea in Central Park": ("builds nothing",),
    "Alea scores nothing": ("occupy plots", "declarer"),
    "Six-plot board": ("geometry invented", "between the last and the first"),
    # The engine's own:
    "Column order": ("west to east",),
    "Starting plots": ("hold no business",),
    "Plain plot": ("businesses only", "never counts as an empty plot"),
    "Six-plot players": ("2, 3 and 4",),
    "Empty black stack": ("not drawn",),
    "Option D order": ("clockwise order starting with the scorer",),
    "Spread count": ("starting businesses do not",),
    "Stopped district": ("receive businesses", "hold an auction"),
    "Card by card": ("one card at a time",),
    "Last bidder decides": ("empty bid",),
    "Automatic pass": ("passes automatically",),
    "Park colour": ("separate decision",),
    "Discard order": ("6s lowest", "order they were turned"),
    "Empty park": ("score 0",),
    "Alea's set-up": ("no skyscrapers at set-up",),
}
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


def test_the_page_names_no_file_outside_the_repository():
    assert forbidden_words("fifth-avenue") == [] and paths_outside_the_repository("fifth-avenue") == []


def test_every_decision_is_on_the_page_and_marked_in_the_engine():
    check_decisions("fifth-avenue", ENGINE, DECISIONS)
