"""The game interface every rules module implements, and the option machinery they share.

A game is pure rules: no I/O, no processes, no clocks. It is deterministic given the seed it
is set up with. One seat decides at a time; simultaneous rules (Agent Avenue's movement, an
auction round) are modelled as a sequence of single-seat decisions plus automatic resolution.

Two classes:

* ``Game`` describes a game (name, player counts, options) and creates states.
* ``GameState`` is one match in progress. It answers who decides now, what a seat may see,
  what that seat may do, applies a decision or refuses it with a reason, and reports the end.

Actions and observations are plain JSON values (dicts, lists, str, int, bool, None), so a
bot can echo a listed legal action back unchanged after a JSON round trip.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

JSON = Any


class GameError(Exception):
    """Base class of the errors a game raises on purpose."""


class IllegalAction(GameError):
    """An action the rules refuse. ``reason`` is written for a bot author."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class OptionError(GameError):
    """A bad player count or option; the message is one line, for a user."""


@dataclass(frozen=True)
class Option:
    """One game option: its name, type, default and allowed values.

    ``kind`` is ``"bool"``, ``"int"`` or ``"choice"``. Values given as strings (from the
    command line, ``key=value``) are parsed by ``parse``.
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple = ()
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, value: Any) -> Any:
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise OptionError(f"option {self.name!r} must be true or false, not {value!r}")
        if self.kind == "int":
            if isinstance(value, bool):
                raise OptionError(f"option {self.name!r} must be a whole number, not {value!r}")
            try:
                number = int(value)
            except (TypeError, ValueError):
                raise OptionError(f"option {self.name!r} must be a whole number, not {value!r}") from None
            if self.minimum is not None and number < self.minimum:
                raise OptionError(f"option {self.name!r} must be at least {self.minimum}, not {number}")
            if self.maximum is not None and number > self.maximum:
                raise OptionError(f"option {self.name!r} must be at most {self.maximum}, not {number}")
            return number
        if self.kind == "choice":
            text = str(value)
            if text not in self.choices:
                allowed = ", ".join(map(str, self.choices))
                raise OptionError(f"option {self.name!r} must be one of {allowed}, not {value!r}")
            return text
        raise AssertionError(f"unknown option kind {self.kind!r}")

    def describe(self) -> str:
        if self.kind == "choice":
            values = "|".join(self.choices)
        elif self.kind == "bool":
            values = "true|false"
        else:
            values = "int"
        default = str(self.default).lower() if self.kind == "bool" else self.default
        return f"{self.name}={values} (default {default}): {self.help}"


class Game(ABC):
    """A game: metadata, option validation and a factory for states."""

    name: ClassVar[str]  # registry name, e.g. "five-towers"
    title: ClassVar[str]  # display name, e.g. "Five Towers"
    description: ClassVar[str]  # one line for `arena games`
    player_counts: ClassVar[tuple[int, ...]]
    options: ClassVar[tuple[Option, ...]] = ()

    def validate(self, players: int, options: dict | None = None) -> dict:
        """Return the complete, typed options for ``players``, or raise ``OptionError``."""
        if not isinstance(players, int) or isinstance(players, bool) or players not in self.player_counts:
            counts = ", ".join(map(str, self.player_counts))
            raise OptionError(f"{self.name} is played by {counts} players, not {players}")
        given = dict(options or {})
        known = {option.name: option for option in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise OptionError(f"{self.name} has no option {unknown[0]!r} (options: {names})")
        result = {name: option.default for name, option in known.items()}
        for name, value in given.items():
            result[name] = known[name].parse(value)
        self.check_combination(players, result)
        return result

    def check_combination(self, players: int, options: dict) -> None:
        """Refuse option combinations the rules do not allow (override where needed)."""

    def new_game(self, players: int, seed: int, options: dict | None = None) -> "GameState":
        """Set up a match: validated options, seeded randomness, seat 0 first where the rules say."""
        return self.create_state(players, int(seed), self.validate(players, options))

    @abstractmethod
    def create_state(self, players: int, seed: int, options: dict) -> "GameState":
        """Build the initial state; ``options`` are already validated and complete."""


class GameState(ABC):
    """One match in progress. Mutable: ``apply`` changes it in place."""

    players: int

    @abstractmethod
    def current_seat(self) -> int | None:
        """The seat that must decide now, or ``None`` when the game is over."""

    @abstractmethod
    def observation(self, seat: int) -> dict:
        """Everything ``seat`` may see now, and nothing else, as a JSON-able dict."""

    @abstractmethod
    def legal_actions(self) -> list | None:
        """The current seat's legal actions, or ``None`` where they cannot be enumerated."""

    @abstractmethod
    def apply(self, action: JSON) -> None:
        """Apply the current seat's action, or raise ``IllegalAction`` (state unchanged)."""

    @abstractmethod
    def is_over(self) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def scores(self) -> list[float]:
        """Final score per seat (only meaningful once ``is_over()``)."""

    def ranks(self) -> list[int]:
        """Rank per seat, 1 = best; equal scores share a rank (1, 1, 3)."""
        return ranks_from_scores(self.scores())

    def teams(self) -> list[list[int]] | None:
        """Seats grouped by team where the game has teams, else ``None``."""
        return None

    @abstractmethod
    def snapshot(self) -> dict:
        """The complete state, hidden parts included, as a JSON-able dict (tests, replays)."""

    def random_action(self, rng: random.Random) -> JSON:
        """A random legal action for the current seat (the fallback policy for a failed bot).

        The default draws uniformly from ``legal_actions``; a game whose actions cannot be
        enumerated must override it.
        """
        actions = self.legal_actions()
        if actions is None:
            raise TypeError(f"{type(self).__name__} lists no legal actions and must override random_action")
        return rng.choice(actions)


def shown(value: Any, limit: int = 60) -> str:
    """``value`` (anything a bot sent) as short JSON-like text for a refusal reason.

    Bots are untrusted: a value may be nested 100 levels deep, hold a string of a megabyte or
    an integer of 10,000 digits (which ``repr`` refuses to print). This never fails and never
    writes more than about ``limit`` characters.
    """
    text = _render(value, 0, limit)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _render(value: Any, depth: int, budget: int) -> str:
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    if isinstance(value, int):
        if value.bit_length() > 64:  # about 20 digits; str() of a huge one may raise
            return f"<an integer of about {int(value.bit_length() * 0.30103) + 1} digits>"
        return str(value)
    if isinstance(value, float):
        return repr(value)  # 2.0, inf, nan: what JSON would have carried
    if isinstance(value, str):
        return json.dumps(value[:budget], ensure_ascii=False) + ("..." if len(value) > budget else "")
    if isinstance(value, (list, tuple, dict)):
        if depth >= 3:
            return "[...]" if isinstance(value, (list, tuple)) else "{...}"
        parts = []
        items = value.items() if isinstance(value, dict) else value
        for item in items:
            if len(parts) >= 4 or sum(map(len, parts)) > budget:
                parts.append("...")
                break
            if isinstance(value, dict):
                key, item = item
                parts.append(f"{_render(key, depth + 1, budget)}: {_render(item, depth + 1, budget)}")
            else:
                parts.append(_render(item, depth + 1, budget))
        inner = ", ".join(parts)
        return "{" + inner + "}" if isinstance(value, dict) else "[" + inner + "]"
    return f"<{type(value).__name__}>"


def refuse_unknown_keys(action: dict, keys: Sequence[str], form: str) -> None:
    """Refuse an action object with a key its type does not have (a misspelt key would
    otherwise be silently ignored); ``form`` shows the action's right shape."""
    for key in action:
        if key not in keys:
            raise IllegalAction(f"unexpected key {shown(key)} in a {shown(action.get('type'))} action; "
                                f"it has only {', '.join(map(shown, keys))}: {form}")


def ranks_from_scores(scores: Sequence[float], tiebreak: Sequence[float] | None = None) -> list[int]:
    """Competition ranking ("1224"): higher is better; equal (score, tiebreak) share a rank."""
    keys = [(s, tiebreak[i] if tiebreak is not None else 0) for i, s in enumerate(scores)]
    return [1 + sum(1 for other in keys if other > key) for key in keys]


@dataclass
class Playout:
    """The record of a played game: seed, options and every (seat, action) in order."""

    game: str
    players: int
    seed: int
    options: dict
    actions: list = field(default_factory=list)


def random_playout(game: Game, players: int, seed: int, options: dict | None = None,
                   policy_seed: int | None = None, max_steps: int = 100_000) -> tuple[GameState, Playout]:
    """Play a whole game with random legal actions; returns the final state and the record."""
    state = game.new_game(players, seed, options)
    record = Playout(game.name, players, seed, game.validate(players, options))
    rng = random.Random(seed if policy_seed is None else policy_seed)
    for _ in range(max_steps):
        if state.is_over():
            return state, record
        seat = state.current_seat()
        action = state.random_action(rng)
        state.apply(action)
        record.actions.append((seat, action))
    raise RuntimeError(f"{game.name}: game not over after {max_steps} steps")
