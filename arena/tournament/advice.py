"""Before a run: how many matches a field of N bots needs, by format (`arena tournament plan`).

The counts are exact (they follow from the planners). The advice for a big field is one
tournament, a Swiss with finals (`arena.tournament.finals`); the accuracy figures beside it
are the ones bench/ranking.py measured with bots of known strength on the real games (see
docs/tournaments.md, *How many matches*), played on the real engines, over the seeds each line
says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from arena.results.describe import final_matches, swiss_round_matches
from arena.tournament.formats.roundrobin import match_count

SMALL_FIELD = 60          # up to this many bots a round-robin is the advice


@dataclass(frozen=True)
class Measured:
    """What bench/ranking.py measured for the advised plan at ``bots`` bots (duplicate deals)."""
    bots: int
    top10: float               # of the true top 10 in its top 10, mean over seeds
    tau: float                 # Kendall τ to the true order
    round_robin_top10: float
    round_robin_tau: float
    how: str                   # "played" or "modelled", and over how many seeds
    note: str = ""


# game -> the advised plan's figures at 200 bots, duplicate deals (bench/ranking.py; the runs are
# in bench/ranking-runs/, the tables in docs/tournaments.md)
MEASURED: dict[str, Measured] = {
    "five-towers": Measured(200, 8.5, 0.79, 8.0, 0.95, "played, 4 seeds",
                            "without duplicate deals (3 seeds): the plan 8.0"),
    "agent-avenue": Measured(200, 5.3, 0.53, 6.7, 0.88, "played, 9 seeds",
                             "short of the round-robin, as any plan of 10 % is here: round-robins among the"
                             " true top 25, told for free, only equal it with 9 % (6.7), and finding them costs"
                             " matches; --rounds 10 --finals 40x1,20x6 (5840 matches, 14.7 %) placed 6.6"),
    "fifth-avenue": Measured(200, 8.3, 0.77, 8.3, 0.95, "played, 6 seeds",
                             "without duplicate deals (3 seeds): the plan 9.3, the round-robin 8.3"),
}


@dataclass
class SwissWithFinals:
    """A Swiss of ``rounds`` rounds, then round-robin finals [(finalists, rounds), ...]."""
    rounds: int
    finals: list[tuple[int, int]]
    swiss_matches: int
    final_matches: list[int]

    @property
    def total(self) -> int:
        return self.swiss_matches + sum(self.final_matches)

    @property
    def finals_flag(self) -> str:
        return ",".join(f"{size}x{rounds}" for size, rounds in self.finals)


def recommended(bots: int, players: int = 2, duplicate: bool = True) -> SwissWithFinals:
    """The advised Swiss with finals: about log2(N) Swiss rounds, a round-robin of the top 30
    once, then of its top 16 six times (measured at 200 bots; below 150 bots the finals shrink
    with the field: a fifth of it, then half of that)."""
    rounds = max(4, math.ceil(math.log2(bots)))
    first = min(30, max(players + 1, bots // 5))
    last = max(players, min(16, first // 2 + 1))
    finals = [(first, 1), (last, 6)]
    return SwissWithFinals(rounds, finals, rounds * swiss_round_matches(bots, players, duplicate),
                           [final_matches(size, players, times, duplicate) for size, times in finals])


def plan_text(bots: int, players: int = 2, duplicate: bool = True, game: str | None = None) -> str:
    full = match_count(bots, players, 1, duplicate)
    tag = " with duplicate deals" if duplicate else ""
    lines = [f"{bots} bots, {players}-player matches{tag}",
             f"  round-robin, 1 round: {full} matches ({full * players // bots} a bot)"]
    if players != 2:
        lines.append("  (no measured recommendation for more than two players: python bench/ranking.py"
                     f" --players {players} measures one on synthetic bots)")
        return "\n".join(lines)
    if bots <= SMALL_FIELD:
        lines.append(f"  advice: the round-robin (with {SMALL_FIELD} bots or fewer the cheaper plans measured"
                     " lose clearly more of the top 10)")
        return "\n".join(lines)
    plan = recommended(bots, players, duplicate)
    finals = "; ".join(f"a round-robin of the top {size} x{times} ({count})"
                       for (size, times), count in zip(plan.finals, plan.final_matches))
    lines.append(f"  advice: one tournament, a swiss with finals: {plan.rounds} rounds ({plan.swiss_matches} matches);"
                 f" {finals}: {plan.total} matches, {100 * plan.total / full:.1f} % of the round-robin's")
    lines.append(f"    arena tournament run --game {game or 'GAME'} --format swiss --rounds {plan.rounds}"
                 f" --finals {plan.finals_flag}{' --duplicate' if duplicate else ''} --bots ...")
    lines.append(f"    (a file: format = \"swiss\", rounds = {plan.rounds}, finals = "
                 f"{[list(f) for f in plan.finals]}{', duplicate = true' if duplicate else ''})")
    for name in ([game] if game else list(MEASURED)):
        measured = MEASURED.get(name)
        if measured is None:
            lines.append(f"  {name}: not measured (python bench/ranking.py --game {name} measures it)")
            continue
        lines.append(f"  {name}, measured at {measured.bots} bots ({measured.how}): the plan places"
                     f" {measured.top10:.1f} of the true top 10 in its top 10, the round-robin"
                     f" {measured.round_robin_top10:.1f}; Kendall tau {measured.tau:.2f} against"
                     f" {measured.round_robin_tau:.2f}")
        if measured.note:
            lines.append(f"    {measured.note}")
    return "\n".join(lines)
