"""The Five Towers docs page stands alone and stays in step with the engine: its example
observation and build list are real engine output, every observation field is described, it
names nothing outside the repository, and it lists every decision, each marked in the code."""

from __future__ import annotations

import json
import random
import re

from arena.games import get_game
from test_docs_support import (ROOT, check_decisions, forbidden_words, named_paths, page_text,
                               paths_outside_the_repository)

NAME = "five-towers"
PAGE = page_text(NAME)
ENGINE = ROOT / "arena" / "games" / "five_towers.py"
EXAMPLE_SEED, EXAMPLE_ACTIONS = 2, 20  # 3 players, random_action with random.Random(seed)

# Every decision, checked line by line against the rules the engine implements (the English
# rules with their decisions, which are not part of the repository), with key phrases its
# text on the page must contain. The first seven are decisions of those rules; the others
# are the engine's own, where even they are silent.
DECISIONS = {
    # "the discard pile is shuffled ... [decision: shuffled; the reviews only say ... played through again]"
    "Shuffled reshuffle": ("shuffled",),
    # "If the draw pile runs out mid-reveal on the first pass, finish the market from the reshuffled pile"
    "Mid-reveal run-out": ("middle of a reveal", "completed from the reshuffled pile"),
    # "The new bid must be lower than the failed one and higher than the highest bid of any other player"
    "Rollback bid": ("lower than the failed", "higher than every other standing bid", "start player stays"),
    # "if the winner passes, bidding goes on: seats that never had their turn ... now bid"
    "Bidding continues after a rollback": ("had not had their chance", "highest standing bid win"),
    # "The cards are placed in the order the winner gives; if that order fails, it is a failed build"
    "Order as given": ("order the winner lists", "another order"),
    # "A winning bid of 0 takes no cards [decision: the winner may still tear down]"
    "Bid of 0": ("takes no cards", "tear down"),
    # "the bonus adds to the doubling, so a capped tallest tower scores 3 per card"
    "Tallest bonus on top of the doubling": ("3 points per card",),
    # The engine's own:
    "When the reshuffle happens": ("empty draw pile", "leftovers"),
    "Empty reshuffle": ("game ends at once",),
    "No bid standing": ("any amount from 0",),
    "Who keeps the start": ("everyone passed", "bid of 0"),
    "No buildable choice": ("automatic",),
    "Face-down discards": ("face down", "how many"),
}


def example_observation() -> dict:
    return json.loads(re.findall(r"```json\n(.*?)```", PAGE, re.S)[0])


def example_state():
    state = get_game(NAME).new_game(3, EXAMPLE_SEED)
    rng = random.Random(EXAMPLE_SEED)
    for _ in range(EXAMPLE_ACTIONS):
        state.apply(state.random_action(rng))
    return state


def test_the_example_observation_is_the_engines_exact_output():
    state = example_state()
    assert example_observation() == state.observation(state.current_seat())


def test_every_observation_field_is_described_in_the_field_table():
    table = PAGE.split("## Observation", 1)[1].split("A real observation", 1)[0]
    described = set(re.findall(r"^\| `(\w+)`(?:, `(\w+)`)?", table, re.M))
    names = {name for pair in described for name in pair if name}
    assert names == set(get_game(NAME).new_game(3, 0).observation(0))


def test_the_documented_builds_for_the_example_are_the_engines():
    count = int(re.search(r"`legal` lists (\d+) builds", PAGE).group(1))
    shown = [json.loads(line.strip(" [,")) for line in
             re.findall(r"```text\n(.*?)```", PAGE, re.S)[0].splitlines() if line.strip(" [,").startswith("{")]
    legal = example_state().legal_actions()
    assert len(legal) == count and legal[:len(shown)] == shown


def test_the_page_names_no_file_outside_the_repository():
    assert forbidden_words(NAME) == [] and paths_outside_the_repository(NAME) == []


def test_the_path_check_sees_links_backticks_and_plain_paths():
    text = "see [x](../protocol.md), `shared/rules/a.md`, /work/shared/rules and bench/engine.py"
    assert {path for path, _ in named_paths(text)} == {"../protocol.md", "shared/rules/a.md", "/work/shared/rules",
                                                       "bench/engine.py"}


def test_every_decision_is_on_the_page_and_marked_in_the_engine():
    check_decisions(NAME, ENGINE, DECISIONS)
