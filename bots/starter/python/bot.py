#!/usr/bin/env python3
"""Starter bot for arena (protocol v2, docs/protocol.md: it plays many matches per process). Copy this folder and edit `choose`.

It plays any of the three games: by default it picks a random legal action. Standard
library only. Print your debugging to stderr, never to stdout.
"""

import json
import random
import sys
import time


class Clock:
    """When to stop thinking about one request, on the clock the harness runs (its `time`
    field, docs/protocol.md *Time*): CPU time of this process (`time.process_time`, all its
    threads) on the CPU clock, else wall time. The budget is 80 % of the per-decision
    allowance plus 5 % of what is left in the bank (ALLOWANCE_SHARE, BANK_SHARE)."""

    ALLOWANCE_SHARE, BANK_SHARE = 0.8, 0.05

    def __init__(self, time_field=None):
        time_field = time_field or {}
        self.cpu = time_field.get("clock") == "cpu"
        budget_ms = (self.ALLOWANCE_SHARE * time_field.get("decision_ms", 1000)
                     + self.BANK_SHARE * time_field.get("bank_ms", 0))
        self.started = self.now()
        self.deadline = self.started + budget_ms / 1000

    def now(self):
        return time.process_time() if self.cpu else time.monotonic()

    def left_ms(self):
        return max(0.0, (self.deadline - self.now()) * 1000)

    def out_of_time(self):
        return self.now() >= self.deadline


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

    def choose(self, observation, legal, clock):
        """Return the index of the action to play in `legal`.

        `observation` is everything your seat may see now (see docs/games/<game>.md);
        `legal` lists every action you may play. A search stops when `clock.out_of_time()`
        (its time, on the harness's clock, is `clock.left_ms()`).
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
            clock = Clock(message.get("time"))
            send({"type": "action", "index": bot.choose(message["observation"], message["legal"], clock)})
        elif kind == "end":
            print(f"match over: ranks {message['ranks']}", file=sys.stderr)
        elif kind == "quit":
            break


if __name__ == "__main__":
    main()
