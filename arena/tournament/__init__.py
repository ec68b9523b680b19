"""Tournaments: configuration, formats, creation, and running them on an executor.

Creating a tournament stores every scheduled match as 'pending'. Running it plays the pending
matches on worker processes (`arena.tournament.executors`) and commits each one as soon as it
finishes (`arena.tournament.coordinator`). Resuming is running again: exactly the matches
still pending are played.
"""

from __future__ import annotations

from arena.results import sprt
from arena.results.store import Store
from arena.tournament.config import (TournamentConfig, TournamentError, check_config, load_file,  # noqa: F401
                                     parse_options)
from arena.tournament.coordinator import Progress, RunSummary, run  # noqa: F401
from arena.tournament.create import available, create  # noqa: F401


def retry_errors(store: Store, tournament_id: int) -> int:
    """Make the matches stored as harness errors pending again (`arena tournament retry`)."""
    store.tournament(tournament_id)  # a one-line error for an unknown id
    return store.reset_errors(tournament_id)


def tournament_status(store: Store, tournament_id: int) -> dict:
    """Everything `arena tournament show` reports."""
    tournament = store.tournament(tournament_id)
    tournament["entries_list"] = store.tournament_entries(tournament_id)
    tournament["errors"] = store.query(
        "SELECT id, schedule_index, error FROM matches WHERE tournament_id = ? AND status = 'error'"
        " ORDER BY schedule_index", [tournament_id])
    state = sprt.load(store, tournament_id)
    tournament["sprt"] = state.as_dict() if state is not None else None
    tournament["seat_statuses"] = {row["status"]: row["n"] for row in store.query(
        "SELECT s.status, COUNT(*) AS n FROM matches m JOIN match_seats s ON s.match_id = m.id"
        " WHERE m.tournament_id = ? AND s.status IS NOT NULL GROUP BY s.status", [tournament_id])}
    return tournament
