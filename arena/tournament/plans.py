"""Plans: what a tournament plays first, and — for formats that plan as they go — what next.

* round-robin, gauntlet: everything at creation; nothing after.
* swiss: ``rounds`` rounds; each grouped by standing so far (mean points), groups of the
  game's player count, no group played twice while another grouping avoids it; an entry left
  over sits the round out (the one lowest in the standing with the fewest byes so far). Then
  its ``finals``, if any: round-robins of the leaders (`arena.tournament.finals`).
* ladder: batches of ``batch`` groups, planned from the current ratings: the entry with the
  fewest matches first, against entries of close rating (Halite's way); entries may be added
  or withdrawn while it runs. It stops after ``max_matches`` matches or, with
  ``until_stable``, when the first ``top`` places have kept their order for
  ``stable_batches`` batches and every entry's σ is under ``sigma_bound``.
* sprt: batches of ``batch`` duplicate pairs of the new (entry 0) against the old version
  (entry 1) — on the same deal, in the same seats (against the same field bots with more
  than two players) — until the SPRT accepts H0 or H1, or ``max_matches`` is reached.

`Plan.next_batch` is asked only when every match planned so far is stored, so each step
depends on results alone (never on timing or the number of workers), and `resume` goes on
with the same plan. ``report`` is a line saying where a plan is (shown as it runs).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from dataclasses import field as dataclass_field

from arena.results import sprt, statistics
from arena.results.ratings import MU, SIGMA
from arena.results.store import Store
from arena.tournament import finals
from arena.tournament.formats import ScheduledMatch, seatings

LADDER_BATCH = 16
SPRT_BATCH = 8
SPRT_MAX_MATCHES = 20_000


@dataclass
class Stored:
    """What a plan sees of its tournament: entries, finished results, what was scheduled."""

    tournament: dict
    entries: list[dict]                    # with position, bot_version_id, withdrawn
    rows: list[statistics.SeatRow]         # seats of finished matches
    scheduled: int                         # matches scheduled so far
    next_deal: int
    rounds: int                            # rounds (steps) scheduled so far
    pending_deals: set = dataclass_field(default_factory=set)   # deals with a match not yet played
    error_deals: set = dataclass_field(default_factory=set)     # deals with a match the harness failed

    @property
    def config(self) -> dict:
        return self.tournament["config"]

    def position_of(self) -> dict[int, int]:
        return {e["bot_version_id"]: e["position"] for e in self.entries}

    def active(self) -> list[int]:
        return [e["position"] for e in self.entries if not e["withdrawn"]]


def look(store: Store, tournament_id: int) -> Stored:
    tournament = store.tournament(tournament_id)
    row = store.one("SELECT COUNT(*) AS n, COALESCE(MAX(deal), -1) AS deal, COALESCE(MAX(round), -1) AS round"
                    " FROM matches WHERE tournament_id = ?", [tournament_id])
    unfinished = store.query("SELECT DISTINCT deal, status FROM matches WHERE tournament_id = ?"
                             " AND status != 'finished' AND deal IS NOT NULL", [tournament_id])
    return Stored(tournament, store.tournament_entries(tournament_id), statistics.seat_rows(store, tournament_id),
                  row["n"], row["deal"] + 1, row["round"] + 1,
                  {r["deal"] for r in unfinished if r["status"] == "pending"},
                  {r["deal"] for r in unfinished if r["status"] == "error"})


class Plan:
    """A format that plans everything at creation."""

    def next_batch(self, stored: Stored) -> tuple[list[ScheduledMatch], dict | None] | None:
        return None

    def report(self, stored: Stored) -> str | None:
        return None

    def keep(self, store: Store, tournament_id: int) -> None:
        """Store what the plan tracks besides its matches (the SPRT's state), after a step."""


def numbered(stored: Stored, matches: list[tuple[tuple[int, ...], int]], round_number: int) -> list[ScheduledMatch]:
    return [ScheduledMatch(stored.scheduled + i, round_number, seats, deal) for i, (seats, deal) in enumerate(matches)]


# ---- Swiss ------------------------------------------------------------------------------------

class Swiss(Plan):
    """``rounds`` Swiss rounds, then its ``finals`` if any (`arena.tournament.finals`)."""

    def __init__(self, players: int, rounds: int, duplicate: bool, seed: int, finals: list | None = None):
        self.players, self.rounds, self.duplicate, self.seed = players, rounds, duplicate, seed
        self.finals = finals or []

    def first_round(self, entries: int) -> list[ScheduledMatch]:
        stored = Stored({"config": {}}, [{"position": p, "bot_version_id": p, "withdrawn": 0} for p in range(entries)],
                        [], 0, 0, 0)
        return self._round(stored, 0)

    def next_batch(self, stored: Stored):
        if finals.finalists_so_far(stored.tournament.get("format_state")) or stored.rounds >= self.rounds:
            return finals.next_final(stored, self.finals, self.players, self.duplicate, self.seed)
        return self._round(stored, stored.rounds), None

    def _round(self, stored: Stored, number: int) -> list[ScheduledMatch]:
        rng = random.Random(f"arena-swiss:{self.seed}:{number}")
        position = stored.position_of()
        totals: dict[int, list[float]] = {p: [] for p in stored.active()}
        played: set[frozenset] = set()
        byes: dict[int, int] = {p: 0 for p in totals}
        for match in statistics.by_match(stored.rows):
            members = [position[row.version] for row in match]
            played.add(frozenset(members))
            for row in match:
                if position[row.version] in totals:
                    totals[position[row.version]].append(row.points)
        for earlier in range(number):
            seen = {position[row.version] for row in stored.rows if row.round == earlier}
            for entry in totals:
                if seen and entry not in seen:
                    byes[entry] += 1
        tiebreak = {p: rng.random() for p in totals}
        standing = sorted(totals, key=lambda p: (-(sum(totals[p]) / len(totals[p])) if totals[p] else 0.0,
                                                 tiebreak[p]))
        left_over = len(standing) % self.players
        sitting = sorted(reversed(standing), key=lambda p: byes[p])[:left_over]
        pool = [p for p in standing if p not in sitting]
        groups = self._group(pool, played)
        matches = []
        deal = stored.next_deal
        for group in groups:
            for seats in seatings(group, self.duplicate):
                matches.append((seats, deal))
                if not self.duplicate:
                    deal += 1
            if self.duplicate:
                deal += 1
        return numbered(stored, matches, number)

    SEARCH_BUDGET = 20_000

    def _group(self, pool: list[int], played: set) -> list[tuple[int, ...]]:
        """Groups of ``players`` in standing order, the closest in the standing together, with
        no group that has played before if any grouping avoids it (a bounded search; past its
        budget, greedily with as few repeats as it finds)."""
        budget = [self.SEARCH_BUDGET]
        k = self.players

        def search(remaining: list[int]) -> list[tuple[int, ...]] | None:
            if not remaining:
                return []
            first, rest = remaining[0], remaining[1:]
            for others in itertools.combinations(rest[:k - 1 + 8], k - 1):
                budget[0] -= 1
                if budget[0] < 0:
                    return None
                group = (first, *others)
                if frozenset(group) in played:
                    continue
                tail = search([p for p in rest if p not in others])
                if tail is not None:
                    return [group] + tail
            return None

        found = search(pool)
        if found is not None:
            return found
        groups, remaining = [], list(pool)
        while remaining:
            first, rest = remaining[0], remaining[1:]
            choice = next((others for others in itertools.combinations(rest[:k - 1 + 8], k - 1)
                           if frozenset((first, *others)) not in played), tuple(rest[:k - 1]))
            groups.append((first, *choice))
            remaining = [p for p in rest if p not in choice]
        return groups

    def report(self, stored: Stored) -> str | None:
        final = finals.report(stored, self.rounds, self.finals)
        return f"swiss: {final or f'round {stored.rounds} of {self.rounds} planned'}"


# ---- ladder ---------------------------------------------------------------------------------------

class Ladder(Plan):
    def __init__(self, players: int, duplicate: bool, seed: int, batch: int | None, max_matches: int | None,
                 until_stable: bool, top: int, stable_batches: int, sigma_bound: float):
        self.players, self.duplicate, self.seed = players, duplicate, seed
        self.batch = batch or LADDER_BATCH
        self.max_matches, self.until_stable = max_matches, until_stable
        self.top, self.stable_batches, self.sigma_bound = top, stable_batches, sigma_bound

    def next_batch(self, stored: Stored, ratings: dict | None = None):
        ratings = ratings if ratings is not None else {}
        state = dict(stored.tournament.get("format_state") or {})
        tops = list(state.get("tops", []))
        active = stored.active()
        if len(active) < self.players:
            return None
        if stored.scheduled:
            order = sorted(active, key=lambda p: -(ratings.get(p, (MU, SIGMA, 0))[0]
                                                  - 3 * ratings.get(p, (MU, SIGMA, 0))[1]))
            tops.append(order[:self.top])
            state["tops"] = tops[-(self.stable_batches + 1):]
            if self._stable(tops, active, ratings):
                state["stopped"] = "stable"
                return [], state
        if self.max_matches is not None and stored.scheduled >= self.max_matches:
            state["stopped"] = "max_matches"
            return [], state
        if self.max_matches is None and not self.until_stable:
            return None
        rng = random.Random(f"arena-ladder:{self.seed}:{stored.rounds}")
        counts = {p: ratings.get(p, (MU, SIGMA, 0))[2] for p in active}
        tiebreak = {p: rng.random() for p in active}
        matches = []
        deal = stored.next_deal
        room = self.batch if self.max_matches is None else min(self.batch, self.max_matches - stored.scheduled)
        while len(matches) < room:
            first = min(active, key=lambda p: (counts[p], tiebreak[p]))
            mu = ratings.get(first, (MU, SIGMA, 0))[0]
            others = sorted((p for p in active if p != first),
                            key=lambda p: (abs(ratings.get(p, (MU, SIGMA, 0))[0] - mu), tiebreak[p]))
            # Of the closest in rating, those with the fewest matches (ties drawn at random).
            near = sorted(others[:2 * (self.players - 1) + 2], key=lambda p: (counts[p], tiebreak[p]))
            chosen = near[:self.players - 1]
            group = [first, *chosen]
            rng.shuffle(group)
            for seats in (seatings(tuple(group), True) if self.duplicate else [tuple(group)]):
                matches.append((seats, deal))
                if not self.duplicate:
                    deal += 1
            if self.duplicate:
                deal += 1
            for p in group:
                counts[p] += 1
        state["batches"] = stored.rounds + 1
        return numbered(stored, matches, stored.rounds), state

    def _stable(self, tops: list, active: list[int], ratings: dict) -> bool:
        if not self.until_stable or len(tops) < self.stable_batches + 1:
            return False
        recent = tops[-(self.stable_batches + 1):]
        settled = all(top == recent[0] for top in recent)
        sure = all(ratings.get(p, (MU, SIGMA, 0))[1] < self.sigma_bound for p in active)
        return settled and sure

    def report(self, stored: Stored) -> str | None:
        state = stored.tournament.get("format_state") or {}
        return (f"ladder: {stored.scheduled} matches in {stored.rounds} batches"
                + (f", stopped ({state['stopped']})" if state.get("stopped") else ""))


# ---- SPRT -----------------------------------------------------------------------------------------

class Sprt(Plan):
    """Entry 0 is the new version, entry 1 the old one; entries from 2 on are the field."""

    def __init__(self, players: int, seed: int, batch: int | None, max_matches: int | None, elo0: float,
                 elo1: float, alpha: float, beta: float, field: int):
        self.players, self.seed = players, seed
        self.batch = batch or SPRT_BATCH
        self.max_matches = max_matches or SPRT_MAX_MATCHES
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.field = field
        self.last_state: sprt.SprtState | None = None  # as of the last step planned

    def pairs(self, stored: Stored) -> list[float]:
        """Each finished duplicate pair's score for the new version, in deal order, up to the
        first pair still being played. A pair one of whose matches the harness could not play
        (a harness error, not a bot's failure) is left out: later pairs still count, and a
        pair replayed by `arena tournament retry` counts again in its place.

        Two players: the new version's mean points over its two matches (0, ¼, ½, ¾ or 1).
        More players: ½ + (new's points − old's points) / 2, their points in the two matches
        of the pair (the same deal, seat and field), from 1 for first to 0 for last."""
        position = stored.position_of()
        by_deal: dict[int, list] = {}
        for match in statistics.by_match(stored.rows):
            by_deal.setdefault(match[0].deal, []).append(match)
        scores = []
        for deal in sorted(set(by_deal) | stored.pending_deals | stored.error_deals):
            if deal in stored.pending_deals:
                break
            matches = by_deal.get(deal, [])
            if deal in stored.error_deals or len(matches) < 2:
                continue
            if self.players == 2:
                total = sum(r.points for m in matches for r in m if position[r.version] == 0)
                scores.append(total / len(matches))
            else:
                new = next(r.points for m in matches for r in m if position[r.version] == 0)
                old = next(r.points for m in matches for r in m if position[r.version] == 1)
                scores.append(0.5 + (new - old) / 2)
        return scores

    def state(self, stored: Stored, budget_spent: bool = False) -> sprt.SprtState:
        """The test's state after the stored pairs (`arena.results.sprt.compute`); with
        ``budget_spent`` (every match it may play is played) it is over without a verdict."""
        return sprt.compute(self.pairs(stored), self.elo0, self.elo1, self.alpha, self.beta, budget_spent,
                            players=self.players)

    def first_batch(self) -> list[ScheduledMatch]:
        stored = Stored({"config": {}}, [], [], 0, 0, 0)
        return self._batch(stored, 0)

    def next_batch(self, stored: Stored):
        self.last_state = self.state(stored, budget_spent=stored.scheduled >= self.max_matches)
        state = {"verdict": self.last_state.verdict, "pairs": self.last_state.pairs, "llr": self.last_state.llr}
        if self.last_state.verdict is not None:
            return [], state
        return self._batch(stored, stored.rounds), state

    def keep(self, store: Store, tournament_id: int) -> None:
        if self.last_state is not None:
            sprt.save(store, tournament_id, self.last_state)

    def _batch(self, stored: Stored, number: int) -> list[ScheduledMatch]:
        rng = random.Random(f"arena-sprt:{self.seed}:{number}")
        field = list(range(2, 2 + self.field))
        matches = []
        deal = stored.next_deal
        per_pair = 2
        room = min(self.batch, (self.max_matches - stored.scheduled) // per_pair)
        for pair in range(max(1, room)):
            if self.players == 2:
                matches += [((0, 1), deal), ((1, 0), deal)]
            else:
                others = rng.sample(field, self.players - 1)
                seat = (deal + pair) % self.players
                for candidate in (0, 1):
                    seats = list(others)
                    seats.insert(seat, candidate)
                    matches.append((tuple(seats), deal))
            deal += 1
        return numbered(stored, matches, number)

    def report(self, stored: Stored) -> str | None:
        scores = self.pairs(stored)
        state = sprt.compute(scores, self.elo0, self.elo1, self.alpha, self.beta)
        mean = sum(scores) / len(scores) if scores else 0.5
        text = (f"sprt: {len(scores)} pairs, score {mean:.3f} ({statistics.score_to_elo(mean):+.1f} Elo),"
                f" LLR {state.llr:.2f} [{state.lower:.2f}, {state.upper:.2f}]")
        if state.verdict:
            text += f": {state.verdict} accepted after {state.pairs} pairs"
        return text


def plan_for(tournament: dict, entries: int) -> Plan:
    """The plan of a stored tournament (its format and configuration)."""
    config = tournament["config"]
    players, seed = tournament["players"], tournament["seed"]
    kind = tournament.get("format") or config.get("format") or "round-robin"
    if kind == "swiss":
        return Swiss(players, config.get("rounds", 1), config.get("duplicate", False), seed, config.get("finals"))
    if kind == "ladder":
        return Ladder(players, config.get("duplicate", False), seed, config.get("batch"), config.get("max_matches"),
                      config.get("until_stable", False), config.get("top", 3), config.get("stable_batches", 5),
                      config.get("sigma_bound", 1.5))
    if kind == "sprt":
        return Sprt(players, seed, config.get("batch"), config.get("max_matches"), *sprt.hypotheses(config),
                    max(0, entries - 2))
    return Plan()


def ladder_ratings(store: Store, tournament_id: int, entries: list[dict]) -> dict[int, tuple[float, float, int]]:
    """Entry position -> (μ, σ, matches) within the tournament."""
    by_version = {row["bot_version_id"]: (row["mu"], row["sigma"], row["matches"]) for row in store.query(
        "SELECT bot_version_id, mu, sigma, matches FROM tournament_ratings WHERE tournament_id = ?", [tournament_id])}
    return {e["position"]: by_version.get(e["bot_version_id"], (MU, SIGMA, 0)) for e in entries}


def next_step(store: Store, tournament_id: int):
    """The next matches of a tournament that plans as it goes (and its new state), or None."""
    stored = look(store, tournament_id)
    plan = plan_for(stored.tournament, len(stored.entries))
    if isinstance(plan, Ladder):
        step = plan.next_batch(stored, ladder_ratings(store, tournament_id, stored.entries))
    else:
        step = plan.next_batch(stored)
    return step, plan


def report(store: Store, tournament_id: int) -> str | None:
    stored = look(store, tournament_id)
    return plan_for(stored.tournament, len(stored.entries)).report(stored)
