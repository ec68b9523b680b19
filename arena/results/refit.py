"""Final standings refit from all of a tournament's matches at once, independent of their order.

TrueSkill, the live rating, is updated match by match, so the order of the same results moves
close bots. The refit instead finds the strengths that make the finished matches, all taken
together, most likely under the Plackett–Luce model (Bradley–Terry when two play): a bot of
strength γ finishes ahead of a set of others with probability γ / (γ + Σ theirs), place after
place. Each match adds, for every rank from the first:

* each bot at that rank chosen ahead of every bot ranked below it (counted twice);
* bots tied at that rank (not teammates): half a win each way — one "a before b" and one
  "b before a" — as a two-player draw counts half a win in Bradley–Terry.

Teammates share their team's rank and are not compared with each other. Every bot also draws
one virtual match against a fixed reference bot (one win, one loss) so that a bot that won or
lost everything still has a finite strength. The fit is `choix.ilsr_top1` (iterative Luce
spectral ranking); ratings are reported on the Elo scale (400 log10 γ), the field's mean at 0.

Confidence comes from a bootstrap: the matches are resampled with replacement ``samples``
times (a fixed seed; the matches put in a canonical order first, so the result never depends
on the order they were stored in) and refitted (a weighted minorize-maximize fit of the same
likelihood, started from the full fit: a resample repeats matches, which choix cannot weight).
Each bot gets the 95 % range of its rating and of its rank over the resamples, and its band:
1 + the number of bots ahead of it in at least 95 % of the resamples (the best place it can
claim). Bots with the same band cannot be told apart at 95 %: a tied band.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from arena.results.store import Store

ELO_PER_NATURAL_LOG = 400 / math.log(10)
SAMPLES = 200
SEED = 0
LEVEL = 0.95
CHUNK = 25        # resamples fitted together


@dataclass
class Standing:
    version: int                 # bot_version_id
    rank: int
    rating: float                # Elo scale, the field's mean at 0
    rating_interval: tuple[float, float]
    rank_interval: tuple[int, int]
    band: int                    # 1 + the bots surely (95 %) ahead of it
    matches: int


@dataclass
class Seat:
    version: int
    rank: int
    team: int | None = None


@dataclass
class Events:
    """The fit's data: choices of a winner from a set, with their weights, per match."""
    winners: list[int] = field(default_factory=list)
    sets: list[tuple[int, ...]] = field(default_factory=list)     # the winner first
    weights: list[float] = field(default_factory=list)
    match_of: list[int] = field(default_factory=list)


def match_events(seats: list[Seat]) -> list[tuple[int, tuple[int, ...], float]]:
    """A match's choices (winner, choice set with the winner first, weight) over item indexes
    (see the module docstring)."""
    events = []
    for seat in seats:
        below = tuple(other.version for other in seats if other.rank > seat.rank)
        if below:
            events.append((seat.version, (seat.version, *below), 1.0))
    for i, a in enumerate(seats):
        for b in seats[i + 1:]:
            if a.rank == b.rank and (a.team is None or a.team != b.team):
                events.append((a.version, (a.version, b.version), 0.5))
                events.append((b.version, (b.version, a.version), 0.5))
    return events


def canonical(matches: list[list[Seat]]) -> list[list[Seat]]:
    """The matches in an order that depends only on their content."""
    keyed = [sorted(match, key=lambda s: (s.rank, s.version, -1 if s.team is None else s.team)) for match in matches]
    return sorted(keyed, key=lambda m: [(s.rank, s.version, -1 if s.team is None else s.team) for s in m])


def _events(matches: list[list[Seat]], index: dict[int, int]) -> Events:
    events = Events()
    reference = len(index)
    for number, match in enumerate(matches):
        seats = [Seat(index[s.version], s.rank, s.team) for s in match]
        for winner, choice, weight in match_events(seats):
            events.winners.append(winner)
            events.sets.append(choice)
            events.weights.append(weight)
            events.match_of.append(number)
    for item in range(reference):  # the virtual match against the reference
        for winner, choice in ((item, (item, reference)), (reference, (reference, item))):
            events.winners.append(winner)
            events.sets.append(choice)
            events.weights.append(0.5)
            events.match_of.append(-1)
    return events


def _choix_fit(items: int, events: Events, start: np.ndarray | None = None) -> np.ndarray:
    """Log-strengths by choix: weights 1 and ½ become two copies and one. ``start`` (say the
    minorize-maximize fit) saves choix most of its iterations, each a Python loop over the
    choices."""
    import choix

    data = []
    for winner, choice, weight in zip(events.winners, events.sets, events.weights):
        data.extend([(winner, choice[1:])] * int(round(2 * weight)))
    return choix.ilsr_top1(items + 1, data, alpha=0.0, initial_params=start, max_iter=1000, tol=1e-10)


def _fit(items: int, events: Events) -> np.ndarray:
    """The full data's log-strengths: choix's, started from the minorize-maximize fit."""
    incidence = _incidence(items, events)
    start = mm_fit(incidence, np.array(events.winners), np.array(events.weights), np.zeros(items + 1),
                   tolerance=1e-10)
    return _choix_fit(items, events, start - start.mean())


def _incidence(items: int, events: Events):
    from scipy.sparse import csr_matrix

    rows = [e for e, choice in enumerate(events.sets) for _ in choice]
    columns = [item for choice in events.sets for item in choice]
    return csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(len(events.sets), items + 1))


def mm_fit(incidence, winners: np.ndarray, weights: np.ndarray, start: np.ndarray,
           tolerance: float = 1e-9, max_steps: int = 2000) -> np.ndarray:
    """Log-strengths maximizing the weighted Plackett–Luce likelihood of the choices (Hunter's
    minorize-maximize iteration, sped up by SQUAREM extrapolation), starting from ``start``.
    ``weights`` may have a column per resample (events × samples): then every column is
    fitted at once, one column of the result each."""
    from scipy.sparse import csr_matrix

    single = weights.ndim == 1
    weights = weights[:, None] if single else weights
    items = incidence.shape[1]
    won = csr_matrix((np.ones(len(winners)), (np.arange(len(winners)), winners)), shape=(len(winners), items))
    wins = np.asarray(won.T @ weights)
    transposed = incidence.T.tocsr()

    def step(log_strength: np.ndarray) -> np.ndarray:
        strength = np.exp(log_strength - log_strength[-1])  # the reference stays at 1
        new = wins / (transposed @ (weights / (incidence @ strength)))
        return np.log(new / new[-1])

    current = np.repeat((start - start[-1])[:, None], weights.shape[1], axis=1)
    for _ in range(max_steps):
        first = step(current)
        second = step(first)
        r, v = first - current, second - 2 * first + current
        alpha = -np.sqrt((r * r).sum(0)) / np.maximum(np.sqrt((v * v).sum(0)), 1e-300)
        alpha = np.minimum(alpha, -1.0)  # never shorter than a plain step
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            jumped = step(current - 2 * alpha * r + alpha * alpha * v)
        if not np.all(np.isfinite(jumped)):  # extrapolated too far: keep the plain steps
            jumped = second
        change = np.max(np.abs(jumped - current))
        current = jumped
        if change < tolerance:
            break
    return current[:, 0] if single else current


def _elo(log_strengths: np.ndarray) -> np.ndarray:
    ratings = log_strengths[:-1] * ELO_PER_NATURAL_LOG
    return ratings - ratings.mean()


def _prepared(matches: list[list[Seat]], versions: list[int]) -> tuple[list[list[Seat]], dict[int, int], Events]:
    index = {v: i for i, v in enumerate(versions)}
    matches = canonical([[s for s in m if s.version in index] for m in matches])
    matches = [m for m in matches if len(m) >= 2]
    return matches, index, _events(matches, index)


def ratings(matches: list[list[Seat]], versions: list[int]) -> dict[int, float]:
    """Each version's refit rating (Elo scale, mean 0), without the bootstrap."""
    if not versions:
        return {}
    _, _, events = _prepared(matches, versions)
    return dict(zip(versions, (float(r) for r in _elo(_fit(len(versions), events)))))


def refit(matches: list[list[Seat]], versions: list[int], samples: int = SAMPLES, seed: int = SEED,
          level: float = LEVEL) -> list[Standing]:
    """The standings of ``versions`` from ``matches`` (each a list of seats), best first."""
    if not versions:
        return []
    matches, index, events = _prepared(matches, versions)
    played = np.zeros(len(versions), int)
    for match in matches:
        for seat in {s.version for s in match}:
            played[index[seat]] += 1
    full = _fit(len(versions), events)
    ratings = _elo(full)
    order = sorted(range(len(versions)), key=lambda i: (-ratings[i], versions[i]))

    rng = np.random.default_rng(seed)
    incidence = _incidence(len(versions), events)
    winners = np.array(events.winners)
    base = np.array(events.weights)
    match_of = np.array(events.match_of)
    resampled = np.zeros((samples, len(versions)))
    for first in range(0, samples, CHUNK):
        columns = []
        for _ in range(first, min(samples, first + CHUNK)):
            picks = np.bincount(rng.integers(0, len(matches), len(matches)), minlength=len(matches)) if matches \
                else np.zeros(0)
            columns.append(base * np.where(match_of >= 0, picks[np.maximum(match_of, 0)] if matches else 0, 1))
        fitted = mm_fit(incidence, winners, np.stack(columns, axis=1), full - full[-1], tolerance=1e-7)
        for offset in range(fitted.shape[1]):
            resampled[first + offset] = _elo(fitted[:, offset])
    from scipy.stats import rankdata

    ranks = rankdata(-np.round(resampled, 6), method="min", axis=1)  # equal ratings share the better rank
    ahead = (resampled[:, :, None] > resampled[:, None, :]).mean(axis=0)  # [j, i]: j ahead of i
    surely_ahead = (ahead >= level).sum(axis=0)
    tail = (1 - level) / 2
    standings = []
    for place, i in enumerate(order, 1):
        band = 1 + int(surely_ahead[i])
        low, high = np.quantile(resampled[:, i], [tail, 1 - tail])
        rank_low, rank_high = np.quantile(ranks[:, i], [tail, 1 - tail], method="inverted_cdf")
        standings.append(Standing(versions[i], place, float(ratings[i]), (float(low), float(high)),
                                  (int(rank_low), int(rank_high)), band, int(played[i])))
    return standings


def tournament_matches(store: Store, tournament_id: int) -> list[list[Seat]]:
    """The seats (version, rank, team) of the tournament's finished matches."""
    matches: dict[int, list[Seat]] = {}
    for row in store.query(
            "SELECT s.match_id, s.bot_version_id, s.rank, s.team FROM match_seats s JOIN matches m ON m.id = s.match_id"
            " WHERE m.tournament_id = ? AND m.status = 'finished'", [tournament_id]):
        matches.setdefault(row["match_id"], []).append(Seat(row["bot_version_id"], row["rank"], row["team"]))
    return list(matches.values())


def tournament_refit(store: Store, tournament_id: int, samples: int = SAMPLES) -> list[Standing]:
    """The refit standings of a tournament's entries (see the module docstring)."""
    versions = [e["bot_version_id"] for e in store.tournament_entries(tournament_id)]
    return refit(tournament_matches(store, tournament_id), versions, samples)
