"""Synthetic match results and stores for tests that need no bot processes.

`result(...)` builds a dict shaped like `MatchResult.to_dict()`; `tournament(...)` stores a
round-robin tournament among freshly registered (fake) bot versions.
"""

from __future__ import annotations

from dataclasses import replace

from arena.tournament.formats.roundrobin import round_robin
from arena.results.store import Store


def result(scores, statuses=None, teams=None, game="five-towers", log=None, stderr=None) -> dict:
    players = len(scores)
    statuses = statuses or ["ok"] * players
    failed = [status != "ok" for status in statuses]
    keys = [(failed[i], -scores[i]) for i in range(players)]
    ranks = [1 + sum(1 for other in keys if other < key) for key in keys]
    if teams:
        team_rank = {}
        for team in teams:
            best = min(ranks[seat] for seat in team)
            for seat in team:
                team_rank[seat] = best
        ranks = [team_rank[seat] for seat in range(players)]
    return {
        "game": game, "options": {}, "seed": 1, "players": players, "teams": teams,
        "scores": list(scores), "ranks": ranks,
        "seats": [{"seat": i, "bot": f"bot{i}", "status": statuses[i], "score": float(scores[i]), "rank": ranks[i],
                   "time_ms": 12.5, "decisions": 10, "error": None if statuses[i] == "ok" else "went wrong",
                   "stderr": (stderr or [""] * players)[i]} for i in range(players)],
        "log": log if log is not None else [{"event": "request", "seat": 0, "step": 0, "message": {"x": 1}},
                                           {"event": "reply", "seat": 0, "step": 0, "line": "{}", "ms": 1.0}],
        "sandbox": {"mode": "limits-only"},
        "started_at": "2026-01-01T00:00:00+00:00", "ended_at": "2026-01-01T00:00:01+00:00", "duration_ms": 1000.0,
    }


def fake_versions(store: Store, count: int, game: str = "five-towers") -> list[int]:
    first = len(store.bot_versions())
    return [store.add_bot_version(game, f"bot{i}", "python", f"hash{i}", f"hash{i}/bot.py", None,
                                  check_copy=False)[0]["id"] for i in range(first, first + count)]


def tournament(store: Store, bots: int = 4, players: int = 2, rounds: int = 1, seed: int = 7,
               game: str = "five-towers") -> int:
    versions = fake_versions(store, bots, game)
    return store.create_tournament(name="synthetic", game=game, players=players, rounds=rounds, seed=seed,
                                   options={}, config={}, entries=versions, secret="00" * 32,
                                   schedule=[replace(m, seed=seed * 1000 + m.index)
                                             for m in round_robin(bots, players, rounds, seed)])


def scores_for(match: dict) -> list[float]:
    """Deterministic scores from the seed: a stand-in for playing the match."""
    return [float((match["seed"] >> (seat * 5)) % 17) for seat in range(match["players"])]
