#!/usr/bin/env python3
"""A determinized MCTS bot for Five Towers (2-5 players).

Search: information-set MCTS (SO-ISMCTS) on arena's own engine. Every action in Five Towers
is public; what a seat does not know is the order of the draw pile and which cards were torn
down (face down). Every iteration samples both from the cards this seat has not seen (the
deck minus the towers, the market and the discard pile: a *determinization*), then walks
down the tree over the bids, passes and builds of the current round. Below the tree the round
is finished with a greedy policy (bid the amount with the largest gain, build the best
build), and the position at the end of the round is scored with a static evaluation. Near the
end of the game the horizon reaches the final scores, which are exact.

The static evaluation of a seat: its towers as they would score, plus the promise of every
open tower (its cards may still be doubled by a 0, more cards may go on its top) weighted by
how much of the deck is still to come, plus the tallest tower bonus, minus the teardown
penalty. The reward of a seat is a logistic function of its evaluation minus the best other
seat's (final positions: win 1, tie 0.5, loss 0). Build choices in the tree are the few best
builds of every take by that evaluation.

Budget: ``--time-ms`` per decision (default 200, on the clock the harness names in each
request: the process's CPU time on the CPU clock) or ``--playouts N`` (a fixed number of
iterations, deterministic given the seed). ``Bot`` and ``decide`` are importable so tests can
run the search in-process. Protocol: docs/protocol.md, with ``"matches": "many"``.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time

if __name__ == "__main__":
    # Run as a script from bots/: keep bots/random.py from shadowing the standard library.
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    _repo = os.path.dirname(_here)
    if os.path.isdir(os.path.join(_repo, "arena", "games")):
        sys.path.append(_repo)  # a checkout: the engine next to bots/ (the sandbox provides it)

import random  # noqa: E402

from arena.games.five_towers import (  # noqa: E402
    BID, BUILD, CAP, COLOURS, COLOUR_INDEX, EMPTY, REBID, FiveTowersState, card_code, deck_for,
    placement_orders,
)

NAME = "five-towers-mcts"
DEFAULT_TIME_MS = 200
UCB_C = 0.5
MAX_ITERATIONS = 100_000
BUILDS_PER_TAKE = 3  # build choices per take in the tree (the best by the evaluation)
ROOM_WEIGHT = 0.6  # value of one more placeable value on an open tower, at the start
CAP_CHANCE = 0.5  # chance an open tower is still capped by a 0, at the start
SCALE = 3.0  # evaluation points per unit of the logistic reward
HORIZON_ROUNDS = 1  # the greedy finish plays to the end of this many rounds (the current first)


# ---------------------------------------------------------------------------- evaluation

def room(top: int) -> int:
    """How many values can still go on ``top`` (EMPTY: a colour without a tower)."""
    if top == EMPTY:
        return 16
    if top == CAP:
        return 0
    if top == 8:
        return 15
    return top + 1 if top < 9 else top


class Weights:
    """The promise weights for a position: they shrink as the deck runs down."""

    __slots__ = ("room", "cap")

    def __init__(self, state: FiveTowersState):
        coming = len(state.draw) + (len(state.discard) if state.pass_number == 1 else 0)
        progress = min(1.0, coming / float(state.deck_size))
        if state.last_round:
            progress = 0.0
        self.room = ROOM_WEIGHT * progress
        self.cap = CAP_CHANCE * progress


def tower_value(height: int, top: int, weights: Weights) -> float:
    if not height:
        return weights.room * 16
    if top == CAP:
        return 2.0 * height
    return height * (1.0 + weights.cap) + weights.room * room(top)


def position_value(towers: list[list[int]], torn: int, weights: Weights) -> float:
    total = 0.0
    tallest = 0
    for tower in towers:
        height = len(tower)
        total += tower_value(height, tower[-1] if height else EMPTY, weights)
        if height > tallest:
            tallest = height
    return total + tallest - torn * (torn + 1) // 2


def final_rewards(state: FiveTowersState) -> list[float]:
    ranks = state.ranks()
    n = state.players
    return [(n - rank) / (n - 1) if n > 1 else 1.0 for rank in ranks]


def rewards(state: FiveTowersState) -> list[float]:
    """Per seat, in [0, 1]: exact at the end, else logistic in the evaluation lead."""
    if state.over:
        return final_rewards(state)
    weights = Weights(state)
    values = [position_value(state.towers[s], len(state.torn[s]), weights) for s in range(state.players)]
    result = []
    for seat, value in enumerate(values):
        best_other = max(v for s, v in enumerate(values) if s != seat)
        result.append(1.0 / (1.0 + math.exp(-(value - best_other) / SCALE)))
    return result


# ---------------------------------------------------------------------------- build planning

class Planner:
    """The best builds of one seat for the current market, for every take at once."""

    def __init__(self, state: FiveTowersState, seat: int, keep: int = BUILDS_PER_TAKE):
        self.weights = weights = Weights(state)
        towers = state.towers[seat]
        torn = len(state.torn[seat])
        groups: dict[int, list[int]] = {}
        for code in sorted(state.market):
            groups.setdefault(code >> 4, []).append(code & 15)
        heights = [len(t) for t in towers]
        tops = [t[-1] if t else EMPTY for t in towers]
        base = [tower_value(heights[c], tops[c], weights) for c in range(len(COLOURS))]
        self.current = sum(base) + max(heights) - torn * (torn + 1) // 2
        teardowns = [None] + [c for c in range(len(COLOURS)) if towers[c] and towers[c][-1] != CAP]
        best: dict[int, list] = {}
        for teardown in teardowns:
            t_heights = list(heights)
            t_tops = list(tops)
            t_base = list(base)
            t_torn = torn
            if teardown is not None:
                tower = towers[teardown]
                t_heights[teardown] -= 1
                t_tops[teardown] = tower[-2] if len(tower) > 1 else EMPTY
                t_base[teardown] = tower_value(t_heights[teardown], t_tops[teardown], weights)
                t_torn += 1
            penalty = t_torn * (t_torn + 1) // 2
            # Per market colour: every feasible choice of its cards -> (count, value, height, order).
            options = []
            for colour, values in groups.items():
                choices = [(0, t_base[colour], t_heights[colour], ())]
                for subset in sub_multisets(values):
                    found = self.best_order(t_tops[colour], t_heights[colour], subset)
                    if found is not None:
                        choices.append((len(subset), found[0], t_heights[colour] + len(subset), found[1]))
                options.append((colour, choices))
            untouched = sum(t_base[c] for c in range(len(COLOURS)) if c not in groups)
            tallest_untouched = max([t_heights[c] for c in range(len(COLOURS)) if c not in groups] or [0])
            combos = [(0, untouched, tallest_untouched, ())]
            for colour, choices in options:
                grown = []
                for count, value, tallest, chosen in combos:
                    for n, v, h, order in choices:
                        grown.append((count + n, value + v, tallest if tallest > h else h,
                                      chosen + ((colour, order),) if n else chosen))
                combos = grown
            for count, value, tallest, chosen in combos:
                total = value + tallest - penalty
                best.setdefault(count, []).append((total, teardown, chosen))
        self.builds = {}
        for count, entries in best.items():
            entries.sort(key=lambda e: -e[0])
            self.builds[count] = entries[:keep]

    def best_order(self, top: int, height: int, values: tuple) -> tuple[float, tuple] | None:
        """The placement order of ``values`` on ``top`` with the best resulting tower."""
        orders = placement_orders(top, values)
        if not orders:
            return None
        best = None
        seen_tops = set()
        final_height = height + len(values)
        for order in orders:
            last = order[-1]
            if last in seen_tops:
                continue
            seen_tops.add(last)
            value = tower_value(final_height, last, self.weights)
            if best is None or value > best[0]:
                best = (value, order)
        return best

    def gain(self, take: int) -> float | None:
        entries = self.builds.get(take)
        return entries[0][0] - self.current if entries else None


def sub_multisets(values: list[int]) -> list[tuple[int, ...]]:
    """Every distinct non-empty sub-multiset of the sorted ``values``."""
    result = {()}
    for value in values:
        result |= {s + (value,) for s in result}
    result.discard(())
    return sorted(result)


def build_cards(chosen: tuple) -> list[int]:
    """The cards of a chosen build in placement order, colours in the canonical order."""
    cards = []
    for colour, order in sorted(chosen):
        cards.extend(card_code(colour, value) for value in order)
    return cards


def build_action(teardown: int | None, chosen: tuple) -> dict:
    cards = []
    for colour, order in sorted(chosen):
        cards.extend([COLOURS[colour], value] for value in order)
    return {"type": "build", "cards": cards, "teardown": None if teardown is None else COLOURS[teardown]}


# ---------------------------------------------------------------------------- moves

# A move inside the search: ("bid", amount), ("pass",) or ("build", teardown, chosen).

def bid_moves(state: FiveTowersState) -> list[tuple]:
    moves = [("bid", amount) for amount in state.bid_range()]
    if not state.opening:
        moves.append(("pass",))
    return moves


def apply_move(state: FiveTowersState, move: tuple) -> None:
    kind = move[0]
    if kind == "bid":
        state.bid(move[1])
    elif kind == "pass":
        state.pass_turn()
    else:
        state.build(build_cards(move[2]), move[1])


class Context:
    """Planners of the root round, shared by every iteration (the round is public)."""

    def __init__(self):
        self.planners: dict = {}

    def planner(self, state: FiveTowersState, seat: int) -> Planner:
        key = (seat, state.round, tuple(state.market), tuple(tuple(t) for t in state.towers[seat]),
               len(state.torn[seat]), len(state.draw), state.pass_number, state.last_round)
        planner = self.planners.get(key)
        if planner is None:
            planner = self.planners[key] = Planner(state, seat)
        return planner

    def moves(self, state: FiveTowersState) -> list[tuple]:
        if state.phase == BUILD:
            entries = self.planner(state, state.current).builds.get(state.take, [])
            return [("build", teardown, chosen) for _, teardown, chosen in entries]
        return bid_moves(state)

    def greedy(self, state: FiveTowersState) -> tuple:
        """The playout policy: the best build; the bid with the largest gain, else pass."""
        seat = state.current
        planner = self.planner(state, seat)
        if state.phase == BUILD:
            _, teardown, chosen = planner.builds[state.take][0]
            return ("build", teardown, chosen)
        best = None
        for amount in state.bid_range():
            gain = planner.gain(amount)
            if gain is not None and (best is None or gain > best[0]):
                best = (gain, amount)
        if best is not None and (best[0] > 0 or state.opening):
            return ("bid", best[1])
        if not state.opening:
            return ("pass",)
        return ("bid", state.bid_range()[0])


# ---------------------------------------------------------------------------- determinization

class Determinizer:
    """Samples full states consistent with one observation (nothing else is read)."""

    def __init__(self, obs: dict):
        self.obs = obs
        players = obs["players"]
        unseen = deck_for(players)
        seen = [card_code(COLOUR_INDEX[c], v) for c, v in obs["market"]]
        seen += [card_code(COLOUR_INDEX[c], v) for c, v in obs["discard_pile"]]
        for towers in obs["towers"]:
            for colour, values in towers.items():
                seen += [card_code(COLOUR_INDEX[colour], v) for v in values]
        for code in seen:
            unseen.remove(code)
        self.unseen = unseen
        state = self.template = FiveTowersState.__new__(FiveTowersState)
        state.players = players
        state.seed = 0
        state.deck_size = obs["deck_size"]
        state.discard = [card_code(COLOUR_INDEX[c], v) for c, v in obs["discard_pile"]]
        state.market = [card_code(COLOUR_INDEX[c], v) for c, v in obs["market"]]
        state.towers = [[list(towers[colour]) for colour in COLOURS] for towers in obs["towers"]]
        state.pass_number = obs["pass"]
        state.last_round = obs["last_round"]
        state.round = obs["round"]
        state.start_player = obs["start_player"]
        state.phase = obs["phase"]
        state.current = obs["current_seat"]
        state.over = obs["phase"] == "over"
        state.bids = list(obs["bids"])
        state.high = (obs["high_bid"], obs["high_bidder"])
        state.passed = list(obs["passed"])
        state.to_bid = list(obs["to_bid"])
        state.history = [dict(event) for event in obs["history"]]
        state.opening = obs["phase"] == BID and not obs["history"]
        state.winner = state.current if obs["phase"] in (BUILD, REBID) else None
        state.take = obs["take"] if obs["phase"] == BUILD else (obs["failed_bid"] or 0)
        state.failed_bid = obs["failed_bid"]
        state._builds = None
        state._outlines = {}
        state._market_colours = None
        self.torn_sizes = list(obs["torn_down"])
        self.draw_size = obs["draw_pile_size"]

    def sample(self, rng: random.Random) -> FiveTowersState:
        template = self.template
        state = FiveTowersState.__new__(FiveTowersState)
        state.__dict__.update(template.__dict__)
        cards = list(self.unseen)
        rng.shuffle(cards)
        torn = []
        for size in self.torn_sizes:
            torn.append(cards[len(cards) - size:] if size else [])
            if size:
                del cards[len(cards) - size:]
        state.torn = torn
        state.draw = cards[:self.draw_size]
        state.rng = random.Random(rng.random())
        state.discard = list(template.discard)
        state.market = list(template.market)
        state.towers = [[list(tower) for tower in towers] for towers in template.towers]
        state.bids = list(template.bids)
        state.passed = list(template.passed)
        state.to_bid = list(template.to_bid)
        state.history = list(template.history)
        state._outlines = {}
        return state


# ---------------------------------------------------------------------------- the search

class Node:
    __slots__ = ("children", "visits", "available", "total")

    def __init__(self):
        self.children: dict = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0  # rewards of the seat whose move led here


def search(determinizer: Determinizer, rng: random.Random, playouts: int | None,
           time_ms: float | None, timer=time.perf_counter) -> tuple[tuple, dict]:
    """SO-ISMCTS over the current round; returns the chosen move and statistics."""
    context = Context()
    root = Node()
    deadline = None if playouts else timer() + (time_ms or DEFAULT_TIME_MS) / 1000.0
    budget = playouts or MAX_ITERATIONS
    iterations = 0
    log = math.log
    sqrt = math.sqrt
    root_moves = None
    while iterations < budget:
        if deadline is not None and iterations and timer() >= deadline:
            break
        iterations += 1
        state = determinizer.sample(rng)
        round_number = state.round
        node = root
        path = []
        expanded = False
        while not state.over and state.round == round_number:
            seat = state.current
            moves = context.moves(state)
            if root_moves is None:
                root_moves = moves
            children = node.children
            if len(moves) == 1:
                move = moves[0]
            else:
                untried = [m for m in moves if m not in children]
                if untried:
                    if expanded:
                        break
                    move = untried[int(rng.random() * len(untried))]
                    expanded = True
                else:
                    best = -1.0
                    move = moves[0]
                    for m in moves:
                        child = children[m]
                        child.available += 1
                        value = child.total / child.visits + UCB_C * sqrt(log(child.available) / child.visits)
                        if value > best:
                            best, move = value, m
            child = children.get(move)
            if child is None:
                child = children[move] = Node()
            path.append((child, seat))
            node = child
            apply_move(state, move)
        stop_round = round_number + HORIZON_ROUNDS
        while not state.over and state.round < stop_round:
            apply_move(state, context.greedy(state))
        result = rewards(state)
        for child, mover in path:
            child.visits += 1
            child.total += result[mover]
    stats = {m: (c.visits, c.total / c.visits if c.visits else 0.0) for m, c in root.children.items()}
    best = max(root_moves, key=lambda m: (stats.get(m, (0, 0.0)), ))
    return best, {"iterations": iterations, "stats": stats}


def move_index(move: tuple, legal: list) -> tuple[int | None, dict]:
    if move[0] == "bid":
        action = {"type": "bid", "amount": move[1]}
    elif move[0] == "pass":
        action = {"type": "pass"}
    else:
        action = build_action(move[1], move[2])
    try:
        return legal.index(action), action
    except ValueError:
        return None, action


def decide(observation: dict, legal: list, rng: random.Random, playouts: int | None = None,
           time_ms: float | None = None, timer=time.perf_counter) -> tuple[dict, dict]:
    """The reply (an index into ``legal``, or the action) and statistics."""
    if len(legal) == 1:
        return {"type": "action", "index": 0}, {"iterations": 0}
    determinizer = Determinizer(observation)
    move, stats = search(determinizer, rng, playouts, time_ms, timer)
    index, action = move_index(move, legal)
    if index is not None:
        return {"type": "action", "index": index}, stats
    return {"type": "action", "action": action}, stats


# ---------------------------------------------------------------------------- the bot

class Bot:
    """Per-match state: the seeded generator."""

    def __init__(self, playouts: int | None = None, time_ms: float | None = None):
        self.playouts = playouts
        self.time_ms = time_ms
        self.start({})

    def start(self, message: dict) -> None:
        self.rng = random.Random(message.get("seed", 0))

    def choose(self, request: dict) -> dict:
        time_ms = self.time_ms
        if not self.playouts and time_ms is None:
            time_ms = budget_ms(request.get("time"))
        reply, stats = decide(request["observation"], request["legal"], self.rng, self.playouts, time_ms,
                              timer_for(request.get("time")))
        reply["debug"] = f"{stats.get('iterations', 0)} iterations"
        return reply


def timer_for(clock: dict | None):
    """The clock the harness charges a decision on (the request's ``time``, docs/protocol.md
    *Time*): this process's CPU time on the CPU clock, else wall time."""
    return time.process_time if (clock or {}).get("clock") == "cpu" else time.perf_counter


def budget_ms(clock: dict | None) -> float:
    """The default time per decision: well inside the per-decision allowance, and shrinking
    when the process nears its CPU time limit (one process may play many matches)."""
    budget = float(DEFAULT_TIME_MS)
    if clock:
        budget = max(10.0, min(budget, 0.4 * clock.get("decision_ms", 1000)))
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_CPU)[0]
    except (ImportError, OSError, ValueError):
        return budget
    if soft != resource.RLIM_INFINITY and soft > 0:
        left = soft - time.process_time() - 0.2 * soft  # keep a fifth of the limit in reserve
        budget = min(budget, max(5.0, 1000.0 * left / 500.0))  # what is left lasts 500 decisions
    return budget


def main(argv: list[str]) -> None:
    import argparse
    parser = argparse.ArgumentParser(description="Five Towers ISMCTS bot (arena protocol)")
    parser.add_argument("--playouts", type=int, help="iterations per decision (instead of a time budget)")
    parser.add_argument("--time-ms", type=float, help=f"time per decision (default {DEFAULT_TIME_MS})")
    args = parser.parse_args(argv)
    bot = Bot(args.playouts, args.time_ms)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            bot.start(message)
            print(json.dumps({"type": "ready", "name": NAME, "matches": "many"}), flush=True)
        elif kind == "request":
            try:
                reply = bot.choose(message)
            except Exception as error:  # a bug must not cost the match: play a legal action
                print(f"{NAME}: {error!r}, playing the first legal action", file=sys.stderr, flush=True)
                reply = {"type": "action", "index": 0}
            print(json.dumps(reply), flush=True)
        elif kind == "quit":
            break


if __name__ == "__main__":
    main(sys.argv[1:])
