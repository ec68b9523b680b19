"""A stop signal that arrives while `arena` is still importing is never lost.

Python raises KeyboardInterrupt wherever the main thread is; inside a weakref callback of the
import machinery it is only printed ("Exception ignored in ...") and the command ran on to its
end (seen in CI: a Ctrl-C 0.1 s after start, and the whole tournament was played)."""

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from waiting import PATIENCE

REPO = Path(__file__).resolve().parents[1]

# The signal arrives in a weakref callback, the way a signal during an import gets swallowed;
# then the real command runs.
SWALLOWED_THEN_RUN = textwrap.dedent("""
    import os, signal, sys, weakref
    from arena import early_signals, entry

    early_signals.install()

    class Thing:
        pass

    thing = Thing()
    ref = weakref.ref(thing, lambda _: os.kill(os.getpid(), getattr(signal, sys.argv[1])))
    del thing
    for _ in range(1000):  # the handler runs at a bytecode boundary: the callback's, or here
        pass
    sys.argv[1:] = sys.argv[2:]
    entry.main()  # this process is the command, as `arena` is
""")


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_swallowed_during_start_up_still_stops_the_command(tmp_path, name, test_bot):
    db = tmp_path / "arena.db"
    done = subprocess.run([sys.executable, "-c", SWALLOWED_THEN_RUN, name, "--db", str(db), "tournament", "run",
                           "--game", "toy", "--bots", ",".join([test_bot("greedy.py")] * 2), "--seed", "1"],
                          cwd=REPO, capture_output=True, text=True, timeout=PATIENCE)
    signum = getattr(signal, name)
    assert done.returncode == 128 + signum, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("interrupted")
    assert "finished" not in done.stdout  # nothing was played


def test_keyboard_interrupts_stay_out_of_the_unraisable_report():
    done = subprocess.run([sys.executable, "-c", SWALLOWED_THEN_RUN, "SIGINT", "games"],
                          cwd=REPO, capture_output=True, text=True, timeout=PATIENCE)
    assert "Exception ignored" not in done.stderr
    assert done.returncode == 130 and done.stdout == "", (done.stdout, done.stderr)
