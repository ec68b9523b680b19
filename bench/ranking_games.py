"""Fields of bots of known strength for bench/ranking.py: played on the real games, or modelled.

Played (`GameField`): bot k of N plays, at each of its decisions, the move of the game's
heuristic bot (the ``choose`` function of bots/<game>_heuristic.py, called in process) with
probability p_k = k / (N - 1), else a random legal move (`GameState.random_action`). The
matches are the real engines of arena/games, in process (no bot processes, no sandbox), two
players. The deal (the engine's seed) is the match's deal, so both matches of a duplicate set
get the same cards; the random moves have a seed of their own per match. ``workers`` > 1
plays a batch on that many processes.

Modelled (`ModelField`): a per-game model of the outcome as a function of the two strengths,
fitted by maximum likelihood on really played matches between bots of random strength:
P(seat 0 wins), P(draw), P(seat 1 wins) by an ordered logit on r(p0) - r(p1) + seat advantage,
r piecewise linear in p on 11 knots, one draw margin. It plays no game, so it has no luck of
the deal: its duplicate sets differ from single matches only by the seat swap.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from arena.games import get_game

BOTS = Path(__file__).resolve().parents[1] / "bots"
TIME = {"decision_ms": 1000, "bank_ms": 10000}
KNOTS = np.linspace(0, 1, 11)
_heuristics: dict = {}


def heuristic(game: str):
    """The ``choose`` function of bots/<game>_heuristic.py."""
    if game not in _heuristics:
        stem = game.replace("-", "_") + "_heuristic"
        spec = importlib.util.spec_from_file_location(stem, BOTS / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _heuristics[game] = module.choose
    return _heuristics[game]


def play_match(job: tuple) -> list[int]:
    """One 2-player match on the real engine: ranks per seat. ``job`` is (game, (p0, p1),
    deal seed, move seed)."""
    game, strengths, deal_seed, move_seed = job
    choose = heuristic(game)
    state = get_game(game).new_game(len(strengths), deal_seed)
    rng = random.Random(move_seed)
    step = 0
    while not state.is_over():
        seat = state.current_seat()
        if rng.random() < strengths[seat]:
            legal = state.legal_actions()
            request = {"type": "request", "seat": seat, "step": step, "observation": state.observation(seat),
                       "legal": legal, "time": TIME}
            reply = choose(json.loads(json.dumps(request)))  # what a bot process would be given
            action = reply["action"] if "action" in reply else request["legal"][reply["index"]]
        else:
            action = state.random_action(rng)
        state.apply(action)
        step += 1
    return list(state.ranks())


class GameField:
    """Bots 0..N-1 of strength p_k = k / (N - 1), playing ``game`` for real."""

    def __init__(self, game: str, bots: int, seed: int, workers: int = 1):
        self.game, self.seed = game, seed
        self.strength = [k / (bots - 1) for k in range(bots)]
        self.played = 0
        self.pool = ProcessPoolExecutor(workers) if workers > 1 else None

    def play_many(self, games: list[tuple[tuple[int, ...], int]]) -> list[list[int]]:
        jobs = []
        for seats, deal in games:
            jobs.append((self.game, tuple(self.strength[b] for b in seats), 1_000_003 * self.seed + deal,
                         f"{self.seed}:{self.played}"))
            self.played += 1
        if self.pool is None:
            return [play_match(job) for job in jobs]
        return list(self.pool.map(play_match, jobs, chunksize=max(1, len(jobs) // 64)))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


# ---- the fitted model ---------------------------------------------------------------------

def _rating(params: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.interp(p, KNOTS, np.concatenate([[0.0], params[:len(KNOTS) - 1]]))


def _probabilities(params: np.ndarray, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
    """Rows of (seat 0 wins, draw, seat 1 wins)."""
    margin, advantage = np.exp(params[-2]), params[-1]
    x = _rating(params, p0) - _rating(params, p1) + advantage
    lose0 = 1 / (1 + np.exp(x + margin))       # seat 1 wins
    not_win0 = 1 / (1 + np.exp(x - margin))    # seat 1 wins or a draw
    return np.stack([1 - not_win0, not_win0 - lose0, lose0], axis=1)


def fit_model(game: str, matches: int, seed: int, workers: int = 1) -> tuple[np.ndarray, list]:
    """Play ``matches`` real matches between bots of uniformly random strength (deal and
    move seeds of their own) and fit the model; returns its parameters and the data."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(seed)
    pairs = rng.uniform(0, 1, (matches, 2))
    jobs = [(game, (float(a), float(b)), 7_000_000 + seed * 100_003 + i, f"model:{seed}:{i}")
            for i, (a, b) in enumerate(pairs)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            ranks = list(pool.map(play_match, jobs, chunksize=max(1, matches // 64)))
    else:
        ranks = [play_match(job) for job in jobs]
    outcome = np.array([0 if r[0] < r[1] else 1 if r[0] == r[1] else 2 for r in ranks])

    def loss(params):
        probabilities = _probabilities(params, pairs[:, 0], pairs[:, 1])
        return -np.sum(np.log(np.maximum(probabilities[np.arange(matches), outcome], 1e-12)))

    start = np.concatenate([np.linspace(0, 3, len(KNOTS))[1:], [np.log(0.1), 0.0]])
    fitted = minimize(loss, start, method="L-BFGS-B").x
    return fitted, list(zip(pairs.tolist(), outcome.tolist()))


def model_summary(params: np.ndarray) -> str:
    ratings = _rating(params, KNOTS) * 400 / np.log(10)
    draw = _probabilities(params, np.array([0.5]), np.array([0.5]))[0, 1]
    return ("r(p) in Elo at p = 0, 0.1 .. 1: " + " ".join(f"{r:.0f}" for r in ratings)
            + f"; draws between equals {100 * draw:.1f} %; seat 0 {params[-1] * 400 / np.log(10):+.0f} Elo")


class ModelField:
    """Bots 0..N-1 of strength p_k = k / (N - 1) whose matches the fitted model draws."""

    def __init__(self, params: np.ndarray, bots: int, seed: int):
        self.params = params
        self.strength = np.array([k / (bots - 1) for k in range(bots)])
        self.rng = np.random.default_rng(seed)

    def play_many(self, games: list[tuple[tuple[int, ...], int]]) -> list[list[int]]:
        if not games:
            return []
        seats = np.array([s for s, _ in games])
        probabilities = _probabilities(self.params, self.strength[seats[:, 0]], self.strength[seats[:, 1]])
        draws = self.rng.random(len(games))
        outcome = (draws > probabilities[:, 0]).astype(int) + (draws > probabilities[:, 0] + probabilities[:, 1])
        return [[1, 2] if o == 0 else [1, 1] if o == 1 else [2, 1] for o in outcome]

    def close(self) -> None:
        pass


if __name__ == "__main__":  # a quick look at one game's model: python bench/ranking_games.py GAME MATCHES
    params, _ = fit_model(sys.argv[1], int(sys.argv[2]), 0, int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    print(model_summary(params))
