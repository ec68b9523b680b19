"""Helpers for the garbage-action property tests of every game (no tests here; the name only
keeps the file among the game test files).

Bots are untrusted: whatever JSON value a bot sends, ``state.apply`` must either apply it
(only if it is a legal action) or raise ``IllegalAction`` with a clear reason, never another
exception, and never change the state when it refuses. A ``Thrower`` draws arbitrary JSON
values (with the game's own words mixed in, so that many are nearly legal), deeply nested
ones, and legal actions with one thing wrong; ``check_refused_or_legal`` checks one action.
"""

from __future__ import annotations

import copy
import json
import math

from hypothesis import strategies as st

from arena.games.base import IllegalAction

# JSON numbers a bot may send that a careless engine trips over (10 ** 4000 is about the
# largest integer json.loads reads: Python refuses to convert more than 4300 digits).
AWKWARD_NUMBERS = [0, 1, -1, 2, 4, 5, 6, 15, 16, 10 ** 18, -(10 ** 18), 2 ** 63, 10 ** 400, -(10 ** 4000),
                   0.0, -0.0, 2.0, 4.0, 2.5, 1e308, -1e308, 1e-300, math.inf, -math.inf, math.nan]


def words_of(legal: list) -> tuple[list[str], list]:
    """The keys and the scalar values that occur in a list of legal actions."""
    keys: set[str] = set()
    values: list = []
    seen: set = set()

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                keys.add(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif (type(value), repr(value)) not in seen:
            seen.add((type(value), repr(value)))
            values.append(value)

    walk(legal)
    return sorted(keys), values


def scalars(words: list) -> st.SearchStrategy:
    return st.one_of(
        st.none(), st.booleans(), st.integers(), st.sampled_from(AWKWARD_NUMBERS),
        st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
        *([st.sampled_from(words)] if words else []))


def json_garbage(keys: list[str], words: list) -> st.SearchStrategy:
    """Arbitrary JSON values: scalars, lists and objects (keys mostly the game's own)."""
    key = st.one_of(st.sampled_from(keys + ["type", "index", "action"]), st.text(max_size=8))
    return st.recursive(
        scalars(words),
        lambda children: st.one_of(st.lists(children, max_size=5),
                                   st.dictionaries(key, children, max_size=5)),
        max_leaves=25)


def deeply_nested(inner: st.SearchStrategy) -> st.SearchStrategy:
    """A value wrapped in up to 60 levels of lists and objects (some as a field of an action)."""
    def wrap(args):
        value, shape, depth = args
        for level in range(depth):
            kind = shape[level % len(shape)]
            value = [value] if kind == "list" else {kind: value}
        return value
    shapes = st.lists(st.sampled_from(["list", "type", "cards", "colours", "card", "amount", "x"]),
                      min_size=1, max_size=4)
    return st.tuples(inner, shapes, st.integers(1, 60)).map(wrap)


CHOICE = st.integers(min_value=0, max_value=2 ** 16)


def pick(data, options: list):
    """One of ``options``, drawn through ``data`` (no strategy built per call: that is slow)."""
    return options[data.draw(CHOICE) % len(options)]


def mutated(data, legal: list, garbage: st.SearchStrategy):
    """A listed action with one thing wrong: a key dropped, added or renamed, a value replaced
    by garbage or by a near miss of another type (2 -> 2.0, True, "2", a huge int), a list
    item added or removed, or the whole action wrapped."""
    action = copy.deepcopy(pick(data, legal))
    paths = list(_paths(action))
    how = pick(data, ["drop", "extra", "replace", "near", "list", "wrap"])
    path = pick(data, paths) if paths else ()
    if how == "wrap":
        return pick(data, [[action], {"action": action}, {"type": "action", "action": action}, json.dumps(action)])
    parent, last = _parent(action, path)
    if how == "drop" and isinstance(parent, dict) and last is not None:
        del parent[last]
    elif how == "extra":
        target = parent if isinstance(parent, dict) and last is not None else action
        target[pick(data, ["", "x", "index", "debug", "Type", "amount", "card", "colour", str(last)])] = data.draw(garbage)
    elif how == "list" and isinstance(parent, list) and last is not None:
        if data.draw(st.booleans()):
            del parent[last]
        else:
            parent.insert(last, data.draw(garbage))
    elif last is not None:
        parent[last] = pick(data, near_misses(parent[last])) if how == "near" else data.draw(garbage)
    return action


def near_misses(value) -> list:
    if isinstance(value, bool):
        return [int(value), float(value), 1 - int(value), str(value).lower(), None]
    if isinstance(value, int):
        return [float(value), value + 0.5, bool(value % 2), str(value), value + 1, value - 1,
                10 ** 30 + value, -value - 1, [value], None]
    if isinstance(value, str):
        return [value.upper(), value + " ", value[:-1], "", [value], {"name": value}, None, 0]
    if isinstance(value, list):
        return [value[::-1], value + value, value[:1], [], [value], tuple_like(value), None]
    return [None, 0, "", [], {}]


def tuple_like(value: list) -> dict:
    return {str(i): item for i, item in enumerate(value)}


def _paths(value, prefix=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield prefix + (key,)
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield prefix + (index,)
            yield from _paths(item, prefix + (index,))


def _parent(action, path):
    if not path:
        return action, None
    parent = action
    for step in path[:-1]:
        parent = parent[step]
    return parent, path[-1]


def json_equal(a, b) -> bool:
    """Equal as JSON values: numbers by value (JSON has one number type), but a boolean is
    never a number and an object never equals a list."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def is_listed(action, legal: list) -> bool:
    return any(json_equal(action, listed) for listed in legal)


def check_refused_or_legal(state, action, accepted_otherwise=None) -> bool:
    """Apply ``action`` to a copy of ``state``. A refusal must be an ``IllegalAction`` with a
    short reason and leave the copy exactly as it was; an acceptance must be of a listed
    action (or one ``accepted_otherwise(state, action)`` allows: a game's documented extra
    forms). Returns whether it was accepted. ``state`` itself is never changed."""
    trial = copy.deepcopy(state)
    before = json.dumps(trial.snapshot(), sort_keys=True, default=repr)
    legal = copy.deepcopy(trial.legal_actions())
    try:
        trial.apply(action)
    except IllegalAction as refusal:
        assert isinstance(refusal.reason, str) and refusal.reason.strip(), refusal
        assert len(refusal.reason) <= 600, refusal.reason
        assert json.dumps(trial.snapshot(), sort_keys=True, default=repr) == before, "a refusal changed the state"
        assert trial.legal_actions() == legal, "a refusal changed the legal actions"
        return False
    assert is_listed(action, legal) or (accepted_otherwise is not None and accepted_otherwise(state, action)), \
        f"accepted an action that is not listed: {action!r}"
    return True


def random_state(game, players: int, seed: int, steps: int, options: dict | None = None):
    """A state after up to ``steps`` random legal actions (the game may end earlier)."""
    import random
    state = game.new_game(players, seed, options)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over():
            break
        state.apply(state.random_action(rng))
    return state


def vocabulary(game, configurations) -> tuple[list[str], list]:
    """The keys and scalar values of the legal actions met in a few random games."""
    import random
    keys: set[str] = set()
    values: dict = {}
    for players, options in configurations:
        state = game.new_game(players, players, options)
        rng = random.Random(players)
        while not state.is_over():
            legal = state.legal_actions()
            found_keys, found_values = words_of(legal)
            keys.update(found_keys)
            values.update({(type(v), repr(v)): v for v in found_values})
            state.apply(rng.choice(legal))
    return sorted(keys), [values[key] for key in sorted(values, key=repr)]


class Thrower:
    """Draws what the property tests throw at a state: arbitrary JSON values (made of the
    game's own words and anything else), deeply nested values, and mutated legal actions.
    The strategies are built once: building them per draw would take most of the time."""

    def __init__(self, game, configurations):
        keys, words = vocabulary(game, configurations)
        self.garbage = json_garbage(keys, words)
        self.nested = deeply_nested(self.garbage)

    def throw(self, data, state):
        legal = state.legal_actions() or []
        how = pick(data, ["garbage", "nested", "mutated", "mutated"] if legal else ["garbage", "nested"])
        if how == "garbage":
            return data.draw(self.garbage)
        if how == "nested":
            return data.draw(self.nested)
        return mutated(data, legal, self.garbage)
