#!/usr/bin/env python3
"""A determinized MCTS bot for Fifth Avenue (2-4 players, both boards).

Search: information-set MCTS (SO-ISMCTS) on arena's own engine. Every action in Fifth
Avenue is public (the cards put into a bid are shown); what a seat does not know is the
other players' black cards (only their number is public), the order of the black stack and
of the colour stacks below their top cards (their contents are known: every coloured card
outside them is public) and the removed businesses. Every iteration samples all of it from
the cards this seat has not seen (a *determinization*), rebuilds the engine's queue of steps
for the rest of the turn from the observation, and walks down the tree of decisions. Below
the tree a greedy policy (after the bundled heuristic bot's ideas) plays on to the end of the
next player's turn, and the position is scored with a static evaluation: points banked, one
more scoring of every open district (weighted up: districts are scored again during the
game), Central Park at an estimate, a little for cards and skyscrapers in supply. The reward
of a seat is a logistic function of its evaluation minus the best other seat's (final
positions: win 1, tie 0.5, loss 0).

A raise is one move in the search: the cheapest cards (coloured first, black for the rest)
that beat the highest bid for each allowed colour and each number of skyscrapers it would
build (3, 2 or 1 by its highest card). The protocol adds cards one at a time, so the bot
remembers the rest of the raise it chose and plays it card by card, then ``done``.
Business placements in the tree are the few with the best immediate gain.

Budget: ``--time-ms`` per decision (default 200, on the clock the harness names in each
request: the process's CPU time on the CPU clock) or ``--playouts N`` (a fixed number of
iterations, deterministic given the seed). ``Bot`` and ``decide`` are importable so tests can
run the search in-process. Protocol: docs/protocol.md, with ``"matches": "many"``.

Measured (bench/mcts.py, two-player games, 100 deals x 2 seatings, 2 shared cores): against
bots/fifth_avenue_heuristic.py 82 % of the points at 15 playouts (8 ms a decision on average: a raise's
cards after the first need no search; 77.5 % on the 6-plot board), 88 % with the default 200 ms (100
matches); against random play 100 %. The evaluation's weights were tuned on such runs: cards
in hand are worth nothing to it (any value above 0.1 a pip made it hoard and lose), districts
count 1.5 times.
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

from arena.games.fifth_avenue import board as B  # noqa: E402
from arena.games.fifth_avenue.auction import Auction, Bid  # noqa: E402
from arena.games.fifth_avenue.state import COMMISSIONERS, FifthAvenueState  # noqa: E402

NAME = "fifth-avenue-mcts"
DEFAULT_TIME_MS = 200
UCB_C = 0.5
MAX_ITERATIONS = 100_000
HORIZON_TURNS = 2  # the search looks to the end of this many turns (the current one first)
POINTS = (1, 2, 3, 5, 8)  # per skyscraper by the number of business types next to it
PARK_ESTIMATE = 3.0  # points per Central Park skyscraper before the reveal
CARD_VALUE = 0.0  # evaluation points per pip of building cards in hand
SUPPLY_VALUE = 0.25  # evaluation points per skyscraper in the own supply
DISTRICT_WEIGHT = 1.5  # how many more scorings a district's current points are counted for
SCALE = 8.0  # evaluation points per unit of the logistic reward
BUSINESS_CHOICES = 3  # business placements kept in the tree (the best by a quick gain)
START_CHOICES = 6  # set-up placements kept in the tree
CARD_CHOICES = 5  # colour pairs kept in the tree
BID_COST = 0.45  # the playout policy's price of one pip bid


def counts(values) -> list[int]:
    result = [0, 0, 0]
    for value in values:
        result[value - 4] += 1
    return result


# ---------------------------------------------------------------------------- determinization

class Determinizer:
    """Samples full states consistent with one observation (nothing else is read).

    Hidden from a seat: the other players' black cards (only their number is public), the
    order of the black stack, the colour stacks below their top cards (their contents are
    known: every coloured card outside them is public) and the removed businesses (which never
    matter again).
    """

    def __init__(self, obs: dict):
        self.obs = obs
        self.me = obs["seat"]
        players = self.players = obs["players"]
        state = self.template = FifthAvenueState.__new__(FifthAvenueState)
        state.players = players
        state.board = obs["board"]
        state.plots = plots = B.plot_count(state.board)
        state.neighbours = B.ring_neighbours(plots)
        state.alea = alea = 2 if players == 2 else None
        state.owners = owners = players + (1 if alea is not None else 0)

        def owner_index(name):
            if name is None:
                return -1
            return alea if name == "alea" else name

        self.owner_index = owner_index
        districts = obs["districts"]
        state.businesses = [[[B.BUSINESS_INDEX[b] for b in plot["businesses"]] for plot in d["plots"]]
                            for d in districts]
        state.owner = [[owner_index(plot["owner"]) for plot in d["plots"]] for d in districts]
        state.towers = [[plot["skyscrapers"] for plot in d["plots"]] for d in districts]
        state.closed = [d["closed"] for d in districts]
        commissioners = obs["commissioners"]
        state.commissioners = [commissioners["white"], commissioners["beige"]]
        markers = obs["markers"]
        state.markers = [{B.DISTRICT_INDEX[d] for d in markers["white"]},
                         {B.DISTRICT_INDEX[d] for d in markers["beige"]}]
        state.supply_row = [[B.BUSINESS_INDEX[b] for b in row] for row in obs["supply_row"]]
        state.below_park = [B.BUSINESS_INDEX[b] for b in obs["below_park"]]
        state.removed = []
        info = obs["players_info"]
        state.park = [p["park_skyscrapers"] for p in info]
        state.scores_ = list(obs["scores"])
        state.own_supply = [p["own_supply"] for p in info]
        state.general = [p["general_supply"] for p in info]
        if alea is not None:
            state.park.append(obs["alea"]["park_skyscrapers"])
            state.own_supply.append(obs["alea"]["own_supply"])
            state.general.append(0)
        state.gone = [0] * owners
        state.stopped_businesses = []
        state.coloured = [[counts(p["coloured_cards"][colour]) for colour in B.COLOURS] for p in info]
        state.businesses_placed = obs["businesses_placed"]
        state.stops = obs["building_stops"]
        state.turn_number = obs["turn"]
        state.active = obs["active_seat"]
        state.option = obs["turn_option"]
        state.over = obs["over"]
        state.end_reason = None
        state.revealed = None
        state._legal = None
        state.auction = None
        # The public record of finished auctions: the engine completes the last one's result
        # (a build-or-stop choice may still be open), so the news of this decision seeds it.
        state.auction_log = [dict(summary) for summary in obs.get("finished_auctions", [])[-1:]]
        state.decided_at = [0] * players
        state.steps = self.steps(obs, state)
        # Cards: what is in the current auction is public.
        in_bids_coloured = [[0, 0, 0] for _ in B.COLOURS]
        in_bids_black = [0, 0, 0]
        auction = obs["auction"]
        if auction is not None:
            for entry in auction["bidders"]:
                if entry["bidder"] == "alea":
                    continue  # Alea's turned-up cards are already back under the black stack
                colour = entry["colour"]
                for value in entry["coloured"]:
                    in_bids_coloured[B.COLOUR_INDEX[colour]][value - 4] += 1
                for value in entry["black"]:
                    in_bids_black[value - 4] += 1
        # Colour stacks: contents known, the top card known, the rest in unknown order.
        self.stack_rest = []
        self.stack_tops = []
        for c, colour in enumerate(B.COLOURS):
            left = counts(B.CARD_VALUES_COLOURED)
            for p in range(players):
                for i in range(3):
                    left[i] -= state.coloured[p][c][i]
            for i in range(3):
                left[i] -= in_bids_coloured[c][i]
            top = obs["stacks"][colour]["top"]
            size = obs["stacks"][colour]["size"]
            if top is not None:
                left[top - 4] -= 1
            rest = [4 + i for i in range(3) for _ in range(max(0, left[i]))]
            want = size - (1 if top is not None else 0)
            rest = (rest + [4] * want)[:want]  # a consistent observation fits exactly
            self.stack_rest.append(rest)
            self.stack_tops.append(top)
        # Black cards: the other players' hands and the stack share what this seat has not seen.
        left = counts(B.CARD_VALUES_BLACK)
        mine = counts(obs["your_black_cards"])
        for i in range(3):
            left[i] -= mine[i] + in_bids_black[i]
        self.black_pool = [4 + i for i in range(3) for _ in range(max(0, left[i]))]
        self.black_counts = [p["black_count"] for p in info]
        self.black_mine = mine
        self.black_stack_size = obs["stacks"]["black"]["size"]
        self.auction_view = auction

    def steps(self, obs: dict, state: FifthAvenueState) -> list[tuple]:
        """The engine's queue of steps for the rest of the turn, rebuilt from ``pending``."""
        if obs["over"]:
            return []
        decision = obs["decision"]
        seat = obs["current_seat"]
        active = obs["active_seat"]
        pending = obs["pending"]
        players = obs["players"]
        order = [0] + list(range(players - 1, 0, -1)) + list(range(1, players)) + [0]
        placing = pending.count("place_skyscraper")
        if decision == "place_skyscraper":
            current = ("place_start", seat)
        elif decision == "option":
            current = ("option", seat)
        elif decision == "take_cards":
            current = ("cards", seat)
        elif decision == "move":
            current = ("move", seat)
        elif decision == "build_or_stop":
            choice = obs["build_choice"]
            d = B.DISTRICT_INDEX[choice["district"]]
            p = B.plot_index(d, choice["plot"], state.plots)
            current = ("stop_choice", seat, d, p, choice["skyscrapers"])
        else:  # bid or park_colour: the current auction
            auction = obs["auction"]
            d = None if auction["district"] == B.CENTRAL_PARK else B.DISTRICT_INDEX[auction["district"]]
            current = ("auction", d, self.owner_index(auction["bidders"][0]["bidder"]))
        steps = [current]
        auctioned = set()
        if obs["auction"] is not None and obs["auction"]["district"] != B.CENTRAL_PARK:
            auctioned.add(B.DISTRICT_INDEX[obs["auction"]["district"]])
        placing_seats = iter(order[len(order) - placing:])
        for name in pending:
            if name.startswith("auction:"):
                where = name.split(":", 1)[1]
                d = None if where == B.CENTRAL_PARK else B.DISTRICT_INDEX[where]
                if d is not None:
                    auctioned.add(d)
                steps.append(("auction", d, active))
            elif name == "place_skyscraper":
                steps.append(("place_start", next(placing_seats)))
            elif name == "option":
                steps.append(("option", 0))
            elif name == "take_cards":
                steps.append(("cards", active))
            elif name == "move":
                steps.append(("move", active))
            elif name == "end_turn":
                steps.append(("end_turn", active))
            elif name == "auction_round_end":
                # An auction round's steps are all pending at once, so its auctions come first.
                steps.append(("round_end", self.round_colour(state, auctioned)))
            else:
                raise ValueError(f"unknown pending step {name!r}")
        return steps

    @staticmethod
    def round_colour(state: FifthAvenueState, auctioned: set) -> int:
        """Which commissioner's auction round is running: it stands in City Hall, and its markers
        hold every district auctioned in this round."""
        home = [c for c in (0, 1) if state.commissioners[c] == B.CITY_HALL]
        if len(home) == 1:
            return home[0]
        fitting = [c for c in home if auctioned <= state.markers[c]]
        for c in fitting:
            if state.markers[c]:
                return c
        return fitting[0] if fitting else (home[0] if home else 0)

    def sample(self, rng: random.Random) -> FifthAvenueState:
        template = self.template
        state = FifthAvenueState.__new__(FifthAvenueState)
        state.__dict__.update(template.__dict__)
        state.rng = random.Random(rng.random())
        state.businesses = [[list(p) for p in d] for d in template.businesses]
        state.owner = [list(d) for d in template.owner]
        state.towers = [list(d) for d in template.towers]
        state.closed = list(template.closed)
        state.commissioners = list(template.commissioners)
        state.markers = [set(m) for m in template.markers]
        state.supply_row = [list(r) for r in template.supply_row]
        state.below_park = list(template.below_park)
        state.park = list(template.park)
        state.scores_ = list(template.scores_)
        state.own_supply = list(template.own_supply)
        state.general = list(template.general)
        state.gone = list(template.gone)
        state.stopped_businesses = []
        state.auction_log = [dict(summary) for summary in template.auction_log]
        state.decided_at = list(template.decided_at)
        state.coloured = [[list(c) for c in p] for p in template.coloured]
        state.steps = list(template.steps)
        stacks = []
        for rest, top in zip(self.stack_rest, self.stack_tops):
            stack = list(rest)
            rng.shuffle(stack)
            if top is not None:
                stack.append(top)
            stacks.append(stack)
        state.stacks = stacks
        pool = list(self.black_pool)
        rng.shuffle(pool)
        black = []
        for seat in range(self.players):
            if seat == self.me:
                black.append(list(self.black_mine))
            else:
                size = self.black_counts[seat]
                black.append(counts(pool[len(pool) - size:]) if size else [0, 0, 0])
                if size:
                    del pool[len(pool) - size:]
        state.black = black
        state.black_stack = pool[:self.black_stack_size]
        state.auction = self.auction(state)
        state._legal = None
        return state

    def auction(self, state: FifthAvenueState) -> Auction | None:
        view = self.auction_view
        if view is None:
            return None
        d = None if view["district"] == B.CENTRAL_PARK else B.DISTRICT_INDEX[view["district"]]
        bidders = [self.owner_index(entry["bidder"]) for entry in view["bidders"]]
        allowed = {}
        for who, entry in zip(bidders, view["bidders"]):
            allowed[who] = tuple(B.COLOUR_INDEX[c] for c in entry["allowed_colours"])
        auction = Auction(d, bidders, allowed, view["had_empty_plot"])
        for who, entry in zip(bidders, view["bidders"]):
            auction.passed[who] = entry["passed"]
            if entry["coloured"] or entry["black"]:
                bid = Bid(B.COLOUR_INDEX[entry["colour"]] if entry["colour"] is not None else -1)
                bid.coloured = counts(entry["coloured"])
                bid.black = counts(entry["black"])
                auction.bids[who] = bid
        to_act = view["to_act"]
        auction.turn = bidders.index(self.owner_index(to_act)) if to_act is not None else -1
        auction.leader = None if view["leader"] is None else self.owner_index(view["leader"])
        auction.high = view["high"]
        auction.park_colour = None if view["park_colour"] is None else B.COLOUR_INDEX[view["park_colour"]]
        auction.alea_cards = list(view["alea_cards"])
        auction.alea_acted = bool(view["alea_cards"])
        return auction


# ---------------------------------------------------------------------------- evaluation

def plot_points(state: FifthAvenueState, d: int, p: int, extra: int | None = None, at: int | None = None) -> int:
    """What one skyscraper on plot ``p`` of district ``d`` scores now (``extra`` business on ``at``)."""
    left, right = state.neighbours[p]
    businesses = state.businesses[d]
    types = set(businesses[left])
    types.update(businesses[right])
    if extra is not None and at in (left, right):
        types.add(extra)
    return POINTS[len(types)]


def evaluations(state: FifthAvenueState) -> list[float]:
    """Per seat: points banked, plus one more scoring of every open district (the final one),
    plus Central Park at an estimate, plus the buying power of cards and own supply."""
    players = state.players
    values = [float(score) for score in state.scores_]
    for d in range(len(B.DISTRICTS)):
        if state.closed[d]:
            continue
        owner = state.owner[d]
        towers = state.towers[d]
        for p, who in enumerate(owner):
            if 0 <= who < players and towers[p]:
                values[who] += DISTRICT_WEIGHT * towers[p] * plot_points(state, d, p)
    for seat in range(players):
        pips = 0
        for hand in state.coloured[seat]:
            pips += 4 * hand[0] + 5 * hand[1] + 6 * hand[2]
        black = state.black[seat]
        pips += 4 * black[0] + 5 * black[1] + 6 * black[2]
        values[seat] += PARK_ESTIMATE * state.park[seat] + CARD_VALUE * pips + SUPPLY_VALUE * state.own_supply[seat]
    return values


def final_rewards(state: FifthAvenueState) -> list[float]:
    n = state.players
    return [(n - rank) / (n - 1) for rank in state.ranks()]


def rewards(state: FifthAvenueState) -> list[float]:
    if state.over:
        return final_rewards(state)
    values = evaluations(state)
    result = []
    for seat, value in enumerate(values):
        best_other = max(v for s, v in enumerate(values) if s != seat)
        result.append(1.0 / (1.0 + math.exp(-(value - best_other) / SCALE)))
    return result


# ---------------------------------------------------------------------------- moves

# A move inside the search is a tuple: ("place", d, p), ("take_skyscrapers",), ("draw_black",),
# ("score", d), ("business", b, d, p), ("cards", a, b), ("move", c, target), ("park", colour),
# ("build",), ("stop",), ("pass",) and ("raise", cards): a whole raise, the cards (colour or -1
# for black, value) added one by one and then "done".

def decision_kind(state: FifthAvenueState) -> str:
    kind = state.steps[0][0]
    if kind == "auction":
        auction = state.auction
        if auction.district is None and auction.park_colour is None:
            return "park_colour"
        return "bid"
    return kind


def apply_move(state: FifthAvenueState, move: tuple) -> None:
    kind = move[0]
    if kind == "raise":
        who = state.auction.to_act()
        for colour, value in move[1]:
            state.add_card(who, colour, value)
        state.finish_raise(who)
    elif kind == "pass":
        state.withdraw(state.auction.to_act())
    elif kind == "place":
        state.do_place_skyscraper({"district": B.DISTRICTS[move[1]], "plot": B.plot_name(move[1], move[2])})
    elif kind == "take_skyscrapers":
        state.do_take_skyscrapers({})
    elif kind == "draw_black":
        state.do_draw_black({})
    elif kind == "score":
        state.do_score_district({"district": B.DISTRICTS[move[1]]})
    elif kind == "business":
        state.do_place_business({"business": B.BUSINESSES[move[1]], "district": B.DISTRICTS[move[2]],
                                 "plot": B.plot_name(move[2], move[3])})
    elif kind == "cards":
        state.do_take_cards({"colours": [B.COLOURS[c] for c in move[1:]]})
    elif kind == "move":
        state.do_move({"commissioner": COMMISSIONERS[move[1]], "to": move[2]})
    elif kind == "park":
        state.do_park_colour({"colour": B.COLOURS[move[1]]})
    elif kind == "build":
        state.do_build({})
    elif kind == "stop":
        state.do_building_stop({})
    else:
        raise AssertionError(move)
    state._legal = None
    state._advance()


def move_actions(move: tuple) -> list[dict]:
    """The protocol actions of a move: one, or a raise's first card (the rest follow)."""
    kind = move[0]
    if kind == "raise":
        if not move[1]:
            return [{"type": "done"}]
        return [{"type": "add", "colour": B.BLACK if c < 0 else B.COLOURS[c], "value": v} for c, v in move[1]]
    if kind == "pass":
        return [{"type": "pass"}]
    if kind == "place":
        return [{"type": "place_skyscraper", "district": B.DISTRICTS[move[1]], "plot": B.plot_name(move[1], move[2])}]
    if kind in ("take_skyscrapers", "draw_black"):
        return [{"type": kind}]
    if kind == "score":
        return [{"type": "score_district", "district": B.DISTRICTS[move[1]]}]
    if kind == "business":
        return [{"type": "place_business", "business": B.BUSINESSES[move[1]], "district": B.DISTRICTS[move[2]],
                 "plot": B.plot_name(move[2], move[3])}]
    if kind == "cards":
        return [{"type": "take_cards", "colours": [B.COLOURS[c] for c in move[1:]]}]
    if kind == "move":
        return [{"type": "move", "commissioner": COMMISSIONERS[move[1]], "to": move[2]}]
    if kind == "park":
        return [{"type": "park_colour", "colour": B.COLOURS[move[1]]}]
    if kind == "build":
        return [{"type": "build"}]
    if kind == "stop":
        return [{"type": "building_stop"}]
    raise AssertionError(move)


# ---------------------------------------------------------------------------- quick judgements

def advantage(points: list[int], seat: int, players: int) -> int:
    others = [points[s] for s in range(players) if s != seat]
    return points[seat] - (max(others) if others else 0)


def business_gain(state: FifthAvenueState, seat: int, b: int, d: int, p: int) -> int:
    """My district points gained by business ``b`` on plot ``p``, minus the best other seat's."""
    players = state.players
    owner = state.owner[d]
    towers = state.towers[d]
    gains = None
    for q in state.neighbours[p]:
        who = owner[q]
        if 0 <= who < players and towers[q]:
            left, right = state.neighbours[q]
            businesses = state.businesses[d]
            types = set(businesses[left])
            types.update(businesses[right])
            if b in types:
                continue
            if gains is None:
                gains = [0] * players
            gains[who] += towers[q] * (POINTS[len(types) + 1] - POINTS[len(types)])
    return 0 if gains is None else advantage(gains, seat, players)


def start_value(state: FifthAvenueState, d: int, p: int) -> float:
    businesses = state.businesses[d]
    owner = state.owner[d]
    left, right = state.neighbours[p]
    empty = sum(1 for q in (left, right) if not businesses[q] and owner[q] < 0)
    types = set(businesses[left]) | set(businesses[right])
    return 3 * len(types) + empty


def hand_pips(state: FifthAvenueState, seat: int) -> int:
    pips = 0
    for hand in state.coloured[seat]:
        pips += 4 * hand[0] + 5 * hand[1] + 6 * hand[2]
    black = state.black[seat]
    return pips + 4 * black[0] + 5 * black[1] + 6 * black[2]


def own_colours(state: FifthAvenueState, seat: int) -> set[int]:
    colours = set()
    for d in range(len(B.DISTRICTS)):
        owner = state.owner[d]
        if seat in owner:
            colours.add(B.PLOT_COLOUR[B.DISTRICTS[d]][owner.index(seat)])
    return colours


def win_value(state: FifthAvenueState, seat: int, colour: int, built: int) -> float:
    """What winning the running auction with ``built`` skyscrapers on ``colour`` is worth."""
    auction = state.auction
    supply = state.own_supply[seat]
    if auction.district is None:
        return min(built, supply) * PARK_ESTIMATE
    d = auction.district
    p = B.colour_plot(d, colour)
    if not auction.had_empty and state.owner[d][p] != seat:
        total = sum(state.towers[d][q] for q in range(state.plots) if state.owner[d][q] >= 0)
        mine = state.district_points(d)[seat]
        if state.stops >= 1 and not leading(state, seat):
            return -10.0
        return total - mine - 2.0
    return min(built, supply) * (plot_points(state, d, p) + 1.0)


def leading(state: FifthAvenueState, seat: int) -> bool:
    values = evaluations(state)
    return all(values[seat] > values[s] for s in range(state.players) if s != seat)


def cheapest_cards(need: int, avail: tuple, top: int, require_top: bool) -> tuple | None:
    """(n4, n5, n6): the fewest pips above ``need`` from ``avail`` cards no higher than
    ``top`` (with at least one ``top`` if ``require_top``), fewer cards on a tie; or None."""
    a4, a5, a6 = avail
    best = None
    for n6 in (range(a6 + 1) if top == 6 else (0,)):
        for n5 in (range(a5 + 1) if top >= 5 else (0,)):
            if require_top and ((top == 6 and not n6) or (top == 5 and not n5)):
                continue
            partial = 5 * n5 + 6 * n6
            n4 = 0 if partial > need else (need - partial) // 4 + 1
            if top == 4 and require_top and not n4:
                n4 = 1
            if n4 > a4:
                continue
            key = (partial + 4 * n4, n4 + n5 + n6)
            if best is None or key < best[0]:
                best = (key, (n4, n5, n6))
    return best[1] if best else None


def raise_plans(state: FifthAvenueState, who: int) -> list[tuple[int, int, tuple]]:
    """Candidate raises for ``who``: per allowed colour and number of skyscrapers it would
    build, the cheapest cards whose total beats the highest bid: (built, colour, cards)."""
    auction = state.auction
    bid = auction.bids.get(who)
    black = state.black[who]
    if bid is None:
        colours = auction.allowed.get(who, ())
        need = auction.high
        base_high = 0
    else:
        colours = (bid.colour,)
        need = auction.high - bid.total()
        base_high = bid.highest()
        if need < 0:
            return [({4: 3, 5: 2, 6: 1}[base_high], bid.colour, ())]  # already above: done
    plans = []
    for colour in colours:
        hand = state.coloured[who][colour]
        if bid is None and not (hand[0] or hand[1] or hand[2]):
            continue
        avail = (min(5, hand[0] + black[0]), min(5, hand[1] + black[1]), min(5, hand[2] + black[2]))
        for top in (4, 5, 6):
            if top < base_high:
                continue
            found = cheapest_cards(need, avail, top, top > base_high)
            if found is None:
                continue
            cards = []
            for value, n in zip((4, 5, 6), found):
                own = min(n, hand[value - 4])
                cards += [(colour, value)] * own + [(-1, value)] * (n - own)
            if bid is None:
                if not cards or all(c < 0 for c, _ in cards):
                    continue  # the first card must be coloured
                cards.sort(key=lambda card: card[0] < 0)  # a coloured card first
            plans.append(({4: 3, 5: 2, 6: 1}[max(top, base_high)], colour, tuple(cards)))
    return plans


# ---------------------------------------------------------------------------- candidates and policy

class Policy:
    """The moves the tree considers at a decision, and the cheap policy below the tree."""

    def candidates(self, state: FifthAvenueState) -> list[tuple]:
        kind = decision_kind(state)
        seat = state.current_seat()
        if kind == "bid":
            return [("pass",)] + [("raise", cards) for _, _, cards in raise_plans(state, seat)]
        if kind == "option":
            moves = [("take_skyscrapers",), ("draw_black",)]
            moves += [("score", d) for d in state.scorable_districts()]
            row = state.current_set()
            if row is not None:
                scored = []
                for b in sorted(set(row)):
                    for d, p in state.business_plots():
                        scored.append((business_gain(state, seat, b, d, p), -len(scored), ("business", b, d, p)))
                scored.sort(reverse=True)
                moves += [move for _, _, move in scored[:BUSINESS_CHOICES]]
            return moves
        if kind == "cards":
            pairs = state.card_pairs()
            if len(pairs) > CARD_CHOICES:
                mine = own_colours(state, seat)
                pairs = sorted(pairs, key=lambda pair: -self.cards_value(state, mine, pair))[:CARD_CHOICES]
            return [("cards",) + tuple(pair) for pair in pairs]
        if kind == "move":
            return [("move", c, target) for c, target in state.commissioner_moves()]
        if kind == "place_start":
            plots = state.start_plots(seat)
            plots = sorted(plots, key=lambda dp: -start_value(state, *dp))[:START_CHOICES]
            return [("place", d, p) for d, p in plots]
        if kind == "park_colour":
            return [("park", c) for c in range(len(B.COLOURS))]
        if kind == "stop_choice":
            return [("build",), ("stop",)]
        raise AssertionError(kind)

    @staticmethod
    def cards_value(state: FifthAvenueState, mine: set[int], pair) -> float:
        total = 0.0
        for c in pair:
            stack = state.stacks[c]
            total += (2.0 if c in mine else 0.0) + (stack[-1] if stack else 0) / 6.0
        return total

    def play(self, state: FifthAvenueState) -> tuple:
        """The playout policy (greedy, after the bundled heuristic's ideas)."""
        kind = decision_kind(state)
        seat = state.current_seat()
        if kind == "bid":
            best = None
            for built, colour, cards in raise_plans(state, seat):
                total = sum(v for _, v in cards)
                value = win_value(state, seat, colour, built) - BID_COST * total - 0.2 * sum(1 for c, _ in cards if c < 0)
                if value > 0 and (best is None or value > best[0]):
                    best = (value, cards)
            return ("raise", best[1]) if best else ("pass",)
        if kind == "cards":
            mine = own_colours(state, seat)
            return ("cards",) + tuple(max(state.card_pairs(), key=lambda pair: self.cards_value(state, mine, pair)))
        if kind == "move":
            rich = hand_pips(state, seat) >= 24
            best = None
            for c, target in state.commissioner_moves():
                if target == B.CITY_HALL:
                    value = 3.0 if rich else -3.0
                else:
                    d = B.DISTRICT_INDEX.get(target)
                    value = 0.0 if d is None else advantage(state.district_points(d), seat, state.players) / 4.0
                if best is None or value > best[0]:
                    best = (value, ("move", c, target))
            return best[1]
        if kind == "park_colour":
            hand = state.coloured[seat]
            return ("park", max(range(len(B.COLOURS)), key=lambda c: sum(hand[c])))
        if kind == "stop_choice":
            _, winner, d, p, count = state.steps[0]
            build_gain = min(count, state.own_supply[winner]) * (plot_points(state, d, p) + 1)
            towers = sum(state.towers[d][q] for q in range(state.plots) if state.owner[d][q] >= 0)
            stop_gain = towers - state.district_points(d)[seat]
            if stop_gain > build_gain and (state.stops == 0 or leading(state, seat)):
                return ("stop",)
            return ("build",)
        if kind == "place_start":
            return ("place",) + max(state.start_plots(seat), key=lambda dp: start_value(state, *dp))
        if kind == "option":
            return self.option(state, seat)
        raise AssertionError(kind)

    def option(self, state: FifthAvenueState, seat: int) -> tuple:
        players = state.players
        best_score, best_score_gain = None, -99
        for d in state.scorable_districts():
            gain = advantage(state.district_points(d), seat, players)
            if gain > best_score_gain:
                best_score, best_score_gain = ("score", d), gain
        best_place, best_place_gain = None, -99
        row = state.current_set()
        if row is not None:
            for b in sorted(set(row)):
                for d, p in state.business_plots():
                    gain = business_gain(state, seat, b, d, p)
                    if gain > best_place_gain:
                        best_place, best_place_gain = ("business", b, d, p), gain
        last = row is not None and state.supply_row.index(row) == len(state.supply_row) - 1
        if last:
            if leading(state, seat) and best_place is not None:
                return best_place
            best_place, best_place_gain = None, -99
        if best_score is not None and best_score_gain >= 4 and best_score_gain >= best_place_gain:
            return best_score
        if best_place is not None and best_place_gain >= 2:
            return best_place
        if state.own_supply[seat] < 3 and state.general[seat] > 0:
            return ("take_skyscrapers",)
        if hand_pips(state, seat) < 30:
            return ("draw_black",)
        if best_place is not None:
            return best_place
        return ("take_skyscrapers",) if state.general[seat] > 0 else ("draw_black",)


# ---------------------------------------------------------------------------- the search

class Node:
    __slots__ = ("children", "visits", "available", "total")

    def __init__(self):
        self.children: dict = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0  # rewards of the seat whose move led here


def horizon_reached(state: FifthAvenueState, stop_turn: int) -> bool:
    return state.over or (state.steps[0][0] == "option" and state.turn_number >= stop_turn)


def search(determinizer: Determinizer, rng: random.Random, playouts: int | None,
           time_ms: float | None, horizon: int | None = None, timer=time.perf_counter) -> tuple[tuple, dict]:
    """SO-ISMCTS to the end of the current turn(s); returns the chosen move and statistics."""
    policy = Policy()
    root = Node()
    obs = determinizer.obs
    horizon = HORIZON_TURNS if horizon is None else horizon
    stop_turn = obs["turn"] + (1 if obs["decision"] == "option" else 0) + horizon - 1
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
        node = root
        path = []
        expanded = False
        first = True
        while not horizon_reached(state, stop_turn) or first:
            first = False
            seat = state.current_seat()
            moves = policy.candidates(state)
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
        while not horizon_reached(state, stop_turn):
            apply_move(state, policy.play(state))
        result = rewards(state)
        for child, mover in path:
            child.visits += 1
            child.total += result[mover]
    stats = {m: (c.visits, c.total / c.visits if c.visits else 0.0) for m, c in root.children.items()}
    best = max(root_moves, key=lambda m: stats.get(m, (0, 0.0)))
    return best, {"iterations": iterations, "stats": stats}


def decide(observation: dict, legal: list, rng: random.Random, playouts: int | None = None,
           time_ms: float | None = None, plan: list | None = None,
           timer=time.perf_counter) -> tuple[int, list, dict]:
    """The index of the action to play in ``legal``, the rest of a raise to follow, statistics.

    ``plan`` is the rest of a raise chosen at an earlier decision: its next card is played
    while it is still legal (then ``done``).
    """
    if plan:
        if plan[0] in legal:
            return legal.index(plan[0]), plan[1:], {"iterations": 0, "plan": True}
    elif plan is not None and {"type": "done"} in legal:
        return legal.index({"type": "done"}), [], {"iterations": 0, "plan": True}
    if len(legal) == 1:
        return 0, None, {"iterations": 0}
    determinizer = Determinizer(observation)
    move, stats = search(determinizer, rng, playouts, time_ms, timer=timer)
    actions = move_actions(move)
    if actions[0] not in legal:  # cannot happen; never risk an illegal action
        return 0, [], stats
    rest = actions[1:] if move[0] == "raise" else None
    return legal.index(actions[0]), rest, stats


# ---------------------------------------------------------------------------- the bot

class Bot:
    """Per-match state: the seeded generator and the rest of a raise being made."""

    def __init__(self, playouts: int | None = None, time_ms: float | None = None):
        self.playouts = playouts
        self.time_ms = time_ms
        self.start({})

    def start(self, message: dict) -> None:
        self.rng = random.Random(message.get("seed", 0))
        self.plan: list | None = None
        self.plan_key = None

    def choose(self, request: dict) -> dict:
        observation = request["observation"]
        legal = request["legal"]
        time_ms = self.time_ms
        if not self.playouts and time_ms is None:
            time_ms = budget_ms(request.get("time"))
        key = raise_key(observation)
        plan = self.plan if key is not None and key == self.plan_key else None
        index, rest, stats = decide(observation, legal, self.rng, self.playouts, time_ms, plan,
                                     timer_for(request.get("time")))
        self.plan = rest if key is not None else None
        self.plan_key = key if rest is not None else None
        return {"type": "action", "index": index, "debug": f"{stats.get('iterations', 0)} iterations"}


def raise_key(observation: dict):
    """Identifies one raise of this seat: the turn, the pending steps and the auction."""
    auction = observation.get("auction")
    if observation.get("decision") != "bid" or auction is None:
        return None
    return (observation["turn"], auction["district"], len(observation["pending"]), auction["high"])


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
    parser = argparse.ArgumentParser(description="Fifth Avenue ISMCTS bot (arena protocol)")
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
