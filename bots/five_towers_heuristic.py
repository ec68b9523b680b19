#!/usr/bin/env python3
"""A heuristic Five Towers bot speaking arena protocol v2 (standard library only; many matches per process).

It values a position as its current score plus the promise of every unfinished tower, and
the promise shrinks as the deck runs down:

* a tower without a 0 on top is worth its cards, plus ``room x weight`` (how many values can
  still go on its top: everything on an 8, the lower values and the 9 elsewhere), plus a
  chance of being capped by a 0 later (which doubles it);
* a tower with a 0 on top is worth twice its cards;
* an empty colour is worth the room of a fresh tower;
* plus the tallest tower bonus, minus the triangular teardown penalty.

Bidding: for every amount it may bid it finds the best build it could make with that many
market cards (any selection, any teardown, best order per colour) and bids the amount with
the largest gain; it passes when no amount gains anything. Building: the best build for the
won amount, answered as an index into the listed legal actions.

``choose(request)`` is a pure function so tests can call it in-process.
"""

from __future__ import annotations

import itertools
import json
import sys

NAME = "five-towers-heuristic"
ROOM_WEIGHT = 0.6  # value of one more placeable value on a tower top, at the start of the game
CAP_CHANCE = 0.5  # chance an open tower is still capped by a 0, at the start of the game


def can_place(top, value):
    if top is None:
        return True
    if top == 0:
        return False
    return top == 8 or value == 9 or value < top


def room(top):
    """How many values can still be placed on ``top`` (None: a colour without a tower)."""
    if top is None:
        return 16
    if top == 0:
        return 0
    if top == 8:
        return 15
    return top + (1 if top < 9 else 0)


def tower_value(tower, weight, cap_chance):
    height = len(tower)
    if height and tower[-1] == 0:
        return 2.0 * height
    top = tower[-1] if height else None
    return height * (1.0 + cap_chance) + weight * room(top)


def penalty(torn):
    return torn * (torn + 1) // 2


class Planner:
    """Best builds for one seat in one position; memoises the per-colour questions."""

    def __init__(self, observation):
        seat = observation["seat"]
        self.colours = list(observation["towers"][seat])
        self.towers = {colour: list(values) for colour, values in observation["towers"][seat].items()}
        self.torn = observation["torn_down"][seat]
        self.market = [(colour, value) for colour, value in observation["market"]]
        coming = observation["draw_pile_size"] + (len(observation["discard_pile"]) if observation["pass"] == 1 else 0)
        progress = min(1.0, coming / float(observation["deck_size"]))
        self.weight = ROOM_WEIGHT * progress
        self.cap_chance = CAP_CHANCE * progress
        self._colour = {}

    def best_colour(self, tower, values):
        """(value, order) of the best way to put ``values`` on ``tower``, or None if impossible."""
        key = (tuple(tower), values)
        if key not in self._colour:
            best = None
            for order in set(itertools.permutations(values)):
                top = tower[-1] if tower else None
                for value in order:
                    if not can_place(top, value):
                        break
                    top = value
                else:
                    score = tower_value(list(tower) + list(order), self.weight, self.cap_chance)
                    if best is None or score > best[0]:
                        best = (score, order)
            self._colour[key] = best
        return self._colour[key]

    def current_value(self):
        return self.position_value(self.towers, self.torn)

    def position_value(self, towers, torn):
        values = [tower_value(towers[c], self.weight, self.cap_chance) for c in self.colours]
        return sum(values) + max(len(towers[c]) for c in self.colours) - penalty(torn)

    def teardowns(self):
        return [None] + [c for c in self.colours if self.towers[c] and self.towers[c][-1] != 0]

    def best_builds(self, amounts):
        """{amount: (value, teardown, {colour: order})} for every buildable amount asked for."""
        best = {}
        cards = self.market
        for teardown in self.teardowns():
            towers = dict(self.towers)
            torn = self.torn
            if teardown is not None:
                towers[teardown] = towers[teardown][:-1]
                torn += 1
            for size in amounts:
                if size > len(cards):
                    continue
                for chosen in itertools.combinations(cards, size):
                    groups = {}
                    for colour, value in chosen:
                        groups.setdefault(colour, []).append(value)
                    total = 0.0
                    tallest = 0
                    orders = {}
                    for colour in self.colours:
                        tower = towers[colour]
                        if colour in groups:
                            found = self.best_colour(tower, tuple(sorted(groups[colour])))
                            if found is None:
                                break
                            total += found[0]
                            orders[colour] = found[1]
                            height = len(tower) + len(groups[colour])
                        else:
                            total += tower_value(tower, self.weight, self.cap_chance)
                            height = len(tower)
                        tallest = max(tallest, height)
                    else:
                        total += tallest - penalty(torn)
                        if size not in best or total > best[size][0]:
                            best[size] = (total, teardown, orders)
        return best

    def action(self, teardown, orders):
        cards = [[colour, value] for colour in self.colours for value in orders.get(colour, ())]
        return {"type": "build", "cards": cards, "teardown": teardown}


def choose_bid(request, planner):
    legal = request["legal"]
    amounts = [action["amount"] for action in legal if action["type"] == "bid"]
    builds = planner.best_builds(amounts)
    now = planner.current_value()
    gains = {amount: builds[amount][0] - now for amount in amounts if amount in builds}
    can_pass = any(action["type"] == "pass" for action in legal)
    if gains:
        amount = max(sorted(gains), key=lambda a: gains[a])
        if gains[amount] > 0 or not can_pass:
            return {"type": "action", "index": legal.index({"type": "bid", "amount": amount}),
                    "debug": f"gain {gains[amount]:.2f} for {amount}"}
    if can_pass:
        return {"type": "action", "index": legal.index({"type": "pass"}), "debug": "nothing worth it"}
    return {"type": "action", "index": 0}


def choose_build(request, planner):
    legal = request["legal"]
    take = request["observation"]["take"]
    builds = planner.best_builds([take])
    if take in builds:
        _, teardown, orders = builds[take]
        action = planner.action(teardown, orders)
        if action in legal:
            return {"type": "action", "index": legal.index(action)}
        return {"type": "action", "action": action}
    return {"type": "action", "index": 0}


def choose(request):
    """The reply to one ``request`` message (protocol v2)."""
    observation = request["observation"]
    planner = Planner(observation)
    if observation["phase"] == "build":
        return choose_build(request, planner)
    return choose_bid(request, planner)


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            print(json.dumps({"type": "ready", "name": NAME, "matches": "many"}), flush=True)
        elif kind == "request":
            try:
                reply = choose(message)
            except Exception as error:  # a bug here must not cost the match: play the first legal action
                print(f"{NAME}: {error!r}, playing the first legal action", file=sys.stderr, flush=True)
                reply = {"type": "action", "index": 0}
            print(json.dumps(reply), flush=True)
        elif kind == "quit":
            break


if __name__ == "__main__":
    main()
