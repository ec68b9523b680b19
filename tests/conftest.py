"""Shared fixtures: the toy game for harness tests and paths to the test bots."""

from pathlib import Path

import pytest

from arena.games import REGISTRY

REPO = Path(__file__).resolve().parents[1]
TEST_BOTS = Path(__file__).resolve().parent / "bots"

REGISTRY.setdefault("toy", "toy_game:Toy")


@pytest.fixture
def test_bot():
    """Path of a bot in tests/bots/ by file name."""
    def path(name: str) -> str:
        return str(TEST_BOTS / name)
    return path
