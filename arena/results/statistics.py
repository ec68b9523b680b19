"""Statistics over stored matches: standings by points, rank confidence (a bootstrap over
matches), head-to-head tables, results per seat, duplicate sets, and the SPRT.

Points: a match gives a seat ``(places - rank) / (places - 1)`` — 1 for first, 0 for last,
evenly between; seats tied at a rank share the places they cover (a two-player draw is 0.5
each) — where ``places`` is the number of seats (of teams, in team games).
"""

from __future__ import annotations

import json
import math
import random
import statistics as stats
from dataclasses import dataclass

from arena.results.store import Store


def points(rank: int, places: int, tied: int = 1) -> float:
    """A rank's points: 1 for first, 0 for last, evenly between; ``tied`` seats sharing the
    rank share the places they cover (two tied players both get 0.5)."""
    if places <= 1:
        return 0.5
    covered = range(rank, min(rank + tied, places + 1))
    return sum((places - place) / (places - 1) for place in covered) / len(covered)


@dataclass
class SeatRow:
    match_id: int
    schedule_index: int
    round: int
    deal: int | None
    seat: int
    version: int           # bot_version_id
    rank: int
    score: float
    status: str
    places: int
    points: float = 0.0    # its match points (see the module docstring)


def seat_rows(store: Store, tournament_id: int) -> list[SeatRow]:
    """Every seat of the tournament's finished matches, in schedule order."""
    rows = store.query(
        "SELECT m.id, m.schedule_index, m.round, m.deal, m.players, m.teams, s.seat, s.bot_version_id, s.rank,"
        " s.score, s.status FROM matches m JOIN match_seats s ON s.match_id = m.id"
        " WHERE m.tournament_id = ? AND m.status = 'finished' ORDER BY m.schedule_index, s.seat", [tournament_id])
    result = []
    for row in rows:
        teams = row["teams"]
        places = len(json.loads(teams)) if teams else row["players"]
        result.append(SeatRow(row["id"], row["schedule_index"], row["round"], row["deal"], row["seat"],
                              row["bot_version_id"], row["rank"], row["score"], row["status"], places))
    for match in by_match(result):
        seats_per_place = max(1, len(match) // match[0].places)  # teammates share their team's rank
        tied: dict[int, int] = {}
        for row in match:
            tied[row.rank] = tied.get(row.rank, 0) + 1
        for row in match:
            row.points = points(row.rank, row.places, max(1, tied[row.rank] // seats_per_place))
    return result


def by_match(rows: list[SeatRow]) -> list[list[SeatRow]]:
    matches: dict[int, list[SeatRow]] = {}
    for row in rows:
        matches.setdefault(row.match_id, []).append(row)
    return list(matches.values())


def rank_intervals(rows: list[SeatRow], versions: list[int], samples: int = 200, seed: int = 0,
                   level: float = 0.9) -> dict[int, tuple[int, int]]:
    """For each version, the range of ranks (by mean points) it takes in ``level`` of
    bootstrap resamples of the matches: how sure its place is."""
    matches = by_match(rows)
    if not matches:
        return {v: (1, len(versions)) for v in versions}
    rng = random.Random(seed)
    index = {v: i for i, v in enumerate(versions)}
    per_match = [[(index[r.version], r.points) for r in match if r.version in index] for match in matches]
    placed: dict[int, list[int]] = {v: [] for v in versions}
    for _ in range(samples):
        totals = [0.0] * len(versions)
        counts = [0] * len(versions)
        for _ in range(len(per_match)):
            for i, value in per_match[rng.randrange(len(per_match))]:
                totals[i] += value
                counts[i] += 1
        means = [totals[i] / counts[i] if counts[i] else -1.0 for i in range(len(versions))]
        order = sorted(range(len(versions)), key=lambda i: -means[i])
        for place, i in enumerate(order, 1):
            placed[versions[i]].append(place)
    low_q, high_q = (1 - level) / 2, 1 - (1 - level) / 2
    result = {}
    for version, places in placed.items():
        places.sort()
        result[version] = (places[int(low_q * (len(places) - 1))], places[int(math.ceil(high_q * (len(places) - 1)))])
    return result


def head_to_head(rows: list[SeatRow]) -> dict[tuple[int, int], dict]:
    """For each ordered pair (a, b) of versions that met: a's wins, draws and losses against b
    (better, equal, worse rank in the same match) and the mean of b's rank minus a's."""
    table: dict[tuple[int, int], dict] = {}
    for match in by_match(rows):
        for a in match:
            for b in match:
                if a.version == b.version:
                    continue
                cell = table.setdefault((a.version, b.version), {"wins": 0, "draws": 0, "losses": 0, "diff": 0.0,
                                                                 "matches": 0})
                cell["matches"] += 1
                cell["diff"] += b.rank - a.rank
                if a.rank < b.rank:
                    cell["wins"] += 1
                elif a.rank == b.rank:
                    cell["draws"] += 1
                else:
                    cell["losses"] += 1
    for cell in table.values():
        cell["rank_difference"] = cell.pop("diff") / cell["matches"]
    return table


def per_seat(rows: list[SeatRow]) -> list[dict]:
    """Results by seat: matches, mean points, first places — the first-player advantage."""
    seats: dict[int, list[SeatRow]] = {}
    for row in rows:
        seats.setdefault(row.seat, []).append(row)
    return [{"seat": seat, "matches": len(items), "mean_points": stats.fmean(r.points for r in items),
             "first_places": sum(1 for r in items if r.rank == 1)} for seat, items in sorted(seats.items())]


def duplicate_sets(rows: list[SeatRow]) -> dict[int, list[list[SeatRow]]]:
    """Finished matches grouped by deal (the sets of a duplicate tournament)."""
    sets: dict[int, list[list[SeatRow]]] = {}
    for match in by_match(rows):
        deal = match[0].deal if match[0].deal is not None else match[0].schedule_index
        sets.setdefault(deal, []).append(match)
    return sets


def set_difference(matches: list[list[SeatRow]], a: int, b: int) -> float:
    """Version a's total score minus version b's over a set of matches."""
    total = 0.0
    for match in matches:
        for row in match:
            if row.version == a:
                total += row.score
            elif row.version == b:
                total -= row.score
    return total


# ---- SPRT ------------------------------------------------------------------------------------

def elo_to_score(elo: float) -> float:
    """The expected score of a bot ``elo`` points stronger (logistic Elo)."""
    return 1 / (1 + 10 ** (-elo / 400))


def score_to_elo(score: float) -> float:
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400 * math.log10(1 / score - 1)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """The log-likelihood-ratio bounds: accept H0 at or below the first, H1 at or above the second."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def llr(pair_scores: list[float], elo0: float, elo1: float, players: int = 2) -> float:
    """The generalized SPRT's exact log-likelihood ratio of H1 (elo1) against H0 (elo0) for the
    scores of independent pairs (each from 0 to 1), from their empirical distribution (see
    `arena.results.gsprt`)."""
    from arena.results import gsprt as sprt  # NumPy: loaded only where a test is computed

    return sprt.llr(pair_scores, elo0, elo1, players)


def sprt_decision(pair_scores: list[float], elo0: float, elo1: float, alpha: float,
                  beta: float, players: int = 2) -> tuple[str | None, int, float]:
    """Run the SPRT over the pairs in order; returns (verdict or None, pairs used, LLR).

    The verdict is "H1" or "H0" at the first pair where the exact LLR reaches a bound; with
    more than two players the pairs' possible scores are finer (see `sprt.pair_values`)."""
    from arena.results import gsprt as sprt

    return sprt.decision(pair_scores, elo0, elo1, alpha, beta, players)
