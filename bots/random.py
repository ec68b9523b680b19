#!/usr/bin/env python3
"""A bot for any arena game: it plays a uniformly random legal action.

Seeded from the `seed` in the start message, so a replayed match is played the same way.
Standard library only; protocol v2 (docs/protocol.md; one process plays many matches).
"""

import json
import os
import sys

# This file is called random.py; keep its own folder off the import path so that
# `import random` below finds the standard library module, not this file.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
import random  # noqa: E402


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            rng.seed(message["seed"])
            print(json.dumps({"type": "ready", "name": "random", "matches": "many"}), flush=True)
        elif kind == "request":
            print(json.dumps({"type": "action", "index": rng.randrange(len(message["legal"]))}), flush=True)
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
