"""How tests wait: for an event (a row, a file, a process ending), never within a wall-clock
budget that a loaded machine can miss.

PATIENCE is not a budget for the thing awaited: it only turns a hang into a clear message a
little before pytest-timeout (300 s per test, pyproject.toml) would stop the test with a stack.
A test passes as soon as its event happens, however slowly the machine goes.
"""

import time

PATIENCE = 240.0


def wait_until(condition, process=None, what: str = "the condition", poll: float = 0.05) -> None:
    """Return once ``condition()`` is true; fail at once if ``process`` ended first."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the process ended before {what}: {process.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting for {what} after {PATIENCE:.0f} s")
        time.sleep(poll)
