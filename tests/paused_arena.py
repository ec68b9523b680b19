"""`arena` that pauses at one chosen point, so a test can send a signal at that exact moment.

    PAUSE_AT=arena.tournament.coordinator._check_copies PAUSE_DIR=/tmp/x python tests/paused_arena.py ARGS...

The function named by PAUSE_AT (a module attribute or a class's method) is wrapped: on its
PAUSE_NTH call (default 1), before it runs (PAUSE_WHEN=before, the default) or after it
returned (after), it writes PAUSE_DIR/paused and waits until PAUSE_DIR/go exists. A test waits
for `paused`, sends its signal, waits until the signal is no longer pending, then writes `go`.
"""

import importlib
import os
import time
from pathlib import Path


def _resolve(dotted: str):
    """(owner, attribute name) for a dotted path whose head is a module."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise ImportError(dotted)


def _install() -> None:
    folder = Path(os.environ["PAUSE_DIR"])
    owner, name = _resolve(os.environ["PAUSE_AT"])
    original = getattr(owner, name)
    nth, after = int(os.environ.get("PAUSE_NTH", "1")), os.environ.get("PAUSE_WHEN") == "after"
    calls = [0]

    def pause() -> None:
        (folder / "paused").write_text(str(os.getpid()))
        while not (folder / "go").exists():
            time.sleep(0.01)

    def wrapped(*args, **kwargs):
        calls[0] += 1
        if calls[0] == nth and not after:
            pause()
        result = original(*args, **kwargs)
        if calls[0] == nth and after:
            pause()
        return result

    setattr(owner, name, wrapped)


if __name__ == "__main__":
    _install()
    from arena.entry import main

    main()  # this process is the command (it reads sys.argv), as `arena` is
