"""The registry of games: maps a name such as ``five-towers`` to its rules module.

Modules are imported on first use, so a game that is not asked for costs nothing.
"""

from __future__ import annotations

import importlib
import os

from arena.games.base import Game, GameError, GameState, IllegalAction, Option, OptionError

# name -> "module:Class"; the order is the order `arena games` lists them in.
REGISTRY: dict[str, str] = {
    "five-towers": "arena.games.five_towers:FiveTowers",
    "fifth-avenue": "arena.games.fifth_avenue:FifthAvenue",
    "agent-avenue": "arena.games.agent_avenue:AgentAvenue",
}


# More games from the environment: ARENA_GAMES="name=package.module:Class,other=mod:Cls".
# Worker processes inherit the environment, so a game added this way plays in tournaments too.
EXTRA_GAMES_VARIABLE = "ARENA_GAMES"


def _register_extra_games() -> None:
    for entry in filter(None, (part.strip() for part in os.environ.get(EXTRA_GAMES_VARIABLE, "").split(","))):
        name, sep, target = entry.partition("=")
        if sep and ":" in target:
            REGISTRY.setdefault(name.strip(), target.strip())


_register_extra_games()


class UnknownGame(GameError):
    """A game name that is not in the registry."""


def game_names() -> list[str]:
    return list(REGISTRY)


def get_game(name: str) -> Game:
    """The game registered as ``name``; raises ``UnknownGame`` with the known names."""
    try:
        target = REGISTRY[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(REGISTRY)})") from None
    module_name, _, class_name = target.partition(":")
    try:
        game_class = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError) as error:
        # A game named in ARENA_GAMES that cannot be loaded: say which, and why, in one line.
        raise UnknownGame(f"game {name!r} is registered as {target!r}, which cannot be loaded"
                          f" ({type(error).__name__}: {error})") from None
    return game_class()


def all_games() -> list[Game]:
    return [get_game(name) for name in REGISTRY]


__all__ = ["Game", "GameError", "GameState", "IllegalAction", "Option", "OptionError",
           "UnknownGame", "all_games", "game_names", "get_game"]
