"""What the web tests' hostile bot writes, the secret the database must never serve, and
how the tests play a tournament's matches."""

from __future__ import annotations

import concurrent.futures
import os

from arena.results.store import Store
from arena.runner.match import MatchSpec, play_match

EVIL_NAME = "<script>window.__pwned='name'</script><img src=x onerror=\"window.__pwned='name-img'\">"
EVIL_DEBUG = "<script>window.__pwned='debug'</script>"
EVIL_DEBUG_2 = "<img src=x onerror=\"window.__pwned='debug-img'\"> \x1b[31mred\x1b[0m \u202eevil"
EVIL_LINE = "<img src=x onerror=\"window.__pwned='line'\">"
EVIL_STDERR = "</pre><script>window.__pwned='stderr'</script>\x1b[2J\x07"
SECRET = "s3cr3t-never-serve"

EVIL_REQUEST = f'''
import sys
if requests == 1:
    sys.stderr.write({EVIL_STDERR!r} + "\\n"); sys.stderr.flush()
    reply({{"type": "action", "index": 0, "debug": {EVIL_DEBUG!r}}})
elif requests == 2:
    reply({{"type": "action", "index": 0, "debug": {EVIL_DEBUG_2!r}}})
else:
    sys.stdout.write({EVIL_LINE!r} + "\\n"); sys.stdout.flush()
'''


def play_pending(store: Store, tournament_id: int, workers: int = 2, each=None) -> None:
    """Play the tournament's pending matches with real bots and commit them (in schedule order)."""
    pending = store.pending_matches(tournament_id)
    store.set_tournament_status(tournament_id, "running", os.getpid())

    def play(match):
        return play_match(MatchSpec(match["game"], match["bots"], match["seed"], match["options"]))

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for match, result in zip(pending, pool.map(play, pending)):
            store.record_match(match["id"], result.to_dict())
            if each:
                each(match)
    store.set_tournament_status(tournament_id, "finished")
