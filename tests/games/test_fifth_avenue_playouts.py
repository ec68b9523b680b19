"""Fifth Avenue random legal playouts: they end, conserve components, score as recomputed
independently, and replay deterministically."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest

from arena.games.base import random_playout
from test_fifth_avenue_support import GAME

# The scoring tables and rings, copied from the rules (docs/games/fifth-avenue.md), independent of the engine.
RINGS = {
    "34w": ["orange", "green", "gray", "brown", "violet"],
    "34e": ["orange", "gray", "violet", "green", "brown"],
    "42w": ["green", "orange", "brown", "violet", "gray"],
    "ts": ["orange", "brown", "gray", "green", "violet"],
    "42e": ["gray", "orange", "violet", "brown", "green"],
    "52w": ["violet", "orange", "green", "brown", "gray"],
    "52e": ["brown", "orange", "gray", "violet", "green"],
}
POINTS = {0: 1, 1: 2, 2: 3, 3: 5, 4: 8}
PARK = {1: 2, 2: 3, 3: 5}
SPREAD = {3: (3, 4), 6: (4, 6), 9: (5, 8)}
CONFIGS = [(players, board) for players in (2, 3, 4) for board in ("5-plot", "6-plot")]


def by_type(state, rng):
    """Random policy that first picks an action type uniformly: reaches auctions and stops."""
    legal = state.legal_actions()
    kinds = sorted({a["type"] for a in legal})
    kind = rng.choice(kinds)
    return rng.choice([a for a in legal if a["type"] == kind])


def district_points(obs, district):
    plots = district["plots"]
    names = [p["plot"] for p in plots]
    assert names[:5] == RINGS[district["district"]]
    points = Counter()
    for i, plot in enumerate(plots):
        if plot["owner"] is None:
            continue
        neighbours = plots[i - 1]["businesses"] + plots[(i + 1) % len(plots)]["businesses"]
        points[plot["owner"]] += plot["skyscrapers"] * POINTS[len(set(neighbours))]
    return points


def expected_delta(pre, action, actor, post):
    n = pre["players"]
    delta = Counter()
    if action["type"] == "score_district":
        district = next(d for d in pre["districts"] if d["district"] == action["district"])
        delta.update(district_points(pre, district))
    placed = post["businesses_placed"]
    if placed != pre["businesses_placed"] and placed in SPREAD:
        needed, bonus = SPREAD[placed]
        for seat in range(n):
            if sum(any(p["owner"] == seat for p in d["plots"]) for d in post["districts"]) >= needed:
                delta[seat] += bonus
    for before, after in zip(pre["districts"], post["districts"]):
        if after["closed"] and not before["closed"]:
            if pre["decision"] == "build_or_stop" or action["type"] == "done":
                declarer = actor
            else:
                declarer = pre["auction"]["leader"]
            normal = district_points(pre, before)
            for seat in range(n):
                delta[seat] += normal[seat] // 2
            delta[declarer] += sum(p["skyscrapers"] for p in before["plots"]) - normal[declarer] // 2
    if post["over"] and not pre["over"]:
        for district in post["districts"]:
            if not district["closed"]:
                delta.update(district_points(post, district))
        types = len(set(post["end"]["revealed"]))
        for info in post["players_info"]:
            delta[info["seat"]] += PARK.get(types, 0) * info["park_skyscrapers"]
    return [delta[seat] for seat in range(n)]


def check_conservation(state):
    snap = state.snapshot()
    players = state.players
    on_board = Counter()
    for owners, towers in zip(snap["owner"], snap["towers"]):
        for who, count in zip(owners, towers):
            if who >= 0:
                on_board[who] += count
    for step in state.steps:  # set-up skyscrapers not placed yet
        if step[0] == "place_start":
            on_board[step[1]] += 1
    for who in range(state.owners):
        total = on_board[who] + snap["park"][who] + snap["own_supply"][who] + snap["general"][who] + snap["gone"][who]
        assert total == (17 if who < players else 18)
    bids_coloured, bids_black = Counter(), Counter()
    if state.auction is not None:
        for who, bid in state.auction.bids.items():
            if who < players:  # Alea's turned-up cards are back in the stack already
                for i in range(3):
                    bids_coloured[(bid.colour, 4 + i)] += bid.coloured[i]
                    bids_black[4 + i] += bid.black[i]
    for colour in range(5):
        cards = Counter(snap["stacks"][colour])
        for i in range(3):
            cards[4 + i] += sum(snap["coloured"][seat][colour][i] for seat in range(players))
            cards[4 + i] += bids_coloured[(colour, 4 + i)]
        assert cards == Counter({4: 5, 5: 4, 6: 3})
    black = Counter(snap["black_stack"])
    for i in range(3):
        black[4 + i] += sum(snap["black"][seat][i] for seat in range(players)) + bids_black[4 + i]
    assert black == Counter({4: 20, 5: 16, 6: 14})
    tiles = Counter(b for d in snap["businesses"] for p in d for b in p)
    tiles.update(b for row in snap["supply_row"] for b in row)
    tiles.update(snap["below_park"] + snap["removed"] + snap["stopped_businesses"])
    assert tiles == Counter({b: 9 for b in range(4)})


def play_checked(players, board, seed, policy):
    state = GAME.new_game(players, seed, {"board": board})
    rng = random.Random(seed)
    steps = 0
    while not state.is_over():
        actor = state.current_seat()
        pre = state.observation(0)
        action = policy(state, rng)
        state.apply(json.loads(json.dumps(action)))
        post = state.observation(0)
        assert [b - a for a, b in zip(pre["scores"], post["scores"])] == expected_delta(pre, action, actor, post)
        if steps % 7 == 0:
            check_conservation(state)
        steps += 1
        assert steps < 20_000
    check_conservation(state)
    return state


@pytest.mark.parametrize("players, board", CONFIGS)
def test_type_random_playouts_end_conserve_and_score_correctly(players, board):
    ends = Counter()
    for seed in range(6):
        state = play_checked(players, board, seed, by_type)
        ends[state.end_reason] += 1
    assert sum(ends.values()) == 6


@pytest.mark.parametrize("players, board", CONFIGS)
def test_uniform_random_playouts_end_conserve_and_score_correctly(players, board):
    for seed in range(3):
        play_checked(players, board, 100 + seed, lambda state, rng: state.random_action(rng))


def test_type_random_playouts_reach_both_endings():
    reasons = Counter(play_checked(4, "5-plot", seed, by_type).end_reason for seed in range(20, 32))
    assert reasons["last set"] and reasons["second building stop"]


@pytest.mark.parametrize("players, board", CONFIGS)
def test_random_playout_is_deterministic(players, board):
    first, record = random_playout(GAME, players, 42, {"board": board})
    second, again = random_playout(GAME, players, 42, {"board": board})
    assert record.actions == again.actions and first.snapshot() == second.snapshot()


def test_replaying_the_actions_reproduces_the_state():
    final, record = random_playout(GAME, 3, 9)
    replay = GAME.new_game(3, 9)
    for seat, action in record.actions:
        assert replay.current_seat() == seat
        replay.apply(json.loads(json.dumps(action)))
    assert replay.snapshot() == final.snapshot()


def test_every_listed_action_is_accepted():
    rng = random.Random(3)
    state = GAME.new_game(4, 3)
    while not state.is_over():
        legal = state.legal_actions()
        assert legal, "a seat to move always has a legal action"
        for action in rng.sample(legal, min(4, len(legal))):
            copy.deepcopy(state).apply(json.loads(json.dumps(action)))
        state.apply(by_type(state, rng))


def test_random_action_is_always_listed():
    rng = random.Random(4)
    for seed in range(3):
        state = GAME.new_game(3, seed)
        while not state.is_over():
            action = state.random_action(rng)
            assert action in state.legal_actions()
            state.apply(action)
