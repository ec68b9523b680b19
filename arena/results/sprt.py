"""An SPRT's state, kept with its test: the hypotheses, error rates, bounds, the current
log-likelihood ratio, how many pairs it counted and its verdict.

`compute` is the one place where the statistic is applied to a test's pair scores (today the
generalized SPRT from the empirical distribution of pair scores, `arena.results.gsprt`,
through `arena.results.statistics.sprt_decision`); each
stored state names the statistic that made it (``statistic``), so a test whose state came
from another statistic can be told apart and recomputed. The state is derived from the stored
matches alone: the coordinator recomputes and saves it after every batch (`save`), so after a
``kill -9`` the next run simply computes it again.

It lives in the ``sprt_tests`` table (one row per SPRT tournament). A database from before
that table (schema 2) is read as it is: `load` then rebuilds the state from the tournament's
``format_state`` and configuration (`from_tournament`), as the upgrade to schema 3 does.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass

from arena.results import statistics

STATISTIC = "gsprt-exact"  # the generalized SPRT from the pair scores' empirical distribution (arena.results.gsprt)
VERDICTS = ("H0", "H1", "inconclusive")
EXIT_CODES = {"H1": 0, "H0": 3, "inconclusive": 4}  # `arena sprt` / `resume`; 4 also for no verdict


@dataclass(frozen=True)
class SprtState:
    elo0: float                # H0: the new version is at most this much better
    elo1: float                # H1: it is at least this much better
    alpha: float               # false-positive rate
    beta: float                # false-negative rate
    lower: float               # accept H0 at or below this log-likelihood ratio
    upper: float               # accept H1 at or above this one
    llr: float                 # the ratio after `pairs` pairs
    pairs: int                 # pairs counted: every finished pair, or up to the verdict
    verdict: str | None        # "H0", "H1", "inconclusive" (the budget ran out), None while it runs
    statistic: str = STATISTIC
    updated_at: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.verdict or "inconclusive", 4)

    def describe(self) -> str:
        """One line: the test, where it is, its verdict."""
        where = (f"LLR {self.llr:.2f} after {self.pairs} pairs in [{self.lower:.2f}, {self.upper:.2f}]")
        verdict = {"H0": "H0 accepted", "H1": "H1 accepted", "inconclusive": "no verdict (the match budget ran out)",
                   None: "no verdict yet"}[self.verdict]
        return (f"sprt: elo0 {self.elo0:g}, elo1 {self.elo1:g}, alpha {self.alpha:g}, beta {self.beta:g}: {where};"
                f" {verdict}")

    def verdict_line(self) -> str:
        """The result as `arena sprt` prints it."""
        if self.verdict == "H1":
            return (f"H1 accepted after {self.pairs} pairs (LLR {self.llr:.2f}): the new version is better"
                    f" by at least {self.elo1:g} Elo, with error rate {self.alpha:g}")
        if self.verdict == "H0":
            return (f"H0 accepted after {self.pairs} pairs (LLR {self.llr:.2f}): the new version is not"
                    f" better by {self.elo1:g} Elo (at most {self.elo0:g}), error rate {self.beta:g}")
        return f"no verdict after {self.pairs} pairs (LLR {self.llr:.2f}): the match budget ran out"


def compute(pair_scores: list[float], elo0: float, elo1: float, alpha: float, beta: float,
            budget_spent: bool = False, players: int = 2) -> SprtState:
    """The state after ``pair_scores`` (each pair's score for the new version, in order)."""
    verdict, used, value = statistics.sprt_decision(pair_scores, elo0, elo1, alpha, beta, players)
    lower, upper = statistics.sprt_bounds(alpha, beta)
    if verdict is None and budget_spent:
        verdict = "inconclusive"
    return SprtState(elo0, elo1, alpha, beta, lower, upper, value, used, verdict)


def hypotheses(config: dict) -> tuple[float, float, float, float]:
    """elo0, elo1, alpha, beta of a stored SPRT configuration (with their defaults)."""
    return (config.get("elo0", 0.0), config.get("elo1", 10.0), config.get("alpha", 0.05), config.get("beta", 0.05))


def from_tournament(config: dict, format_state: dict | None) -> SprtState:
    """The state an SPRT tournament's configuration and ``format_state`` record (its last step)."""
    elo0, elo1, alpha, beta = hypotheses(config)
    lower, upper = statistics.sprt_bounds(alpha, beta)
    state = format_state or {}
    verdict = state.get("verdict")
    return SprtState(elo0, elo1, alpha, beta, lower, upper, float(state.get("llr", 0.0)), int(state.get("pairs", 0)),
                     verdict if verdict in VERDICTS else None)


_COLUMNS = ("elo0", "elo1", "alpha", "beta", "lower", "upper", "llr", "pairs", "verdict", "statistic")
_UPSERT = (f"INSERT OR REPLACE INTO sprt_tests (tournament_id, {', '.join(_COLUMNS)}, updated_at)"
           f" VALUES (?, {', '.join('?' * len(_COLUMNS))}, ?)")


def save(store, tournament_id: int, state: SprtState) -> None:
    """Store ``state`` as the test's current one (one transaction)."""
    from arena.results.store import now

    with store.write():
        store.db.conn.execute(_UPSERT, [tournament_id, *(getattr(state, c) for c in _COLUMNS), now()])


def load(store, tournament_id: int) -> SprtState | None:
    """The test's stored state; None when the tournament is no SPRT."""
    tournament = store.tournament(tournament_id)
    if tournament.get("format") != "sprt":
        return None
    row = None
    if store.one("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'sprt_tests'"):
        row = store.one(f"SELECT {', '.join(_COLUMNS)}, updated_at FROM sprt_tests WHERE tournament_id = ?",
                        [tournament_id])
    if row is None:  # not saved yet (a moment after creation), or an older database
        return from_tournament(tournament["config"], tournament.get("format_state"))
    return SprtState(**row)


def backfill(conn: sqlite3.Connection) -> None:
    """Give every SPRT tournament of an upgraded database its state (from ``format_state``)."""
    from arena.results.store import now

    rows = conn.execute("SELECT id, config, format_state FROM tournaments WHERE format = 'sprt'").fetchall()
    for tournament_id, config, format_state in rows:
        state = from_tournament(json.loads(config), json.loads(format_state) if format_state else None)
        conn.execute(_UPSERT.replace("INSERT OR REPLACE", "INSERT OR IGNORE"),
                     [tournament_id, *(getattr(state, c) for c in _COLUMNS), now()])
