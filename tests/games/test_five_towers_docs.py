"""Five Towers docs page: its observation example and field table match the engine."""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena.games import get_game

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
