"""A tournament's format in words, and the matches its whole run will play where that is known.

Round-robin and gauntlet plan everything at creation. A Swiss tournament plans round by round,
but every round has the same size: (entries // players) groups, each playing its seatings;
its finals (round-robins of its leaders) have known sizes too.
A ladder stops at ``max_matches`` (or earlier, when ``until_stable``), an SPRT at its verdict
or at ``max_matches``: for those only an upper bound is known.
"""

from __future__ import annotations

import math


def swiss_round_matches(entries: int, players: int, duplicate: bool) -> int:
    """Matches in one Swiss round: its groups times each group's seatings."""
    per_group = math.factorial(players) if duplicate and players <= 3 else players
    return (entries // players) * per_group


def final_matches(finalists: int, players: int, rounds: int, duplicate: bool) -> int:
    """Matches in a round-robin final: its groups times each group's seatings, ``rounds`` times."""
    per_group = math.factorial(players) if duplicate and players <= 3 else players
    return math.comb(finalists, players) * per_group * rounds


def finals_matches(config: dict, players: int) -> list[int]:
    """Each Swiss final's matches (``config['finals']``: [[finalists, rounds], ...])."""
    return [final_matches(size, players, rounds, config.get("duplicate", False))
            for size, rounds in config.get("finals") or []]


def planned_matches(tournament: dict, entries: int) -> tuple[int | None, bool]:
    """(matches of the whole run, whether that number is exact); for a ladder or SPRT it is
    the most it may play (None: a ladder without a limit)."""
    config = tournament.get("config") or {}
    kind = tournament.get("format") or config.get("format") or "round-robin"
    if kind == "swiss":
        return (config.get("rounds", 1) * swiss_round_matches(entries, tournament["players"], config.get("duplicate", False))
                + sum(finals_matches(config, tournament["players"]))), True
    if kind == "ladder":
        cap = config.get("max_matches")
        return (None if cap is None else max(cap, tournament.get("matches_total", 0))), False
    if kind == "sprt":
        cap = config.get("max_matches")
        return (None if cap is None else max(cap, tournament.get("matches_total", 0))), False
    return tournament.get("matches_total", 0), True


def format_text(tournament: dict, entries: int) -> str:
    """The format and its stop rule, in a few words."""
    config = tournament.get("config") or {}
    kind = tournament.get("format") or config.get("format") or "round-robin"
    duplicate = ", duplicate deals" if config.get("duplicate") else ""
    total, exact = planned_matches(tournament, entries)
    if kind == "swiss":
        finals = "".join(f", then a round-robin of the top {size} x{rounds} ({count} matches)" for (size, rounds), count
                         in zip(config.get("finals") or [], finals_matches(config, tournament["players"])))
        return (f"swiss{' with finals' if finals else ''}, {config.get('rounds', 1)} rounds of"
                f" {swiss_round_matches(entries, tournament['players'], config.get('duplicate', False))}"
                f" matches{duplicate}{finals}: {total} matches in all")
    if kind == "ladder":
        most = f", at most {total} matches" if total is not None else ""
        rule = (f"until the top {config.get('top', 3)} keep their order for {config.get('stable_batches', 5)} batches"
                f" with every σ under {config.get('sigma_bound', 1.5)}{most}"
                if config.get("until_stable") else f"until {total} matches" if total is not None
                else "until stopped")
        batches = f", batches of {config['batch']} groups" if config.get("batch") else ""
        return f"ladder{batches}{duplicate}, {rule}"
    if kind == "sprt":
        most = f", at most {total} matches" if total is not None else ""
        return (f"sprt, elo0 {config.get('elo0', 0.0):g} elo1 {config.get('elo1', 10.0):g}, alpha"
                f" {config.get('alpha', 0.05):g} beta {config.get('beta', 0.05):g}: until H0 or H1 is accepted{most}")
    rounds = tournament.get("rounds") or 1
    return f"{kind}, {rounds} round(s){duplicate}: {total} matches"
