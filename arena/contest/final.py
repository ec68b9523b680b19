"""The final: a fresh tournament of every entrant's last accepted version, with duplicate
deals, in the format `arena.tournament.advice` recommends for the field; then its standings
(the order-free refit with 95 % confidence bands, `arena.results.refit`) and the grades CSV.

The runner starts and plays the final (an organiser's ``final`` action in the inbox), so it
stays the one writer; `standings` and `grades_csv` only read.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from arena.contest.config import ContestError
from arena.results.store import Store
from arena.tournament.config import TournamentConfig

GRADES_COLUMNS = ("name", "email", "rank", "band", "rating", "rating_low", "rating_high", "rank_low", "rank_high",
                  "matches", "version")


def finalists(store: Store, contest: dict) -> list[dict]:
    """Entrants in the final: not withdrawn, with an accepted version (name, email, version)."""
    return store.query(
        "SELECT e.id, e.name, e.email, v.id AS bot_version_id, v.version FROM contest_entrants e"
        " JOIN bot_versions v ON v.id = e.bot_version_id WHERE e.contest_id = ? AND e.withdrawn = 0"
        " ORDER BY e.name", [contest["id"]])


def final_config(contest: dict, entries: list[dict]) -> TournamentConfig:
    """The final's tournament: what `arena.tournament.advice` recommends for this many bots —
    a round-robin for a small field, else its Swiss with finals (round-robins of the leaders
    after the Swiss rounds) — always with duplicate deals."""
    from arena.tournament import advice

    players, count = contest["players"], len(entries)
    bots = [f"{e['name']}@{e['version']}" for e in entries]
    base = dict(game=contest["game"], bots=bots, players=players, options=contest["config"].options,
                limits=contest["config"].limits, duplicate=True, name=f"{contest['name']} (final)",
                workers=contest["config"].workers)
    if count <= advice.SMALL_FIELD:
        return TournamentConfig(**base, format="round-robin", rounds=1)
    plan = advice.recommended(count, players, duplicate=True)
    return TournamentConfig(**base, format="swiss", rounds=plan.rounds,
                            finals=[list(final) for final in plan.finals])


def create_final(store: Store, contest: dict) -> int:
    """Store the final's tournament (its first matches pending); returns its id."""
    from arena.contest import ledger
    from arena.tournament.create import create

    if contest["final_id"] is not None:
        raise ContestError(f"the final has started already (tournament {contest['final_id']})")
    if contest["closed_at"] is None:
        raise ContestError("submissions are still open: close them first")
    entries = finalists(store, contest)
    if len(entries) < contest["players"]:
        raise ContestError(f"a final of {contest['players']}-player matches needs {contest['players']} entrants with"
                           f" an accepted version; there are {len(entries)}")
    tournament_id = create(store, final_config(contest, entries))
    ledger.set_final(store, contest["id"], tournament_id)
    return tournament_id


@dataclass
class FinalRow:
    name: str
    email: str
    version: int | None
    rank: int | None
    band: int | None
    rating: float | None
    rating_interval: tuple[float, float] | None
    rank_interval: tuple[int, int] | None
    matches: int


def standings(store: Store, contest: dict) -> list[FinalRow]:
    """The final's standings, best first (then entrants who were not in it, by name)."""
    from arena.results.refit import tournament_refit

    if contest["final_id"] is None:
        raise ContestError("the final has not started (arena contest final)")
    tournament = store.tournament(contest["final_id"])
    if tournament["status"] != "finished":
        raise ContestError(f"the final is not finished yet ({tournament['matches_finished']} of"
                           f" {tournament['matches_total']} matches planned so far are played)")
    people = {row["bot_version_id"]: row for row in store.query(
        "SELECT e.name, e.email, s.bot_version_id, v.version FROM tournament_entries s"
        " JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id"
        " JOIN contest_entrants e ON e.contest_id = ? AND e.name = b.name WHERE s.tournament_id = ?",
        [contest["id"], contest["final_id"]])}
    rows = []
    for standing in tournament_refit(store, contest["final_id"]):
        person = people[standing.version]
        rows.append(FinalRow(person["name"], person["email"], person["version"], standing.rank, standing.band,
                             standing.rating, standing.rating_interval, standing.rank_interval, standing.matches))
    placed = {row.name for row in rows}
    for entrant in store.query("SELECT name, email FROM contest_entrants WHERE contest_id = ? ORDER BY name",
                               [contest["id"]]):
        if entrant["name"] not in placed:
            rows.append(FinalRow(entrant["name"], entrant["email"], None, None, None, None, None, None, 0))
    return rows


def grades_csv(rows: list[FinalRow]) -> str:
    """The grades as CSV: one row per entrant (those not in the final have no rank)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(GRADES_COLUMNS)
    for row in rows:
        low, high = row.rating_interval or (None, None)
        rank_low, rank_high = row.rank_interval or (None, None)
        writer.writerow([_cell(row.name), _cell(row.email), row.rank or "", row.band or "",
                         _number(row.rating), _number(low), _number(high), rank_low or "", rank_high or "", row.matches,
                         row.version or ""])
    return out.getvalue()


def _number(value: float | None) -> str:
    return "" if value is None else f"{round(value, 1) + 0.0:.1f}"  # + 0.0: never "-0.0"


def _cell(text: str) -> str:
    """A spreadsheet would run a cell starting with = + - @ as a formula: quote it."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
