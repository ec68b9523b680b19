"""Final standings of a Swiss tournament with finals: the last final's finalists first.

The refit of every match orders the entries (`arena.results.refit`); a tournament with finals
(its ``format_state`` lists each final's finalists, `arena.tournament.finals`) then places
the finalists of the last final first, then the other finalists of the final before, and so
on, each group in the refit's order: a bot that reached a later final is ahead of every bot
that did not, as in any knockout. A band (tied at 95 %) never reaches above the first place
of its group.
"""

from __future__ import annotations

from dataclasses import replace


def stages(format_state: dict | None) -> dict[int, int]:
    """Version id -> the number of the last final it played in (1 for the first; absent: none)."""
    reached: dict[int, int] = {}
    for number, finalists in enumerate((format_state or {}).get("finals", []), start=1):
        for version in finalists:
            reached[version] = number
    return reached


def finalists_first(standings: list, format_state: dict | None) -> list:
    """``standings`` (refit `Standing`s, best first) with the finalists moved up, ranks and
    bands renumbered; unchanged for a tournament without finals."""
    reached = stages(format_state)
    if not reached:
        return standings
    ordered = sorted(standings, key=lambda s: -reached.get(s.version, 0))  # stable: the refit's order within
    result, group_start = [], {}
    for place, standing in enumerate(ordered, start=1):
        group = reached.get(standing.version, 0)
        group_start.setdefault(group, place)
        band = min(max(standing.band, group_start[group]), place)
        result.append(replace(standing, rank=place, band=band))
    return result
