"""How many matches a ranking needs: arena's own formats on bots of known strength.

Usage: python bench/ranking.py [--game GAME [--modelled MATCHES] [--workers W]] [--bots 50,200]
           [--seeds 3] [--first-seed 0] [--duplicate no,yes]
           [--formats round-robin,swiss,swiss+finals,ladder,oracle] [--swiss 5,10,20,40]
           [--ladder 0.025,0.05,0.1,0.2] [--finals "8:30x1,16x6;6:24x2,12x10"]
           [--oracle 15,20,25,30] [--budget 0.1]
           [--players 2] [--spread 1000] [--luck 1.0]          (the synthetic field only)

Fields (bench/ranking_games.py for the first two):

* ``--game GAME``: the real game, played in process (no bot processes): bot k of N plays the
  heuristic bot's move with probability p_k = k / (N - 1), else a random legal move; two players.
* ``--game GAME --modelled M``: M real matches between bots of random strength fit a model of
  the outcome (win, draw, loss) as a function of the two strengths; the formats then play
  against the model (no luck of the deal: a modelled duplicate set differs only by its seats).
* without ``--game``: synthetic bots, strengths evenly spread over ``--spread`` Elo; a seat's
  performance is its strength + the deal's luck for that seat (normal, sd ``--luck``, the same
  for every seating of a duplicate set) + Gumbel noise, ranked as in Plackett–Luce.

Formats are arena's own planners, in process: round-robin (`formats.roundrobin.round_robin`),
Swiss (`plans.Swiss`, checkpoints after ``--swiss`` rounds), Swiss with finals (the Swiss, then
each final a round-robin of the leaders of the refit so far, as `arena.tournament.finals`
plans it; ``--finals`` ROUNDS:FINALISTSxROUNDS,...; plans separated by ``;``) and ladder
(`plans.Ladder` on TrueSkill, checkpoints at ``--ladder`` fractions of a round-robin), each
without and with duplicate deals. ``oracle`` is not a format but a bound: it is told the true
top K (``--oracle``) for free and spends ``--budget`` of a round-robin's matches on round-robins
among them (as many whole rounds as fit): what finals of K would place if finding the finalists
cost nothing and missed none. Every run is ranked as a tournament's final standings are
(the refit of all its matches, `arena.results.refit.ratings`; a Swiss with finals: the last
final's finalists first) and scored against the truth: Kendall τ, and how many of the true top
10 are in its top 10. One line per format and checkpoint: the mean over the seeds, and each
seed's top 10; a Swiss with finals also says, per seed, how many of the true top 10 reached its
last final.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from arena.results import ratings as trueskill_ratings
from arena.results import refit, statistics
from arena.results.ratings import MU, SIGMA
from arena.tournament.formats.roundrobin import round_robin
from arena.tournament.plans import Ladder, Stored, Swiss

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ranking_games import GameField, ModelField, fit_model, model_summary  # noqa: E402

ELO = 400 / math.log(10)


class Field:
    """Synthetic bots (Plackett–Luce with luck of the deal) and the matches they play."""

    def __init__(self, bots: int, spread: float, luck: float, seed: int):
        self.strength = np.linspace(0, spread, bots) / ELO
        self.luck = luck
        self.rng = np.random.default_rng(seed)
        self.deal_luck: dict[int, np.ndarray] = {}

    def play(self, seats: tuple[int, ...], deal: int) -> list[int]:
        """Ranks per seat (1 best)."""
        if deal not in self.deal_luck:
            self.deal_luck[deal] = self.rng.normal(0, self.luck, len(seats))
        performance = self.strength[list(seats)] + self.deal_luck[deal] + self.rng.gumbel(size=len(seats))
        ranks = np.empty(len(seats), int)
        ranks[np.argsort(-performance)] = np.arange(1, len(seats) + 1)
        return [int(r) for r in ranks]

    def play_many(self, games: list[tuple[tuple[int, ...], int]]) -> list[list[int]]:
        return [self.play(seats, deal) for seats, deal in games]

    def close(self) -> None:
        pass


def refit_order(matches: list[list[refit.Seat]], bots: int) -> list[int]:
    fitted = refit.ratings(matches, list(range(bots)))
    return sorted(range(bots), key=lambda b: -fitted[b])


def score(order: list[int], bots: int) -> tuple[float, int]:
    """Kendall τ of ``order`` (best first) against the truth (bot N-1 best), and how many of
    the true top 10 are in its top 10."""
    from scipy.stats import kendalltau

    place = {b: -i for i, b in enumerate(order)}
    tau = kendalltau(np.arange(bots), [place[b] for b in range(bots)])[0]
    return float(tau), len(set(order[:10]) & set(range(bots - 10, bots)))


def seats_of(seats: tuple[int, ...], ranks: list[int]) -> list[refit.Seat]:
    return [refit.Seat(b, r) for b, r in zip(seats, ranks)]


def play(field, planned) -> list[tuple[tuple[int, ...], int, list[int]]]:
    """Each planned match (with .seats and .deal) played: (seats, deal, ranks)."""
    ranks = field.play_many([(m.seats, m.deal) for m in planned])
    return [(m.seats, m.deal, r) for m, r in zip(planned, ranks)]


def among(planned, bots: list[int], deal_offset: int = 0) -> list:
    """Planned matches of players 0..K-1 as matches of ``bots`` (player i is bots[i]), their deals
    moved by ``deal_offset``."""
    return [type(m)(m.index, m.round, tuple(bots[p] for p in m.seats), deal_offset + m.deal) for m in planned]


def run_round_robin(field, bots: int, players: int, duplicate: bool, seed: int):
    matches = [seats_of(s, r) for s, _, r in play(field, round_robin(bots, players, 1, seed, duplicate))]
    yield len(matches), refit_order(matches, bots)


def _stored(bots: int, rows: list, scheduled: int, next_deal: int, rounds: int) -> Stored:
    entries = [{"position": b, "bot_version_id": b, "withdrawn": 0} for b in range(bots)]
    return Stored({"config": {}}, entries, rows, scheduled, next_deal, rounds)


def _rows(number: int, match_round: int, seats: tuple[int, ...], deal: int, ranks: list[int]) -> list:
    rows = []
    for seat, (bot, rank) in enumerate(zip(seats, ranks)):
        row = statistics.SeatRow(number, number, match_round, deal, seat, bot, rank, 0.0, "ok", len(seats))
        row.points = statistics.points(rank, len(seats), ranks.count(rank))
        rows.append(row)
    return rows


def swiss_rounds(field, bots: int, players: int, duplicate: bool, seed: int, rounds: int):
    """Yields (rounds played, matches) after each Swiss round."""
    plan = Swiss(players, rounds, duplicate, seed)
    rows, matches, next_deal = [], [], 0
    for number in range(rounds):
        for seats, deal, ranks in play(field, plan._round(_stored(bots, rows, len(matches), next_deal, number), number)):
            rows += _rows(len(matches), number, seats, deal, ranks)
            matches.append(seats_of(seats, ranks))
            next_deal = max(next_deal, deal + 1)
        yield number + 1, matches, next_deal


def run_swiss(field, bots: int, players: int, duplicate: bool, seed: int, checkpoints: list[int]):
    for number, matches, _ in swiss_rounds(field, bots, players, duplicate, seed, max(checkpoints)):
        if number in checkpoints:
            yield len(matches), refit_order(matches, bots)


def run_swiss_finals(field, bots: int, players: int, duplicate: bool, seed: int, plans: list[tuple]):
    """For each (swiss rounds, [(finalists, rounds), ...]): a Swiss, then for each final in
    turn a round-robin (``rounds`` rounds) of the top ``finalists`` of the refit of every match
    so far (from the previous final's finalists). The standings: the refit of every match, the
    last final's finalists first, then the previous final's, then the rest."""
    for rounds, finals in plans:
        *_, (_, matches, next_deal) = swiss_rounds(field, bots, players, duplicate, seed, rounds)
        matches = list(matches)
        pool = list(range(bots))
        reached = {b: 0 for b in range(bots)}
        for stage, (finalists, final_rounds) in enumerate(finals, start=1):
            fitted = refit.ratings(matches, list(range(bots)))
            top = sorted(pool, key=lambda b: -fitted[b])[:finalists]
            planned = round_robin(len(top), players, final_rounds, seed + stage, duplicate)
            for seats, _, ranks in play(field, among(planned, top, next_deal)):
                matches.append(seats_of(seats, ranks))
            next_deal += max(m.deal for m in planned) + 1
            for b in top:
                reached[b] = stage
            pool = top
        fitted = refit.ratings(matches, list(range(bots)))
        finalists = sum(1 for b in range(bots - 10, bots) if reached[b] == len(finals))
        yield len(matches), sorted(range(bots), key=lambda b: (-reached[b], -fitted[b])), finalists


def run_oracle(field, bots: int, players: int, duplicate: bool, seed: int, sizes: list[int], budget: int):
    """For each K in ``sizes``: round-robins among the true top K (bots N-K..N-1), as many whole
    rounds as fit in ``budget`` matches; the standings: the refit, those K first."""
    for size in sizes:
        top = list(range(bots - size, bots))
        per_round = len(round_robin(size, players, 1, seed, duplicate))
        planned = round_robin(size, players, max(1, budget // per_round), seed, duplicate)
        matches = [seats_of(seats, ranks) for seats, _, ranks in play(field, among(planned, top))]
        fitted = refit.ratings(matches, list(range(bots)))
        yield len(matches), sorted(range(bots), key=lambda b: (b < bots - size, -fitted[b]))


def run_ladder(field, bots: int, players: int, duplicate: bool, seed: int, budgets: list[int]):
    plan = Ladder(players, duplicate, seed, None, max(budgets), False, 10, 5, 1.5)
    ratings = {b: (MU, SIGMA, 0) for b in range(bots)}
    matches, next_deal, batch = [], 0, 0
    state: dict = {}
    pending = sorted(budgets)
    while pending:
        stored = _stored(bots, [], len(matches), next_deal, batch)
        stored.tournament["format_state"] = state
        step = plan.next_batch(stored, ratings)
        if not step or not step[0]:
            break
        planned, state = step
        for seats, deal, ranks in play(field, planned):
            matches.append(seats_of(seats, ranks))
            next_deal = max(next_deal, deal + 1)
            after = trueskill_ratings.rate([ratings[b][:2] for b in seats], ranks)
            for b, (mu, sigma) in zip(seats, after):
                ratings[b] = (mu, sigma, ratings[b][2] + 1)
            if pending and len(matches) >= pending[0]:
                pending.pop(0)
                yield len(matches), refit_order(matches, bots)
        batch += 1


def parse_finals(text: str) -> list[tuple[int, list[tuple[int, int]]]]:
    """"8:30x1,16x6;6:20x4" -> [(8, [(30, 1), (16, 6)]), (6, [(20, 4)])]."""
    plans = []
    for part in text.split(";"):
        rounds, _, finals = part.partition(":")
        plans.append((int(rounds), [tuple(int(x) for x in f.split("x")) for f in finals.split(",") if f]))
    return plans


def make_field(args, bots: int, seed: int, model):
    if args.game is None:
        return Field(bots, args.spread, args.luck, seed)
    if model is not None:
        return ModelField(model, bots, seed)
    return GameField(args.game, bots, seed, args.workers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", help="play this game for real (bots of strength p_k = k/(N-1)); default synthetic")
    parser.add_argument("--modelled", type=int, metavar="MATCHES",
                        help="with --game: play MATCHES real matches, fit the outcome model, and simulate with it")
    parser.add_argument("--workers", type=int, default=1, help="with --game: processes that play matches")
    parser.add_argument("--bots", default="50,200")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--spread", type=float, default=1000.0)
    parser.add_argument("--luck", type=float, default=1.0)
    parser.add_argument("--swiss", default="5,10,20,40")
    parser.add_argument("--ladder", default="0.025,0.05,0.1,0.2")
    parser.add_argument("--finals", default="8:30x1,16x6",
                        help="Swiss with finals: ROUNDS:FINALISTSxROUNDS,...;... (e.g. 8:30x1,16x6;6:20x8)")
    parser.add_argument("--duplicate", default="no,yes", help="no, yes or no,yes")
    parser.add_argument("--formats", default="round-robin,swiss,swiss+finals,ladder")
    parser.add_argument("--oracle", default="15,20,25,30",
                        help="the oracle bound: round-robins of the true top K, for each K")
    parser.add_argument("--budget", type=float, default=0.1,
                        help="the oracle's matches as a share of a round-robin's")
    args = parser.parse_args()
    if args.game and args.players != 2:
        parser.error("--game plays two-player matches")
    swiss_checkpoints = [int(x) for x in args.swiss.split(",")]
    ladder_shares = [float(x) for x in args.ladder.split(",")]
    finals = parse_finals(args.finals)
    oracle_sizes = [int(x) for x in args.oracle.split(",")]
    wanted = args.formats.split(",")
    model = None
    if args.game and args.modelled:
        started = time.monotonic()
        model, _ = fit_model(args.game, args.modelled, 0, args.workers)
        print(f"{args.game}: model fitted on {args.modelled} real matches ({time.monotonic() - started:.0f} s):"
              f" {model_summary(model)}")
    source = (f"{args.game}, {'MODELLED' if model is not None else 'played'}" if args.game else
              f"synthetic, strengths evenly over {args.spread:.0f} Elo, deal luck sd {args.luck}")
    print(f"{args.players}-player matches; {source}; seeds {args.first_seed}..{args.first_seed + args.seeds - 1};"
          " ranked by the refit")
    for bots in (int(x) for x in args.bots.split(",")):
        full = len(round_robin(bots, args.players, 1, 0))
        print(f"\n{bots} bots (a round-robin: {full} matches)")
        print(f"{'format':40} {'matches':>8} {'% of RR':>8} {'tau':>6} {'top 10':>7} {'s':>5}")
        for duplicate in [d == "yes" for d in args.duplicate.split(",")]:
            tag = " duplicate" if duplicate else ""
            runs = {
                "round-robin": lambda field, seed: run_round_robin(field, bots, args.players, duplicate, seed),
                "swiss": lambda field, seed: run_swiss(field, bots, args.players, duplicate, seed, swiss_checkpoints),
                "swiss+finals": lambda field, seed: run_swiss_finals(field, bots, args.players, duplicate, seed,
                                                                     finals),
                "ladder": lambda field, seed: run_ladder(field, bots, args.players, duplicate, seed,
                                                         [max(1, int(s * full)) for s in ladder_shares]),
                "oracle": lambda field, seed: run_oracle(field, bots, args.players, duplicate, seed, oracle_sizes,
                                                         int(args.budget * full)),
            }
            for name in wanted:
                run = runs[name]
                started = time.monotonic()
                results: dict[int, list] = {}
                for seed in range(args.first_seed, args.first_seed + args.seeds):
                    field = make_field(args, bots, seed, model)
                    for step, (count, order, *reached) in enumerate(run(field, seed)):
                        results.setdefault(step, []).append((count, *score(order, bots), *reached))
                    field.close()
                for step, values in results.items():
                    count = np.mean([v[0] for v in values])
                    label = name + tag
                    if name == "swiss+finals":
                        rounds, stages = finals[step]
                        label += f" {rounds}r " + ",".join(f"{a}x{b}" for a, b in stages)
                    elif name == "swiss":
                        label += f" {swiss_checkpoints[step]} rounds"
                    elif name == "oracle":
                        label += f" top {oracle_sizes[step]} known"
                    taus, tops = [v[1] for v in values], [v[2] for v in values]
                    tau = "   n/a" if name == "oracle" else f"{np.mean(taus):>6.3f}"  # the rest is unranked
                    print(f"{label:40} {count:>8.0f} {100 * count / full:>7.1f}% {tau}"
                          f" {np.mean(tops):>7.2f} {time.monotonic() - started:>5.0f}"
                          f"  per seed: {' '.join(str(t) for t in tops)}"
                          + (f"; true top 10 in the last final: {' '.join(str(v[3]) for v in values)}"
                             if len(values[0]) > 3 else ""), flush=True)


if __name__ == "__main__":
    main()
