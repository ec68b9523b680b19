"""How many matches a ranking needs: arena's own formats on synthetic bots of known strength.

Usage: python bench/ranking.py [--bots 50,200] [--players 2] [--seeds 3] [--spread 1000]
                               [--luck 1.0] [--swiss 5,10,20,40] [--ladder 0.025,0.05,0.1,0.2]

Bots: strengths evenly spread over ``--spread`` Elo. A match is played without processes:
each seat's performance is its strength (natural-log scale) + the deal's luck for that seat
(normal, sd ``--luck``: the cards, the first move) + Gumbel noise, and seats rank by
performance — Plackett–Luce when there is no deal luck. Duplicate deals give the same luck to
the same seat of each match of a set, so it cancels between the seatings.

Formats are arena's own planners, in process: round-robin (`formats.roundrobin.round_robin`),
Swiss (`plans.Swiss`, several numbers of rounds) and ladder (`plans.Ladder` on TrueSkill, with
several match budgets as fractions of a round-robin), each without and with duplicate deals.
Also a Swiss followed by a round-robin of its top N (a second tournament: its finalists placed
first, in the order of that final's own refit). Every run is ranked by the final-standings
refit (`arena.results.refit.ratings`) and scored against the truth: Kendall τ, and how many of the true top 10 are in its top 10. Prints one
line per format and budget, mean over ``--seeds`` seeds.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np

from arena.results import ratings as trueskill_ratings
from arena.results import refit, statistics
from arena.results.ratings import MU, SIGMA
from arena.tournament.formats.roundrobin import round_robin
from arena.tournament.plans import Ladder, Stored, Swiss

ELO = 400 / math.log(10)


class Field:
    """Synthetic bots and the matches they play."""

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


def score(matches: list[list[refit.Seat]], bots: int, final: tuple[list[int], list] | None = None) -> tuple[float, int]:
    """Kendall τ of the refit order against the truth, and the true top 10 in its top 10.
    With ``final`` (finalists, their final's matches) the finalists come first, in the order
    of the final's own refit (what an organiser running the final as a tournament gets)."""
    from scipy.stats import kendalltau

    fitted = refit.ratings(matches, list(range(bots)))
    order = sorted(range(bots), key=lambda b: -fitted[b])
    if final is not None:
        order = final[2]  # each stage's finalists in the order of its own refit
    place = {b: -i for i, b in enumerate(order)}
    tau = kendalltau(np.arange(bots), [place[b] for b in range(bots)])[0]
    return float(tau), len(set(order[:10]) & set(range(bots - 10, bots)))


def seats_of(seats: tuple[int, ...], ranks: list[int]) -> list[refit.Seat]:
    return [refit.Seat(b, r) for b, r in zip(seats, ranks)]


def run_round_robin(field: Field, bots: int, players: int, duplicate: bool, seed: int):
    matches = [seats_of(m.seats, field.play(m.seats, m.deal)) for m in round_robin(bots, players, 1, seed, duplicate)]
    yield len(matches), matches, None


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


def run_swiss(field: Field, bots: int, players: int, duplicate: bool, seed: int, checkpoints: list[int]):
    plan = Swiss(players, max(checkpoints), duplicate, seed)
    rows, matches, next_deal = [], [], 0
    for number in range(max(checkpoints)):
        for m in plan._round(_stored(bots, rows, len(matches), next_deal, number), number):
            ranks = field.play(m.seats, m.deal)
            rows += _rows(len(matches), number, m.seats, m.deal, ranks)
            matches.append(seats_of(m.seats, ranks))
            next_deal = max(next_deal, m.deal + 1)
        if number + 1 in checkpoints:
            yield len(matches), matches, None


def run_swiss_then_final(field: Field, bots: int, players: int, duplicate: bool, seed: int,
                         stages: list[tuple[int, int, int]]):
    """For each (swiss rounds, finalists, final rounds): a Swiss, then a round-robin of the
    top ``finalists`` by the refit of the Swiss (a second tournament)."""
    for rounds, *finals in stages:
        *_, (count, matches, _) = run_swiss(field, bots, players, duplicate, seed, [rounds])
        matches = list(matches)
        order = sorted(range(bots), key=lambda b: -refit.ratings(matches, list(range(bots)))[b])
        played = len(matches)
        all_matches = list(matches)
        for stage, (finalists, final_rounds) in enumerate(zip(finals[::2], finals[1::2])):
            top = order[:finalists]
            final = []
            for m in round_robin(finalists, players, final_rounds, seed + stage, duplicate):
                seats = tuple(top[p] for p in m.seats)
                final.append(seats_of(seats, field.play(seats, 10_000_000 * (stage + 1) + m.deal)))
            played += len(final)
            all_matches += final
            in_final = refit.ratings(final, top)
            order = sorted(top, key=lambda b: -in_final[b]) + order[finalists:]
        yield played, all_matches, (order[:finals[-2]], None, order)


def run_ladder(field: Field, bots: int, players: int, duplicate: bool, seed: int, budgets: list[int]):
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
        for m in planned:
            ranks = field.play(m.seats, m.deal)
            matches.append(seats_of(m.seats, ranks))
            next_deal = max(next_deal, m.deal + 1)
            after = trueskill_ratings.rate([ratings[b][:2] for b in m.seats], ranks)
            for b, (mu, sigma) in zip(m.seats, after):
                ratings[b] = (mu, sigma, ratings[b][2] + 1)
            if pending and len(matches) >= pending[0]:
                pending.pop(0)
                yield len(matches), matches, None
        batch += 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bots", default="50,200")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--spread", type=float, default=1000.0)
    parser.add_argument("--luck", type=float, default=1.0)
    parser.add_argument("--swiss", default="5,10,20,40")
    parser.add_argument("--ladder", default="0.025,0.05,0.1,0.2")
    parser.add_argument("--final", default="10:30:1,10:30:2,10:20:3",
                        help="Swiss then final round-robins: ROUNDS:FINALISTS:FINAL_ROUNDS[:FINALISTS:ROUNDS...],...")
    parser.add_argument("--no-duplicate", action="store_true", help="Only the formats without duplicate deals.")
    parser.add_argument("--combined", action="store_true",
                        help="Swiss+final: rank by the refit of both stages' matches together.")
    parser.add_argument("--formats", default="round-robin,swiss,swiss+final,ladder")
    args = parser.parse_args()
    swiss_rounds = [int(x) for x in args.swiss.split(",")]
    ladder_shares = [float(x) for x in args.ladder.split(",")]
    finals = [tuple(int(x) for x in stage.split(":")) for stage in args.final.split(",")]
    wanted = args.formats.split(",")
    print(f"{args.players}-player matches; strengths evenly over {args.spread:.0f} Elo; deal luck sd {args.luck};"
          f" {args.seeds} seeds; ranked by the refit")
    for bots in (int(x) for x in args.bots.split(",")):
        full = len(round_robin(bots, args.players, 1, 0))
        print(f"\n{bots} bots (a round-robin: {full} matches)")
        print(f"{'format':32} {'matches':>8} {'% of RR':>8} {'tau':>6} {'top 10':>7} {'s':>5}")
        for duplicate in ([False] if args.no_duplicate else [False, True]):
            tag = " duplicate" if duplicate else ""
            runs = {
                f"round-robin{tag}": lambda field, seed: run_round_robin(field, bots, args.players, duplicate, seed),
                f"swiss{tag}": lambda field, seed: run_swiss(field, bots, args.players, duplicate, seed, swiss_rounds),
                f"swiss+final{tag}": lambda field, seed: run_swiss_then_final(field, bots, args.players, duplicate,
                                                                           seed, finals),
                f"ladder{tag}": lambda field, seed: run_ladder(field, bots, args.players, duplicate, seed,
                                                            [max(1, int(s * full)) for s in ladder_shares]),
            }
            for name, run in runs.items():
                if name.replace(" duplicate", "") not in wanted:
                    continue
                started = time.monotonic()
                results: dict[int, list] = {}
                for seed in range(args.seeds):
                    field = Field(bots, args.spread, args.luck if not duplicate or args.players else args.luck, seed)
                    for step, (count, matches, final) in enumerate(run(field, seed)):
                        results.setdefault(step, []).append(
                            (count, *score(matches, bots, None if args.combined else final)))
                for step, values in results.items():
                    count = np.mean([v[0] for v in values])
                    label = name
                    if name.startswith("swiss+final"):
                        rounds, *rest = finals[step]
                        label += f" {rounds}r" + "".join(f", top {a} x{b}" for a, b in zip(rest[::2], rest[1::2]))
                    elif name.startswith("swiss"):
                        label += f" {swiss_rounds[step]} rounds"
                    print(f"{label:32} {count:>8.0f} {100 * count / full:>7.1f}% {np.mean([v[1] for v in values]):>6.3f}"
                          f" {np.mean([v[2] for v in values]):>7.1f} {time.monotonic() - started:>5.0f}", flush=True)


if __name__ == "__main__":
    main()
