"""Every bundled bot plays full protocol matches, through real sandboxed processes, in every
game, player count and variant it is meant for — and finishes them with status ok."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.games import game_names, get_game
from arena.games.base import OptionError
from arena.runner.match import MatchSpec, play_match

BOTS = Path(__file__).resolve().parents[1] / "bots"
GENERIC = [BOTS / "random.py", BOTS / "starter" / "python", BOTS / "starter" / "javascript"]
REAL_GAMES = [name for name in game_names() if name != "toy"]


def variants(game_name: str) -> list[tuple[int, dict]]:
    """Every player count with default options, plus every non-default option value at each
    player count that allows it."""
    game = get_game(game_name)
    cases = [(players, {}) for players in game.player_counts]
    for option in game.options:
        values = [True] if option.kind == "bool" else [v for v in option.choices if v != option.default]
        for value in values:
            for players in game.player_counts:
                try:
                    game.validate(players, {option.name: value})
                except OptionError:
                    continue
                cases.append((players, {option.name: value}))
    return cases


def heuristic_bot(game_name: str) -> Path | None:
    path = BOTS / f"{game_name.replace('-', '_')}_heuristic.py"
    return path if path.exists() else None


CASES = [(name, players, options) for name in REAL_GAMES for players, options in variants(name)]


@pytest.mark.parametrize("game_name,players,options", CASES,
                         ids=[f"{g}-{p}p-{','.join(f'{k}={v}' for k, v in o.items()) or 'default'}"
                              for g, p, o in CASES])
def test_bundled_bots_finish_a_match_ok(game_name, players, options):
    own = heuristic_bot(game_name)
    pool = ([own] if own else []) + GENERIC
    bots = [str(pool[seat % len(pool)]) for seat in range(players)]
    result = play_match(MatchSpec(game_name, bots, seed=players * 101 + len(options), options=options))
    problems = [(s.bot, s.status, s.error, s.stderr[-500:]) for s in result.seats if s.status != "ok"]
    assert problems == []
    assert sorted(result.ranks)[0] == 1


def test_every_game_has_a_heuristic_bot():
    assert [name for name in REAL_GAMES if heuristic_bot(name) is None] == []
