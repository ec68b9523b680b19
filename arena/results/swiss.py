"""A Swiss tournament's own account: its rounds (groups and byes) and its standings by Swiss points.

Only the Swiss rounds count here; a Swiss with finals lists each final's finalists after them.

Swiss points: the sum of a bot's match points (1 for first, 0 for last, evenly between; tied
seats share, see `statistics.points`); a round sat out (a bye) scores as if every match of
that round had been drawn: ½ a match. Ties in points are broken by, in order:

1. Buchholz: the sum, over the rounds it played, of the Swiss points of the others in its
   group that round (a strong schedule scores more);
2. first places;
3. the name and version (so the order is total).

The planner (`arena.tournament.plans.Swiss`) pairs by mean points so far; these standings
say how the Swiss itself came out. The final ranking of a finished tournament, the refit of
all its matches, stays on the leaderboard.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.results import statistics
from arena.results.store import Store


@dataclass
class Round:
    number: int                                    # from 1
    groups: list[list[int]] = field(default_factory=list)   # versions, each group in its first seating
    byes: list[int] = field(default_factory=list)
    finished: bool = True
    matches: int = 0                               # all its matches (each group plays its seatings)

    @property
    def matches_per_group(self) -> int:
        return self.matches // len(self.groups) if self.groups else 0


@dataclass
class SwissRow:
    version: int
    place: int
    points: float
    buchholz: float
    first_places: int
    matches: int
    byes: int


def swiss_rounds(store: Store, tournament_id: int) -> int:
    """How many rounds are Swiss rounds (the rounds after them are its finals)."""
    return (store.tournament(tournament_id)["config"] or {}).get("rounds", 1)


def rounds(store: Store, tournament_id: int) -> list[Round]:
    """Every planned Swiss round (not its finals): its groups (in schedule order) and who sat out."""
    last = swiss_rounds(store, tournament_id)
    entries = [e["bot_version_id"] for e in store.tournament_entries(tournament_id) if not e["withdrawn"]]
    seats: dict[int, dict] = {}
    for row in store.query(
            "SELECT m.id, m.round, m.schedule_index, m.status, s.seat, s.bot_version_id FROM matches m"
            " JOIN match_seats s ON s.match_id = m.id WHERE m.tournament_id = ? AND m.round < ?"
            " ORDER BY m.schedule_index, s.seat", [tournament_id, last]):
        match = seats.setdefault(row["id"], {"round": row["round"], "status": row["status"], "versions": []})
        match["versions"].append(row["bot_version_id"])
    result: dict[int, Round] = {}
    seen: dict[int, set] = {}
    for match in seats.values():
        current = result.setdefault(match["round"], Round(match["round"] + 1))
        current.matches += 1
        members = frozenset(match["versions"])
        if members not in seen.setdefault(match["round"], set()):
            seen[match["round"]].add(members)
            current.groups.append(match["versions"])
        current.finished = current.finished and match["status"] != "pending"
    for number, current in result.items():
        playing = set().union(*seen[number]) if seen[number] else set()
        current.byes = [v for v in entries if v not in playing]
    return [result[number] for number in sorted(result)]


def standings(store: Store, tournament_id: int) -> list[SwissRow]:
    """The Swiss standings (see the module docstring), best first."""
    last = swiss_rounds(store, tournament_id)
    rows = [row for row in statistics.seat_rows(store, tournament_id) if row.round < last]
    played_rounds = rounds(store, tournament_id)
    names = {e["bot_version_id"]: (e["bot"], e["version"]) for e in store.tournament_entries(tournament_id)}
    points = {v: 0.0 for v in names}
    firsts = {v: 0 for v in names}
    matches = {v: 0 for v in names}
    byes = {v: 0 for v in names}
    for match in statistics.by_match(rows):
        for row in match:
            points[row.version] += row.points
            matches[row.version] += 1
            firsts[row.version] += row.rank == 1
    for current in played_rounds:
        for version in current.byes:
            if version in byes:
                byes[version] += 1
                points[version] += 0.5 * current.matches_per_group
    buchholz = {v: 0.0 for v in names}
    for current in played_rounds:
        for group in current.groups:
            for version in group:
                if version in buchholz:
                    buchholz[version] += sum(points.get(other, 0.0) for other in group if other != version)
    order = sorted(names, key=lambda v: (-round(points[v], 9), -round(buchholz[v], 9), -firsts[v], names[v]))
    return [SwissRow(v, place, points[v], buchholz[v], firsts[v], matches[v], byes[v])
            for place, v in enumerate(order, 1)]


def text(store: Store, tournament_id: int) -> str:
    """The Swiss standings and every round's groups and byes, for `arena tournament show`."""
    from arena.text import printable

    names = {e["bot_version_id"]: f"{printable(e['bot'], False)} v{e['version']}"
             for e in store.tournament_entries(tournament_id)}
    lines = ["Swiss standings (Swiss points; a bye scores ½ a match; ties: Buchholz, then first places)",
             f"{'place':>5}  {'bot':<28} {'points':>7} {'buchholz':>8} {'firsts':>6} {'matches':>7} {'byes':>4}"]
    for row in standings(store, tournament_id):
        lines.append(f"{row.place:>5}  {names[row.version][:28]:<28} {row.points:>7.2f} {row.buchholz:>8.2f}"
                     f" {row.first_places:>6} {row.matches:>7} {row.byes:>4}")
    lines.append("")
    lines.append("Rounds (each group in its first seating; byes)")
    for current in rounds(store, tournament_id):
        groups = ", ".join(" – ".join(names.get(v, str(v)) for v in group) for group in current.groups)
        bye = f"; bye: {', '.join(names.get(v, str(v)) for v in current.byes)}" if current.byes else ""
        lines.append(f"round {current.number}{'' if current.finished else ' (playing)'}: {groups}{bye}")
    tournament = store.tournament(tournament_id)
    finals = (tournament["config"] or {}).get("finals") or []
    for number, finalists in enumerate((tournament.get("format_state") or {}).get("finals", []), start=1):
        lines.append(f"final {number} (a round-robin x{finals[number - 1][1]} of the top {len(finalists)}):"
                     f" {', '.join(names.get(v, str(v)) for v in finalists)}")
    return "\n".join(lines)
