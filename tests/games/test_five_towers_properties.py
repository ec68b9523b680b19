"""Five Towers: properties over many random legal playouts, determinism and hidden information.

The checks here recompute the rules independently (placement, scoring, brute-force build
enumeration) instead of calling the engine's own helpers.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections import Counter

import pytest

from arena.games import IllegalAction, get_game
from arena.games.base import ranks_from_scores
from arena.games.five_towers import BUILD, COLOURS, REBID, fitting_orders, most_fitting

GAME = get_game("five-towers")
PLAYER_COUNTS = [2, 3, 4, 5]
PLAYOUTS_PER_COUNT = 200
MAX_STEPS = 5000


# ----------------------------------------------------------------------------- independent rules
def fits(below: int | None, above: int) -> bool:
    if below is None:
        return True
    return below != 0 and (below == 8 or above == 9 or above < below)


def order_fits(top: int | None, order) -> bool:
    for value in order:
        if not fits(top, value):
            return False
        top = value
    return True


def tower_is_valid(values: list[int]) -> bool:
    return all(fits(below, above) for below, above in zip(values, values[1:]))


def full_deck(players: int) -> Counter:
    extra = (0, 2, 5, 7, 10, 12) if players >= 4 else ()
    return Counter((colour, value) for colour in COLOURS for value in list(range(16)) + list(extra))


def cards_everywhere(snapshot: dict) -> Counter:
    places = [snapshot["draw_pile"], snapshot["market"], snapshot["discard_pile"]]
    places += snapshot["torn_down_cards"]
    found = Counter(tuple(card) for place in places for card in place)
    for towers in snapshot["towers"]:
        found.update((colour, value) for colour, values in towers.items() for value in values)
    return found


def recount(towers: dict, torn_down: int) -> int:
    heights = [len(values) for values in towers.values()]
    points = sum(2 * len(v) if v and v[-1] == 0 else len(v) for v in towers.values())
    return points + max(heights) - sum(range(1, torn_down + 1))


def brute_force_outcomes(state, take: int) -> set:
    """Every (towers, torn card) the winner can reach with ``take`` market cards, by trying all."""
    seat = state.winner
    towers = {colour: list(values) for colour, values in state.observation(seat)["towers"][seat].items()}
    market = [tuple(card) for card in state.observation(seat)["market"]]
    teardowns = [None] + [c for c, v in towers.items() if v and v[-1] != 0]
    outcomes = set()
    for chosen in itertools.combinations(range(len(market)), take):
        for teardown in teardowns:
            for order in itertools.permutations([market[i] for i in chosen]):
                trial = {c: list(v) for c, v in towers.items()}
                torn = None
                if teardown is not None:
                    torn = (teardown, trial[teardown].pop())
                for colour, value in order:
                    if not fits(trial[colour][-1] if trial[colour] else None, value):
                        break
                    trial[colour].append(value)
                else:
                    outcomes.add((tuple(tuple(trial[c]) for c in COLOURS), torn))
    return outcomes


def outcome_of(state, action) -> tuple:
    seat = state.winner
    trial = copy.deepcopy(state)
    torn_before = len(trial.torn[seat])
    trial.apply(action)
    assert trial.is_over() or trial.round == state.round + 1, "a listed build was rolled back"
    snapshot = trial.snapshot()
    torn_cards = snapshot["torn_down_cards"][seat]
    torn = tuple(torn_cards[-1]) if len(torn_cards) > torn_before else None
    return tuple(tuple(snapshot["towers"][seat][c]) for c in COLOURS), torn


def test_most_fitting_and_fitting_orders_match_trying_every_order():
    rng = random.Random(7)
    for _ in range(400):
        values = tuple(sorted(rng.choice([0, 2, 5, 7, 10, 12, 8, 9, 14]) if rng.random() < 0.3
                              else rng.randrange(16) for _ in range(rng.randrange(1, 6))))
        top = rng.choice([None] + list(range(16)))
        valid = set()
        for n in range(len(values) + 1):
            valid.update(order for order in itertools.permutations(values, n) if order_fits(top, order))
        engine_top = -1 if top is None else top
        assert most_fitting(engine_top, values) == max(len(order) for order in valid)
        for n in range(len(values) + 1):
            orders = fitting_orders(engine_top, values, n)
            assert len(set(orders)) == len(orders)
            assert set(orders) == {order for order in valid if len(order) == n}


# ----------------------------------------------------------------------------- playouts
def card_places(state) -> list[int]:
    """Every card's code in every pile of the engine, sorted (cheaper than a snapshot)."""
    found = state.draw + state.market + state.discard
    for pile in state.torn:
        found += pile
    for towers in state.towers:
        for colour, values in enumerate(towers):
            found += [colour * 16 + value for value in values]
    found.sort()
    return found


def playout_checked(players: int, seed: int, from_list: bool):
    """One random legal game with the invariants checked after every step."""
    state = GAME.new_game(players, seed)
    rng = random.Random(seed)
    deck = card_places(state)
    assert len(deck) == sum(full_deck(players).values())
    for _ in range(MAX_STEPS):
        if state.is_over():
            return state
        action = rng.choice(state.legal_actions()) if from_list else state.random_action(rng)
        round_before = state.round
        state.apply(action)
        assert card_places(state) == deck
        standing = [(amount, seat) for seat, amount in enumerate(state.bids) if amount is not None]
        assert state.high_bid() == (max(standing) if standing else (None, None))
        if action["type"] == "build":
            assert state.is_over() or state.round == round_before + 1, "a listed build was rolled back"
            assert all(tower_is_valid(values) for towers in state.towers for values in towers)
    raise AssertionError(f"{players}-player game {seed} did not end in {MAX_STEPS} steps")


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_playouts_end_conserve_cards_keep_towers_valid_and_score_correctly(players):
    for seed in range(PLAYOUTS_PER_COUNT):
        state = playout_checked(players, seed, from_list=seed % 4 == 0)
        snapshot = state.snapshot()
        assert cards_everywhere(snapshot) == full_deck(players)
        assert snapshot["draw_pile"] == [] and snapshot["market"] == []
        assert snapshot["pass"] == 2 or snapshot["discard_pile"] == []
        expected = [recount(towers, torn) for towers, torn in zip(snapshot["towers"], snapshot["torn_down"])]
        assert state.scores() == expected
        assert state.ranks() == ranks_from_scores(expected)


def test_random_action_is_always_one_of_the_listed_actions():
    for players in PLAYER_COUNTS:
        for seed in range(15):
            state = GAME.new_game(players, seed)
            rng = random.Random(seed)
            while not state.is_over():
                action = state.random_action(rng)
                assert action in state.legal_actions()
                state.apply(action)


def build_phases(players: int, seeds: range, every: int = 1):
    """States where a seat must build, or has just been rolled back automatically."""
    for seed in seeds:
        state = GAME.new_game(players, seed)
        rng = random.Random(seed)
        count = 0
        while not state.is_over():
            if state.phase in (BUILD, REBID):
                count += 1
                if count % every == 0:
                    yield state
            state.apply(state.random_action(rng))


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_listed_builds_are_exactly_the_buildable_outcomes(players):
    checked = 0
    for state in build_phases(players, range(8), every=3):
        if state.phase != BUILD:
            continue
        legal = state.legal_actions()
        outcomes = [outcome_of(state, action) for action in legal]
        assert len(set(outcomes)) == len(outcomes), "two listed builds have the same outcome"
        assert set(outcomes) == brute_force_outcomes(state, state.take)
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_an_automatic_rollback_happens_only_when_nothing_can_be_built(players):
    checked = 0
    for state in build_phases(players, range(12)):
        event = state.history[-1]
        if state.phase == REBID and event["type"] == "rollback" and event["automatic"]:
            assert brute_force_outcomes(state, event["bid"]) == set()
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_submitted_build_is_applied_or_rolled_back_never_illegal(players):
    rng = random.Random(players)
    for state in build_phases(players, range(20)):
        if state.phase != BUILD:
            continue
        seat, take = state.winner, state.take
        observation = state.observation(seat)
        cards = rng.sample(observation["market"], take)
        teardowns = [None] + [c for c, v in observation["towers"][seat].items() if v and v[-1] != 0]
        action = {"type": "build", "cards": cards, "teardown": rng.choice(teardowns)}
        trial = copy.deepcopy(state)
        trial.apply(json.loads(json.dumps(action)))
        rolled_back = trial.phase == REBID and trial.history[-1]["type"] == "rollback"
        fitting = brute_force_outcomes(state, take)
        towers = {c: list(v) for c, v in observation["towers"][seat].items()}
        if action["teardown"]:
            towers[action["teardown"]].pop()
        placeable = True
        for colour, value in cards:
            if not fits(towers[colour][-1] if towers[colour] else None, value):
                placeable = False
                break
            towers[colour].append(value)
        assert rolled_back == (not placeable)
        assert placeable <= bool(fitting)


# ----------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_replaying_the_recorded_actions_from_the_seed_reproduces_every_state(players):
    for seed in range(5):
        state = GAME.new_game(players, seed)
        rng = random.Random(seed + 1)
        actions, snapshots = [], [state.snapshot()]
        while not state.is_over():
            action = json.loads(json.dumps(state.random_action(rng)))
            actions.append(action)
            state.apply(action)
            snapshots.append(state.snapshot())
        replay = GAME.new_game(players, seed)
        assert replay.snapshot() == snapshots[0]
        for action, expected in zip(actions, snapshots[1:]):
            replay.apply(action)
            assert replay.snapshot() == expected
        assert replay.scores() == state.scores()


# ----------------------------------------------------------------------------- hidden information
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_an_observation_does_not_change_when_only_the_draw_pile_order_changes(players):
    rng = random.Random(players)
    for seed in range(5):
        state = GAME.new_game(players, seed)
        while not state.is_over():
            if len(state.draw) > 1:
                other = copy.deepcopy(state)
                while other.draw == state.draw:
                    rng.shuffle(other.draw)
                for seat in range(players):
                    assert other.observation(seat) == state.observation(seat)
                assert other.snapshot() != state.snapshot()
            state.apply(state.random_action(rng))


def test_observations_and_listed_actions_survive_a_json_round_trip():
    state = GAME.new_game(3, 4)
    rng = random.Random(4)
    while not state.is_over():
        for seat in range(3):
            observation = state.observation(seat)
            assert json.loads(json.dumps(observation)) == observation
        legal = state.legal_actions()
        action = json.loads(json.dumps(rng.choice(legal)))
        state.apply(action)


def test_an_illegal_action_never_changes_the_state():
    rng = random.Random(9)
    for state in build_phases(4, range(3)):
        if state.phase != BUILD:
            continue
        before = state.snapshot()
        market = state.observation(state.winner)["market"]
        bad = {"type": "build", "cards": market[: state.take] + [["tree", 99]], "teardown": None}
        with pytest.raises(IllegalAction):
            state.apply(bad)
        with pytest.raises(IllegalAction):
            state.apply({"type": "build", "cards": rng.sample(market, len(market)) * 2, "teardown": None})
        assert state.snapshot() == before
