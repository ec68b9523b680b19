#!/usr/bin/env python3
"""A heuristic Fifth Avenue bot (protocol v2, standard library only, stateless: many matches per process).

``choose(request)`` maps one request to one reply; the loop at the bottom speaks the protocol.
The ideas: place skyscrapers next to businesses, put businesses where they help us more than
the others, score a district when we gain most there, bid cheaply (many 4s build 3
skyscrapers), only for plots worth having, and end the game only when ahead.
"""

from __future__ import annotations

import json
import sys

POINTS = (1, 2, 3, 5, 8)
PARK_ESTIMATE = 3  # points per Central Park skyscraper, a guess at two revealed types
BUILD = {4: 3, 5: 2, 6: 1}


# ------------------------------------------------------------------ board reading

def neighbour_types(plots, i, extra=None):
    """Different business types on the two ring neighbours of plot ``i``."""
    n = len(plots)
    types = set(plots[(i - 1) % n]["businesses"]) | set(plots[(i + 1) % n]["businesses"])
    if extra is not None and extra[0] in ((i - 1) % n, (i + 1) % n):
        types.add(extra[1])
    return len(types)


def district_points(district, extra=None):
    """Points per owner if the district were scored now (``extra`` = (plot index, business)
    pretends one more business is there)."""
    points = {}
    for i, plot in enumerate(district["plots"]):
        if plot["owner"] is not None and plot["skyscrapers"]:
            value = plot["skyscrapers"] * POINTS[min(4, neighbour_types(district["plots"], i, extra))]
            points[plot["owner"]] = points.get(plot["owner"], 0) + value
    return points


def advantage(points, me, players):
    """My points minus the best opponent's (Alea does not score)."""
    others = [points.get(s, 0) for s in range(players) if s != me]
    return points.get(me, 0) - (max(others) if others else 0)


def find_district(obs, name):
    for district in obs["districts"]:
        if district["district"] == name:
            return district
    return None


def plot_index(district, name):
    for i, plot in enumerate(district["plots"]):
        if plot["plot"] == name:
            return i
    return None


def projected_final(obs):
    """Scores if the game ended now: current scores plus one more scoring of every district
    plus a Central Park estimate."""
    totals = list(obs["scores"])
    for district in obs["districts"]:
        if district["closed"]:
            continue
        for who, value in district_points(district).items():
            if isinstance(who, int):
                totals[who] += value
    for info in obs["players_info"]:
        totals[info["seat"]] += PARK_ESTIMATE * info["park_skyscrapers"]
    return totals


def leading(obs, totals=None):
    totals = totals if totals is not None else projected_final(obs)
    me = obs["seat"]
    return all(totals[me] > totals[s] for s in range(obs["players"]) if s != me)


def hand_total(obs):
    me = obs["players_info"][obs["seat"]]
    return sum(sum(v) for v in me["coloured_cards"].values()) + sum(obs["your_black_cards"])


# ------------------------------------------------------------------ decisions

def choose_start_plot(obs, legal):
    def value(action):
        district = find_district(obs, action["district"])
        i = plot_index(district, action["plot"])
        empty_neighbours = sum(1 for j in ((i - 1) % len(district["plots"]), (i + 1) % len(district["plots"]))
                               if not district["plots"][j]["businesses"] and district["plots"][j]["owner"] is None)
        return 3 * neighbour_types(district["plots"], i) + empty_neighbours
    return max(legal, key=value)


def business_gain(obs, action):
    district = find_district(obs, action["district"])
    i = plot_index(district, action["plot"])
    before = district_points(district)
    after = district_points(district, (i, action["business"]))
    me, players = obs["seat"], obs["players"]
    gain_me = after.get(me, 0) - before.get(me, 0)
    gain_others = max([after.get(s, 0) - before.get(s, 0) for s in range(players) if s != me] or [0])
    return gain_me - gain_others


def ends_game_by_placing(obs):
    row = obs["supply_row"]
    non_empty = [i for i, tiles in enumerate(row) if tiles]
    return bool(non_empty) and non_empty[0] == len(row) - 1


def choose_option(obs, legal):
    me, players = obs["seat"], obs["players"]
    info = obs["players_info"][me]
    scores = [a for a in legal if a["type"] == "score_district"]
    places = [a for a in legal if a["type"] == "place_business"]
    best_score, best_score_gain = None, -99
    for action in scores:
        gain = advantage(district_points(find_district(obs, action["district"])), me, players)
        if gain > best_score_gain:
            best_score, best_score_gain = action, gain
    best_place, best_place_gain = None, -99
    if places:
        if ends_game_by_placing(obs):
            if leading(obs):
                return max(places, key=lambda a: business_gain(obs, a))
        else:
            best_place = max(places, key=lambda a: business_gain(obs, a))
            best_place_gain = business_gain(obs, best_place)
    if best_score is not None and best_score_gain >= 4 and best_score_gain >= best_place_gain:
        return best_score
    if best_place is not None and best_place_gain >= 2:
        return best_place
    if info["own_supply"] < 3 and info["general_supply"] > 0:
        return {"type": "take_skyscrapers"}
    if hand_total(obs) < 30:
        return {"type": "draw_black"}
    if best_place is not None:  # keep the game moving
        return best_place
    if info["general_supply"] > 0:
        return {"type": "take_skyscrapers"}
    return {"type": "draw_black"}


def my_colours(obs):
    me = obs["seat"]
    colours = set()
    for district in obs["districts"]:
        for plot in district["plots"]:
            if plot["owner"] == me:
                colours.add(plot["plot"])
    return colours


def choose_cards(obs, legal):
    mine = my_colours(obs)

    def value(action):
        total = 0
        for colour in action["colours"]:
            top = obs["stacks"][colour]["top"] or 0
            total += (2 if colour in mine else 0) + top / 6
        return total
    return max(legal, key=value)


def choose_move(obs, legal):
    me, players = obs["seat"], obs["players"]
    rich = hand_total(obs) >= 24

    def value(action):
        if action["to"] == "city_hall":  # starts an auction round
            return 3 if rich else -3
        district = find_district(obs, action["to"])
        if district is None:
            return 0
        return advantage(district_points(district), me, players) / 4
    return max(legal, key=value)


def choose_park_colour(obs, legal):
    me = obs["players_info"][obs["seat"]]

    def strength(action):
        return sum(me["coloured_cards"][action["colour"]])
    return max(legal, key=strength)


def bid_value(obs, auction, colour, built):
    """What winning with ``built`` skyscrapers on the ``colour`` plot is worth to us."""
    me = obs["seat"]
    if auction["district"] == "central_park":
        return built * PARK_ESTIMATE
    district = find_district(obs, auction["district"])
    i = plot_index(district, colour)
    plot = district["plots"][i]
    if not auction["had_empty_plot"] and plot["owner"] != me:
        # A building stop: the skyscrapers there, minus our own half scoring lost.
        total = sum(p["skyscrapers"] for p in district["plots"])
        mine = district_points(district).get(me, 0)
        if obs["building_stops"] >= 1 and not leading(obs):
            return -10
        return total - mine - 2
    per = POINTS[min(4, neighbour_types(district["plots"], i))]
    supply = obs["players_info"][me]["own_supply"]
    return min(built, supply) * (per + 1)


def best_completion(obs, colour, mine, hand, black, high):
    """The best cards to add to our bid (``mine``: values already in it) so that it beats
    ``high``: (utility, coloured values, black values), or None if passing is better."""
    best = None
    c4, c5, c6 = (min(3, hand.count(v)) for v in (4, 5, 6))
    b4, b5, b6 = (min(3, black.count(v)) for v in (4, 5, 6))
    base = sum(mine)
    for i4 in range(c4 + 1):
        for i5 in range(c5 + 1):
            for i6 in range(c6 + 1):
                if not mine and not (i4 or i5 or i6):
                    continue  # the first card must be coloured
                for j4 in range(b4 + 1):
                    for j5 in range(b5 + 1):
                        for j6 in range(b6 + 1):
                            added = 4 * (i4 + j4) + 5 * (i5 + j5) + 6 * (i6 + j6)
                            total = base + added
                            if total <= high:
                                continue
                            top = 6 if (i6 or j6 or 6 in mine) else 5 if (i5 or j5 or 5 in mine) else 4
                            value = bid_value(obs, obs["auction"], colour, BUILD[top])
                            utility = value - 0.45 * total - 0.2 * (j4 + j5 + j6)
                            if best is None or utility > best[0]:
                                best = (utility, [4] * i4 + [5] * i5 + [6] * i6, [4] * j4 + [5] * j5 + [6] * j6)
    if best is None or best[0] <= 0:
        return None
    return best


def choose_bid(obs, legal):
    auction = obs["auction"]
    me = obs["seat"]
    entry = next(b for b in auction["bidders"] if b["bidder"] == me)
    done = {"type": "done"}
    if done in legal:
        return done
    info = obs["players_info"][me]
    black = obs["your_black_cards"]
    mine = entry["coloured"] + entry["black"]
    if entry["colour"] is not None:
        colours = [entry["colour"]]
    else:
        colours = sorted({a["colour"] for a in legal if a["type"] == "add" and a["colour"] != "black"})
    best = None
    for colour in colours:
        plan = best_completion(obs, colour, mine, info["coloured_cards"][colour], black, auction["high"])
        if plan is not None and (best is None or plan[0] > best[0][0]):
            best = (plan, colour)
    if best is None:
        return {"type": "pass"}
    (utility, coloured, black_cards), colour = best
    if coloured:
        action = {"type": "add", "colour": colour, "value": coloured[0]}
    else:
        action = {"type": "add", "colour": "black", "value": black_cards[0]}
    return action if action in legal else {"type": "pass"}


def choose_build_or_stop(obs, legal):
    """Build unless the stop is worth more than what we would build (and does not end a game
    we are losing)."""
    choice = obs["build_choice"]
    district = find_district(obs, choice["district"])
    i = plot_index(district, choice["plot"])
    per = POINTS[min(4, neighbour_types(district["plots"], i))]
    build_gain = choice["skyscrapers"] * (per + 1)
    towers = sum(p["skyscrapers"] for p in district["plots"])
    stop_gain = towers - district_points(district).get(obs["seat"], 0)
    if stop_gain > build_gain and (obs["building_stops"] == 0 or leading(obs)):
        return {"type": "building_stop"}
    return {"type": "build"}


def choose(request: dict) -> dict:
    obs = request["observation"]
    legal = request["legal"]
    decision = obs.get("decision")
    if decision == "place_skyscraper":
        action = choose_start_plot(obs, legal)
    elif decision == "option":
        action = choose_option(obs, legal)
    elif decision == "take_cards":
        action = choose_cards(obs, legal)
    elif decision == "move":
        action = choose_move(obs, legal)
    elif decision == "park_colour":
        action = choose_park_colour(obs, legal)
    elif decision == "bid":
        action = choose_bid(obs, legal)
    elif decision == "build_or_stop":
        action = choose_build_or_stop(obs, legal)
    else:
        action = legal[0]
    return {"type": "action", "action": action}


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            print(json.dumps({"type": "ready", "name": "fifth-avenue-heuristic", "matches": "many"}), flush=True)
        elif kind == "request":
            try:
                reply = choose(message)
            except Exception as error:  # never lose a match to a bug: fall back to a legal action
                print(f"heuristic failed: {error!r}", file=sys.stderr)
                reply = {"type": "action", "index": 0}
            print(json.dumps(reply), flush=True)
        elif kind == "quit":
            break


if __name__ == "__main__":
    main()
