"""Shared fixtures: the toy game for harness tests and paths to the test bots."""

import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
TEST_BOTS = TESTS / "bots"

# The toy game, for every process the tests start: pool workers are fresh interpreters, so
# it goes through the environment (ARENA_GAMES) and the tests folder onto their import path.
os.environ["ARENA_GAMES"] = "toy=toy_game:Toy"
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from arena.games import REGISTRY  # noqa: E402  (after ARENA_GAMES is set)

REGISTRY.setdefault("toy", "toy_game:Toy")


@pytest.fixture
def test_bot():
    """Path of a bot in tests/bots/ by file name."""
    def path(name: str) -> str:
        return str(TEST_BOTS / name)
    return path


_STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


@pytest.fixture(autouse=True)
def signal_handlers_are_restored():
    """Every test leaves the process's signal handlers as it found them.

    A handler left behind by an in-process CLI call is inherited by every fork-based pool
    started later in the session, whose workers then ignore Pool.terminate() and hang it.
    (SIGALRM is pytest-timeout's and is not checked: it cancels its alarm after this fixture.)"""
    import signal

    before = {name: signal.getsignal(getattr(signal, name)) for name in _STOP_SIGNALS}
    yield
    after = {name: signal.getsignal(getattr(signal, name)) for name in _STOP_SIGNALS}
    changed = [name for name in _STOP_SIGNALS if after[name] is not before[name] and after[name] != before[name]]
    for name in changed:
        if before[name] is not None:
            signal.signal(getattr(signal, name), before[name])
    assert not changed, f"the test left signal handlers changed: {', '.join(changed)}"
