#!/usr/bin/env python3
"""Starter bot for arena (protocol v2, docs/protocol.md: it plays many matches per process). Copy this folder and edit `choose`.

It plays any of the three games: by default it picks a random legal action. Standard
library only. Print your debugging to stderr, never to stdout.
"""

import json
import random
import sys


class Bot:
    def __init__(self):
        self.rng = random.Random()
        self.game = None
        self.seat = None

    def start(self, message):
        """Called once: the game, options, your seat, player count, a seed and the limits."""
        self.game = message["game"]
        self.seat = message["seat"]
        self.rng.seed(message["seed"])  # seeded: the same match replays the same way

    def choose(self, observation, legal):
        """Return the index of the action to play in `legal`.

        `observation` is everything your seat may see now (see docs/games/<game>.md);
        `legal` lists every action you may play.
        """
        return self.rng.randrange(len(legal))


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    bot = Bot()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            bot.start(message)
            send({"type": "ready", "name": "starter-python", "matches": "many"})
        elif kind == "request":
            send({"type": "action", "index": bot.choose(message["observation"], message["legal"])})
        elif kind == "end":
            print(f"match over: ranks {message['ranks']}", file=sys.stderr)
        elif kind == "quit":
            break


if __name__ == "__main__":
    main()
