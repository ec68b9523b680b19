"""Five Towers docs page: its observation example, field table and build list match the engine."""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena.games import get_game
from arena.games.five_towers import BUILD, COLOURS, card_code

PAGE = Path(__file__).resolve().parents[2] / "docs" / "games" / "five-towers.md"


def engine_observation() -> dict:
    return get_game("five-towers").new_game(3, 0).observation(0)


def test_documented_observation_example_has_exactly_the_engine_fields():
    example = json.loads(re.findall(r"```json\n(.*?)```", PAGE.read_text(), re.S)[0])
    assert list(example) == list(engine_observation())


def test_every_observation_field_is_described_in_the_field_table():
    table = PAGE.read_text().split("## Observation", 1)[1].split("A real observation", 1)[0]
    described = set(re.findall(r"^\| `(\w+)`(?:, `(\w+)`)?", table, re.M))
    names = {name for pair in described for name in pair if name}
    assert names == set(engine_observation())


def test_documented_builds_for_the_example_are_the_engines():
    text = PAGE.read_text()
    example = json.loads(re.findall(r"```json\n(.*?)```", text, re.S)[0])
    count = int(re.search(r"`legal` lists (\d+) builds", text).group(1))
    shown = [json.loads(line.strip(" [,")) for line in
             re.findall(r"```text\n(.*?)```", text, re.S)[0].splitlines() if line.strip(" [,").startswith("{")]
    state = get_game("five-towers").new_game(3, 0)
    state.market = [card_code(COLOURS.index(colour), value) for colour, value in example["market"]]
    state.towers = [[list(towers[colour]) for colour in COLOURS] for towers in example["towers"]]
    state.phase, state.winner, state.take, state.current = BUILD, example["seat"], example["take"], example["seat"]
    legal = state.legal_actions()
    assert len(legal) == count and legal[:len(shown)] == shown
