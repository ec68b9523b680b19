#!/usr/bin/env python3
"""A heuristic Agent Avenue bot (every variant: 2-4 players, base or advanced).

It looks one recruit ahead: for each choice it works out both spies' moves, the codebreaker
and daredevil counts and the win/loss rules, and scores the result by the lead of its spy.
The unknown face-down card is averaged over the agents it has not seen. Black Market cards
are picked by a simple situational score. Any doubt, any error: a legal action.

Standard library only; protocol v2 (docs/protocol.md; one process plays many matches). ``choose(request)`` is the whole
policy, so tests can play it in-process.
"""

import json
import sys

MOVES = {
    "double_agent": (-1, 6, -1), "enforcer": (1, 2, 3), "codebreaker": (0, 0, 0),
    "saboteur": (-1, -1, -2), "daredevil": (2, 3, 3), "sentinel": (0, 2, 6),
    "sidekick": (4, 4, 4), "mole": (-3, -3, -3),
}
COPIES = {"double_agent": 6, "enforcer": 6, "codebreaker": 6, "saboteur": 6, "daredevil": 6,
          "sentinel": 6, "sidekick": 1, "mole": 1}
HOMES = (0, 7)
STREET = 14
CORNERS = (2, 5, 9, 12)
WIN = 1000.0

TAKE_SCORES = {
    "sinister_twin": 6, "watchtower": 5, "distraction_device": 5, "supercomputer": 4,
    "security_system": 4, "getaway_car": 3, "surveillance_truck": 3, "secret_recruit": 3,
    "smoke_screen": 2, "masterplan": 1, "leader_of_the_pack": 2, "mind_control": 3,
    "spycation": 2, "outpost": 1, "double_trouble": 1,
}


class View:
    """The parts of an observation the evaluation needs, from this seat's side."""

    def __init__(self, obs):
        self.obs = obs
        self.me = obs["team"]
        self.opp = 1 - self.me
        self.lead = obs["lead"]
        self.areas = obs["play_areas"]
        market = obs.get("black_market") or {}
        owned = market.get("owned") or [[], []]
        self.owned = owned
        self.active_is_me = obs["active_team"] == self.me
        self.totals = [spy["total"] for spy in obs["spies"]]

    def steps(self, side, name, extra=0):
        """Move of ``side`` recruiting ``name`` (with ``extra`` more copies already counted)."""
        count = self.areas[side].get(name, 0) + 1 + extra
        value = MOVES[name][min(count, 3) - 1]
        owned = self.owned[side]
        if name == "codebreaker" and "supercomputer" in owned:
            value += 3
        elif name == "enforcer" and "watchtower" in owned:
            value += 2
        elif name == "saboteur" and "distraction_device" in owned:
            value = abs(value)
        elif name == "double_agent" and "sinister_twin" in owned:
            value *= 2
        return value

    def evaluate(self, lead, my_area, opp_area, active_is_me=None):
        """Score a position after recruiting, from my side (win/loss rules, then the lead)."""
        if active_is_me is None:
            active_is_me = self.active_is_me
        my_win, my_lose = self.conditions(self.me, my_area, lead >= 7)
        opp_win, opp_lose = self.conditions(self.opp, opp_area, lead <= -7)
        if my_win or my_lose or opp_win or opp_lose:
            if active_is_me:
                other_wins = (opp_win or my_lose) and not my_win and not opp_lose
                return -WIN if other_wins else WIN
            other_wins = (my_win or opp_lose) and not opp_win and not my_lose
            return WIN if other_wins else -WIN
        score = float(lead)
        score += 3.0 * (my_area.get("codebreaker", 0) >= 2) - 3.5 * (opp_area.get("codebreaker", 0) >= 2)
        score -= 2.0 * (my_area.get("daredevil", 0) >= 2) - 2.0 * (opp_area.get("daredevil", 0) >= 2)
        return score

    def conditions(self, side, area, caught):
        owned = self.owned[side]
        win = caught or area.get("codebreaker", 0) >= 3
        lose = False
        if area.get("daredevil", 0) >= 3:
            if "leader_of_the_pack" in owned:
                win = True
            else:
                lose = True
        if "masterplan" in owned and sum(1 for c in area.values() if c) >= 7:
            win = True
        return win, lose

    def after_recruits(self, my_card, opp_card):
        """Score of me recruiting ``my_card`` and the opponent ``opp_card`` (either may be None)."""
        lead = self.lead
        my_area = dict(self.areas[self.me])
        opp_area = dict(self.areas[self.opp])
        if my_card:
            lead += self.steps(self.me, my_card)
            my_area[my_card] = my_area.get(my_card, 0) + 1
        if opp_card:
            lead -= self.steps(self.opp, opp_card)
            opp_area[opp_card] = opp_area.get(opp_card, 0) + 1
        return self.evaluate(lead, my_area, opp_area)

    def unseen(self, also_seen=()):
        """Agents not in my hand, in play or on the table: (name, weight) pairs."""
        counts = dict(COPIES)
        seen = list(self.obs["hand"]) + list(also_seen)
        for area in self.areas:
            for name, count in area.items():
                counts[name] = counts.get(name, 0) - count
        for name in seen:
            counts[name] = counts.get(name, 0) - 1
        pairs = [(name, count) for name, count in counts.items() if count > 0]
        return pairs or [(name, 1) for name in MOVES]

    def expected(self, function, also_seen=()):
        pairs = self.unseen(also_seen)
        total = sum(weight for _, weight in pairs)
        return sum(weight * function(name) for name, weight in pairs) / total


def pair_value(view, up, down):
    """Value for the active side of playing ``up`` face up and ``down`` face down."""
    if_up_taken = view.after_recruits(down, up)
    if_down_taken = view.after_recruits(up, down)
    worst = min(if_up_taken, if_down_taken)
    return 0.5 * worst + 0.25 * (if_up_taken + if_down_taken)


def decide_play(view, legal):
    plays = [a for a in legal if a["type"] == "play"]
    discards = [a for a in legal if a["type"] == "discard"]
    scored = [(pair_value(view, a["face_up"], a["face_down"]), i, a) for i, a in enumerate(plays)]
    best_value, _, best = max(scored)
    if best_value <= -WIN / 2 and discards:
        # every play loses: swap out the card that appears in the losing plays most
        bad = [a["face_down"] for v, _, a in scored if v <= -WIN / 2]
        return max(discards, key=lambda a: bad.count(a["card"]))
    return best


def decide_face_up(view, legal):
    ups = [a for a in legal if a["type"] == "play_face_up"]
    if not ups:
        return legal[0]
    # the partner's face-down card is unknown: average over the agents not seen
    return max(ups, key=lambda a: view.expected(lambda down: pair_value(view, a["card"], down)))


def decide_face_down(view, legal):
    downs = [a for a in legal if a["type"] == "play_face_down"]
    if not downs:
        return legal[0]
    up = view.obs["current_play"]["face_up"]
    return max(downs, key=lambda a: pair_value(view, up, a["card"]))


def decide_choose(view, legal):
    up = view.obs["current_play"]["face_up"]
    take_up = view.expected(lambda hidden: view.after_recruits(up, hidden), also_seen=[up])
    take_down = view.expected(lambda hidden: view.after_recruits(hidden, up), also_seen=[up])
    wanted = "face_up" if take_up >= take_down else "face_down"
    return next(a for a in legal if a.get("take") == wanted)


def decide_take(view, legal):
    my_area = view.areas[view.me]
    opp_area = view.areas[view.opp]
    hand = view.obs["hand"]

    def score(action):
        card = action["card"]
        value = TAKE_SCORES.get(card, 0)
        if card == "mind_control" and (opp_area.get("codebreaker", 0) >= 2 or opp_area.get("sentinel", 0) >= 2):
            value += 6
        if card == "leader_of_the_pack" and my_area.get("daredevil", 0) >= 1:
            value += 5
        if card == "spycation" and my_area.get("daredevil", 0) >= 2:
            value += 4
        if card == "outpost" and "sentinel" in hand and view.steps(view.me, "sentinel") > 0:
            value += 4
        if card == "masterplan":
            value += max(0, sum(1 for c in my_area.values() if c) - 3)
        if card == "double_trouble" and any(hand.count(n) >= 2 for n in hand):
            value += 2
        return value

    return max(legal, key=score)


def decide_effect(view, legal):
    my_area = view.areas[view.me]
    opp_area = view.areas[view.opp]

    def score(action):
        kind = action["type"]
        agent = action.get("agent")
        mine = dict(my_area)
        theirs = dict(opp_area)
        lead = view.lead
        if kind in ("secret_recruit", "double_trouble"):
            lead += view.steps(view.me, agent)
            mine[agent] = mine.get(agent, 0) + 1
        elif kind == "spycation":
            if action.get("recruit"):
                lead += view.steps(view.me, agent, extra=-1)
            else:
                mine[agent] = mine.get(agent, 0) - 1
        elif kind == "mind_control":
            theirs[agent] = theirs.get(agent, 0) - 1
        return view.evaluate(lead, mine, theirs, active_is_me=view.active_is_me)

    return max(legal, key=score)


DECIDERS = {
    "play": decide_play, "play_face_up": decide_face_up, "play_face_down": decide_face_down,
    "choose": decide_choose, "take": decide_take,
}


def decide(obs, legal):
    view = View(obs)
    decider = DECIDERS.get(obs["phase"], decide_effect)
    return decider(view, legal)


def choose(request):
    """The reply to one request: the chosen action, or index 0 if anything goes wrong."""
    legal = request.get("legal") or []
    try:
        action = decide(request["observation"], legal)
        if action in legal:
            return {"type": "action", "action": action}
    except Exception as error:  # never crash: log and fall back to a legal action
        print(f"heuristic error: {error!r}", file=sys.stderr)
    return {"type": "action", "index": 0}


def main():
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            print(json.dumps({"type": "ready", "name": "agent-avenue-heuristic", "matches": "many"}), flush=True)
        elif kind == "request":
            print(json.dumps(choose(message)), flush=True)
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
