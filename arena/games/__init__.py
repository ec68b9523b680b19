"""The registry of games: maps a name such as ``five-towers`` to its rules module.

Modules are imported on first use, so a game that is not asked for costs nothing.
"""

from __future__ import annotations

import importlib
import os
import re

from arena.games.base import Game, GameError, GameState, IllegalAction, Option, OptionError

# name -> "module:Class"; the order is the order `arena games` lists them in.
REGISTRY: dict[str, str] = {
    "five-towers": "arena.games.five_towers:FiveTowers",
    "fifth-avenue": "arena.games.fifth_avenue:FifthAvenue",
    "agent-avenue": "arena.games.agent_avenue:AgentAvenue",
}


BUILT_IN = tuple(REGISTRY)

# More games from the environment: ARENA_GAMES="name=package.module:Class,other=mod:Cls".
# Worker processes inherit the environment, so a game added this way plays in tournaments too.
# (Parsed here, not in arena.settings: bots import this package in the sandbox, without the rest.)
EXTRA_GAMES_VARIABLE = "ARENA_GAMES"
EXTRA_GAMES_FORM = "name=module:Class entries separated by commas (e.g. mygame=mypackage.mygame:MyGame)"
_GAME_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*\Z")
_TARGET = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*\Z")


def parse_extra_games(text: str | None) -> dict[str, str]:
    """ARENA_GAMES: game name -> "module:Class", in order; ValueError (one line) when malformed."""
    games: dict[str, str] = {}
    for entry in (part.strip() for part in (text or "").split(",")):
        if not entry:
            continue  # "a=m:C," — a trailing comma is harmless
        name, sep, target = (part.strip() for part in entry.partition("="))
        if not sep or not _GAME_NAME.match(name) or not _TARGET.match(target):
            raise ValueError(f"{EXTRA_GAMES_VARIABLE} must be {EXTRA_GAMES_FORM}, not {entry!r}")
        if name in BUILT_IN:
            raise ValueError(f"{EXTRA_GAMES_VARIABLE}: {name!r} is one of arena's own games; give yours another name")
        if name in games:
            raise ValueError(f"{EXTRA_GAMES_VARIABLE} names the game {name!r} twice")
        games[name] = target
    return games


def _register_extra_games() -> None:
    try:
        extra = parse_extra_games(os.environ.get(EXTRA_GAMES_VARIABLE))
    except ValueError:
        return  # every command refuses it in one line first (arena.settings.check_environment)
    for name, target in extra.items():
        REGISTRY.setdefault(name, target)


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
