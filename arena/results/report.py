"""A tournament's statistics as data and as text: standings with rank confidence, the
head-to-head table, results per seat, and the spread over duplicate sets."""

from __future__ import annotations

import statistics as stats

from arena.results import statistics
from arena.results.leaderboard import format_table, tournament_leaderboard
from arena.results.store import Store
from arena.text import printable


def add_rank_confidence(store: Store, board: dict, samples: int = 200) -> dict:
    """Give each entry of a tournament leaderboard its 90% bootstrap rank interval (by mean
    points); a finished tournament's refit standings already have theirs (95 %)."""
    if board.get("standings") == "refit":
        return board
    rows = statistics.seat_rows(store, board["tournament"])
    versions = [e["bot_version_id"] for e in board["entries"]]
    intervals = statistics.rank_intervals(rows, versions, samples=samples, seed=board["tournament"])
    for entry in board["entries"]:
        entry["rank_interval"] = list(intervals[entry["bot_version_id"]])
    return board


def tournament_report(store: Store, tournament_id: int, samples: int = 200) -> dict:
    board = add_rank_confidence(store, tournament_leaderboard(store, tournament_id), samples)
    rows = statistics.seat_rows(store, tournament_id)
    names = {e["bot_version_id"]: f"{e['bot']} v{e['version']}" for e in board["entries"]}
    h2h = [{"bot": names.get(a, str(a)), "opponent": names.get(b, str(b)), **cell}
           for (a, b), cell in sorted(statistics.head_to_head(rows).items())]
    sets = statistics.duplicate_sets(rows)
    duplicate = None
    if sets and all(len(matches) > 1 for matches in sets.values()):
        spreads = {}
        entries = [e["bot_version_id"] for e in board["entries"]]
        if len(entries) >= 2:
            first, second = entries[0], entries[1]
            diffs = [statistics.set_difference(m, first, second) for m in sets.values()
                     if any(r.version == first for x in m for r in x) and any(r.version == second for x in m for r in x)]
            if len(diffs) >= 2:
                spreads = {"between": [names[first], names[second]], "sets": len(diffs),
                           "mean_difference": stats.fmean(diffs), "stdev": stats.stdev(diffs)}
        duplicate = {"sets": len(sets), **spreads}
    return {"tournament": tournament_id, "game": board["game"], "leaderboard": board["entries"],
            "head_to_head": h2h, "seats": statistics.per_seat(rows), "duplicate": duplicate}


def render_report(report: dict) -> str:
    board = {"game": report["game"], "tournament": report["tournament"], "entries": report["leaderboard"]}
    lines = [format_table(board), "", "head to head (row bot against column bot: wins-draws-losses, mean rank"
                                      " difference in the row bot's favour)"]
    names = [f"{e['bot']} v{e['version']}" for e in report["leaderboard"]]
    cells = {(c["bot"], c["opponent"]): c for c in report["head_to_head"]}
    width = max([len(n) for n in names] + [8])
    shown = {name: printable(name, keep_newlines=False) for name in names}  # bot names are anyone's text
    lines.append(" " * (width + 2) + "  ".join(f"{shown[n][:14]:>14}" for n in names))
    for row in names:
        parts = []
        for column in names:
            cell = cells.get((row, column))
            parts.append(f"{'-':>14}" if cell is None else
                         f"{cell['wins']}-{cell['draws']}-{cell['losses']} {cell['rank_difference']:+.2f}".rjust(14))
        lines.append(f"{shown[row][:width]:<{width}}  " + "  ".join(parts))
    lines += ["", "seat  matches  mean points  first places"]
    for seat in report["seats"]:
        lines.append(f"{seat['seat']:>4}  {seat['matches']:>7}  {seat['mean_points']:>11.3f}  {seat['first_places']:>12}")
    duplicate = report.get("duplicate")
    if duplicate:
        lines.append("")
        line = f"duplicate sets: {duplicate['sets']}"
        if duplicate.get("between"):
            first, second = (printable(name, keep_newlines=False) for name in duplicate["between"])
            line += (f"; score difference {first} - {second} per set:"
                     f" mean {duplicate['mean_difference']:+.2f}, spread (stdev) {duplicate['stdev']:.2f}")
        lines.append(line)
    return "\n".join(lines)
