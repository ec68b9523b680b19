#!/usr/bin/env python3
"""An information-set MCTS bot for Agent Avenue (every variant: 2-4 players, base or advanced).

Search: multiple-observer information-set MCTS (MO-ISMCTS, Cowling, Powley and Whitehouse
2012) on arena's own engine. Every iteration samples a full hidden state consistent with this
seat's observation (a *determinization*: the other hands, the face-down card, the draw pile,
the face-down discards and the Black Market pile, drawn from the cards this seat has not
seen), then walks down one tree per seat. Each seat's tree is keyed by what that seat sees
of every action: its own actions in full, another seat's face-down card or discard only as
"a card". So the opponent in the search chooses between a face-up card and an unknown
face-down card, as it really does, and bluffs are worth something. Below the trees the turn
is finished with a cheap policy (random plays; the chooser takes the card that wins, or does
not lose, or gives the better lead) and the position is evaluated: a logistic function of the
lead, with a bonus for two codebreakers in play and a malus for two daredevils (a finished
game: win 1, loss 0). Short playouts with an evaluation beat random playouts to the end at
the same number of iterations, and are cheaper.

Budget: ``--time-ms`` per decision (default 200, on the clock the harness names in each
request: the process's CPU time on the CPU clock) or ``--playouts N`` (a fixed number of
iterations, deterministic given the seed). ``Bot`` and ``decide`` are importable so tests can
run the search in-process. Protocol: docs/protocol.md, with ``"matches": "many"``.

Measured (bench/mcts.py, two-player games, 100 deals x 2 seatings, 2 shared cores): against
bots/agent_avenue_heuristic.py 83.5 % of the points at 250 playouts (about 30 ms a decision;
82 % in the advanced game), 84 % with the default 200 ms; against random play 89 % (the
heuristic bot itself scores 87 % against random play: the deal decides many games).
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

from arena.games.agent_avenue.cards import (  # noqa: E402
    AGENT_DECK, AGENTS, BLACK_MARKET, DISCARDS_PER_PLAYER, DISCARDS_PER_TEAMMATE,
)
from arena.games.agent_avenue.state import MOVE_TABLE, AgentAvenueState  # noqa: E402

NAME = "agent-avenue-mcts"
DEFAULT_TIME_MS = 200
UCB_C = 0.7
PLAYOUT_TURNS = 1  # playouts stop at the end of this many more turns and evaluate (None: at the end)
EVAL_SCALE = 3.0  # lead (spaces) per unit of the logistic evaluation
GREEDY_OPPONENT_CHOOSER = False  # the other seats' choose decisions by the playout rule, not the tree
MAX_ITERATIONS = 100_000


# ---------------------------------------------------------------------------- determinization

class Determinizer:
    """Samples full states consistent with one observation (nothing else is read)."""

    def __init__(self, obs: dict, own_discards: list[str] | None = None):
        self.obs = obs
        self.me = obs["seat"]
        players = self.players = obs["players"]
        self.sides = [list(members) for members in obs["teams"]]
        play = obs["current_play"]
        self.face_up = play["face_up"] if play else None
        self.face_down_hidden = bool(play and play["face_down_played"] and play["face_down"] is None)
        unseen = {name: 0 for name in AGENTS}
        for name in AGENT_DECK:
            unseen[name] += 1
        seen = list(obs["hand"])
        for area in obs["play_areas"]:
            for name, count in area.items():
                unseen[name] -= count
        if play:
            seen.append(play["face_up"])
            if play["face_down"] is not None:
                seen.append(play["face_down"])
        used = [self.initial_discards(seat) - obs["discards_left"][seat] for seat in range(players)]
        own = list(own_discards or [])[:used[self.me]]
        seen += own
        for name in seen:
            unseen[name] -= 1
        pool = []
        for name, count in unseen.items():
            pool.extend([name] * max(0, count))
        self.pool = pool
        self.own_discards = own
        self.used = used
        self.hand_sizes = list(obs["hand_sizes"])
        slots = (sum(self.hand_sizes[s] for s in range(players) if s != self.me) + obs["draw_pile"]
                 + int(self.face_down_hidden) + sum(used) - len(own))
        if len(pool) < slots:  # cannot happen with a consistent observation; stay safe
            pool.extend(filler_cards(slots - len(pool)))
        market = obs["black_market"]
        if market:
            gone = set(market["offer"]) | set(market["discarded"])
            for cards in market["owned"]:
                gone.update(cards)
            self.bm_rest = [card for card in BLACK_MARKET if card not in gone]
        else:
            self.bm_rest = []

    def initial_discards(self, seat: int) -> int:
        side = seat % 2
        return DISCARDS_PER_PLAYER if len(self.sides[side]) == 1 else DISCARDS_PER_TEAMMATE

    def sample(self, rng: random.Random) -> AgentAvenueState:
        obs = self.obs
        players = self.players
        pool = list(self.pool)
        rng.shuffle(pool)
        state = AgentAvenueState.__new__(AgentAvenueState)
        state.players = players
        state.seed = 0
        state.advanced = obs["advanced"]
        state.rng = rng
        state.sides = [list(members) for members in self.sides]
        state.side_of = [seat % 2 for seat in range(players)]
        state.team_game = players > 2
        hands = []
        for seat in range(players):
            if seat == self.me:
                hands.append(list(obs["hand"]))
            else:
                size = self.hand_sizes[seat]
                hands.append(pool[len(pool) - size:])
                del pool[len(pool) - size:]
        state.hands = hands
        play = obs["current_play"]
        state.face_up = self.face_up
        state.face_up_seat = play["face_up_seat"] if play else None
        state.face_down_seat = play["face_down_seat"] if play else None
        if self.face_down_hidden:
            state.face_down = pool.pop()
        else:
            state.face_down = play["face_down"] if play else None
        discarded = []
        for seat in range(players):
            if seat == self.me:
                known = list(self.own_discards)
                missing = self.used[seat] - len(known)
            else:
                known, missing = [], self.used[seat]
            if missing:
                known += pool[len(pool) - missing:]
                del pool[len(pool) - missing:]
            discarded.append(known)
        state.discarded = discarded
        state.deck = pool[:obs["draw_pile"]]
        state.discards_left = list(obs["discards_left"])
        state.totals = [spy["total"] for spy in obs["spies"]]
        state.areas = [dict(area) for area in obs["play_areas"]]
        market = obs["black_market"]
        if market:
            state.bm_offer = list(market["offer"])
            state.owned = [list(cards) for cards in market["owned"]]
            state.bm_discard = list(market["discarded"])
            state.queue = list(market["queue"])
            effect = market["effect"]
            state.pending = (effect["card"], effect["team"], effect["seat"]) if effect else None
            rest = list(self.bm_rest)
            rng.shuffle(rest)
            state.bm_pile = rest[:market["pile"]]
        else:
            state.bm_offer, state.owned, state.bm_discard = [], [[], []], []
            state.queue, state.pending, state.bm_pile = [], None, []
        turn = obs["turn"]
        state.turn_number = turn
        state.turns = [(turn + 1) // 2, turn // 2]  # the sides alternate, side 0 first
        state.active = obs["active_team"]
        state.opener = obs["opener"]
        state.partner = obs["partner"]
        state.chooser = obs["chooser"]
        state.last_play = dict(obs["last_play"]) if obs["last_play"] else None
        state.winner = obs["winner_team"]
        state.end_reason = obs["end_reason"]
        state.phase = obs["phase"]
        state.to_move = obs["to_move"]
        return state


def filler_cards(count: int) -> list[str]:
    """Stand-ins for cards an inconsistent observation leaves unaccounted for."""
    return [AGENTS[i % len(AGENTS)] for i in range(count)]


# ---------------------------------------------------------------------------- what each seat sees

HIDDEN_FOR_OTHERS = {"discard": ("discard",), "play_face_down": ("play_face_down",)}


def own_key(action: dict) -> tuple:
    return tuple(action.values())


def seen_key(action: dict) -> tuple:
    """What another seat sees of ``action``: a discard or a face-down card only as "a card"."""
    kind = action["type"]
    if kind == "play":
        return ("play", action["face_up"])
    hidden = HIDDEN_FOR_OTHERS.get(kind)
    return hidden if hidden is not None else tuple(action.values())


# ---------------------------------------------------------------------------- playout policy

def rewards(state: AgentAvenueState) -> list[float]:
    winner = state.winner
    return [1.0 if seat % 2 == winner else 0.0 for seat in range(state.players)]


def choose_greedily(state: AgentAvenueState, rng: random.Random) -> dict:
    """The playout's chooser: the card whose recruit (with the other going to the active
    side) wins at once, else does not lose, else gives the better lead. The playout state is a
    determinization, so this chooser sees the face-down card: a cheap, optimistic policy."""
    active = state.active
    other = 1 - active
    best = None
    for take in ("face_up", "face_down"):
        mine, theirs = (state.face_up, state.face_down) if take == "face_up" else (state.face_down, state.face_up)
        value = outcome_for(state, other, mine, active, theirs)
        value += rng.random() * 0.01
        if best is None or value > best[0]:
            best = (value, take)
    return {"type": "choose", "take": best[1]}


def recruit_value(state: AgentAvenueState, side: int, name: str) -> int:
    count = state.areas[side][name] + 1
    steps = MOVE_TABLE[name][count if count < 3 else 3]
    if state.advanced and state.owned[side]:
        steps = state.modified_steps(side, name, steps)
    return steps


def outcome_for(state: AgentAvenueState, side: int, card: str, active: int, active_card: str) -> float:
    """For ``side`` recruiting ``card`` while the active side recruits ``active_card``: 100 for
    a win, -100 for a loss, else ``side``'s lead after both moves (Black Market checks
    other than the Leader of the Pack are left out)."""
    moved = [0, 0]
    moved[side] += recruit_value(state, side, card)
    moved[active] += recruit_value(state, active, active_card)
    lead = (state.totals[active] + moved[active]) - (state.totals[1 - active] + moved[1 - active])
    results = []
    for s, name in ((active, active_card), (1 - active, card if side != active else active_card)):
        area = state.areas[s]
        codebreakers = area["codebreaker"] + (name == "codebreaker")
        daredevils = area["daredevil"] + (name == "daredevil")
        caught = lead >= 7 if s == active else -lead >= 7
        win = caught or codebreakers >= 3
        lose = False
        if daredevils >= 3:
            if "leader_of_the_pack" in state.owned[s]:
                win = True
            else:
                lose = True
        results.append((win, lose))
    (wins_a, loses_a), (wins_b, loses_b) = results
    if wins_a or loses_a or wins_b or loses_b:
        winner = 1 - active if (wins_b or loses_a) and not wins_a and not loses_b else active
        return 100.0 if winner == side else -100.0
    return float(lead if side == active else -lead)


def evaluate(state: AgentAvenueState) -> list[float]:
    """Per seat, a guess at its chance to win from an unfinished position: logistic in its
    side's lead, with a bonus for 2 codebreakers in play and a malus for 2 daredevils."""
    lead = state.totals[0] - state.totals[1]
    score = float(lead)
    for side, sign in ((0, 1.0), (1, -1.0)):
        area = state.areas[side]
        if area["codebreaker"] >= 2:
            score += sign * 3.0
        if area["daredevil"] >= 2 and "leader_of_the_pack" not in state.owned[side]:
            score -= sign * 2.0
    p0 = 1.0 / (1.0 + math.exp(-score / EVAL_SCALE))
    return [p0 if seat % 2 == 0 else 1.0 - p0 for seat in range(state.players)]


def playout(state: AgentAvenueState, rng: random.Random) -> None:
    """To the end of the game (or ``PLAYOUT_TURNS`` more turns): random plays, a greedy chooser."""
    stop = None if PLAYOUT_TURNS is None else state.turn_number + PLAYOUT_TURNS
    while state.winner is None and state.phase != "over":
        if stop is not None and state.turn_number >= stop:
            return
        if state.phase == "choose":
            state.apply(choose_greedily(state, rng))
            continue
        actions = state.legal_actions()
        state.apply(actions[int(rng.random() * len(actions))])


# ---------------------------------------------------------------------------- the search

class Node:
    __slots__ = ("children", "visits", "available", "total")

    def __init__(self):
        self.children: dict = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0  # rewards of the seat whose action led here


def search(determinizer: Determinizer, legal: list, rng: random.Random, playouts: int | None,
           time_ms: float | None, timer=time.perf_counter) -> tuple[int, dict]:
    """MO-ISMCTS from the observation; returns the index into ``legal`` and statistics."""
    me = determinizer.me
    players = determinizer.players
    trees = [Node() for _ in range(players)]
    deadline = None if playouts else timer() + (time_ms or DEFAULT_TIME_MS) / 1000.0
    budget = playouts or MAX_ITERATIONS
    iterations = 0
    log = math.log
    sqrt = math.sqrt
    while iterations < budget:
        if deadline is not None and iterations and timer() >= deadline:
            break
        iterations += 1
        state = determinizer.sample(rng)
        nodes = list(trees)
        paths: list[list[tuple[Node, int]]] = [[] for _ in range(players)]
        expanded = False
        while state.phase != "over":
            seat = state.to_move
            actions = state.legal_actions()
            node = nodes[seat]
            children = node.children
            if len(actions) == 1:
                index = 0
            elif GREEDY_OPPONENT_CHOOSER and seat != me and state.phase == "choose":
                index = actions.index(choose_greedily(state, rng))
            else:
                keys = [own_key(a) for a in actions]
                untried = [i for i, k in enumerate(keys) if k not in children]
                if untried:
                    if expanded:
                        break  # below the trees: play out
                    index = untried[int(rng.random() * len(untried))]
                    expanded = True
                else:
                    best = -1.0
                    index = 0
                    for i, k in enumerate(keys):
                        child = children[k]
                        child.available += 1
                        value = child.total / child.visits + UCB_C * sqrt(log(child.available) / child.visits)
                        if value > best:
                            best, index = value, i
            action = actions[index]
            own = own_key(action)
            seen = seen_key(action)
            for observer in range(players):
                tree_node = nodes[observer]
                key = own if observer == seat else seen
                child = tree_node.children.get(key)
                if child is None:
                    child = tree_node.children[key] = Node()
                nodes[observer] = child
                paths[observer].append((child, seat))
            state.apply(action)
        if state.phase != "over":
            playout(state, rng)
        result = rewards(state) if state.phase == "over" else evaluate(state)
        for observer in range(players):
            for child, mover in paths[observer]:
                child.visits += 1
                child.total += result[mover]
    root = trees[me]
    keys = [own_key(a) for a in legal]
    visits = [root.children[k].visits if k in root.children else 0 for k in keys]
    index = max(range(len(legal)), key=lambda i: (visits[i], -i))
    child = root.children.get(keys[index])
    value = child.total / child.visits if child and child.visits else 0.0
    return index, {"iterations": iterations, "visits": visits, "value": value}


def decide(observation: dict, legal: list, rng: random.Random, playouts: int | None = None,
           time_ms: float | None = None, own_discards: list[str] | None = None,
           timer=time.perf_counter) -> tuple[int, dict]:
    """The index of the action to play in ``legal`` (the whole policy, for in-process tests)."""
    if len(legal) == 1:
        return 0, {"iterations": 0}
    determinizer = Determinizer(observation, own_discards)
    return search(determinizer, legal, rng, playouts, time_ms, timer)


# ---------------------------------------------------------------------------- the bot

class Bot:
    """Per-match state: the seeded generator and this seat's own discards (it saw them)."""

    def __init__(self, playouts: int | None = None, time_ms: float | None = None):
        self.playouts = playouts
        self.time_ms = time_ms
        self.start({})

    def start(self, message: dict) -> None:
        self.rng = random.Random(message.get("seed", 0))
        self.own_discards: list[str] = []

    def choose(self, request: dict) -> dict:
        legal = request["legal"]
        observation = request["observation"]
        time_ms = self.time_ms
        if not self.playouts and time_ms is None:
            time_ms = budget_ms(request.get("time"))
        index, stats = decide(observation, legal, self.rng, self.playouts, time_ms, self.own_discards,
                              timer_for(request.get("time")))
        action = legal[index]
        if action.get("type") == "discard":
            self.own_discards.append(action["card"])
        return {"type": "action", "index": index, "debug": f"{stats.get('iterations', 0)} iterations"}


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
    parser = argparse.ArgumentParser(description="Agent Avenue MO-ISMCTS bot (arena protocol)")
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
