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


@pytest.mark.parametrize("game_name", REAL_GAMES)
def test_bundled_bots_also_play_in_mode_none_and_without_cgroups(game_name, monkeypatch):
    """Every mode arena accepts plays every bundled bot: `--sandbox none` (as root the bots then
    run as the harness's user, so a Python under /root is fine) and rlimits instead of cgroups."""
    from arena.runner import cgroups
    from arena.runner.sandbox import detect

    monkeypatch.setenv("ARENA_NO_CGROUPS", "1")
    cgroups.available.cache_clear()
    try:
        players = min(get_game(game_name).player_counts)
        pool = [heuristic_bot(game_name)] + GENERIC
        bots = [str(pool[seat % len(pool)]) for seat in range(max(players, len(pool)))][:max(players, 2)]
        for mode in ("none", "bubblewrap"):
            result = play_match(MatchSpec(game_name, bots[:players], seed=5), protections=detect(mode))
            assert [s.status for s in result.seats] == ["ok"] * players, [(s.bot, s.error) for s in result.seats]
    finally:
        monkeypatch.undo()
        cgroups.available.cache_clear()
