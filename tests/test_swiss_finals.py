"""A Swiss with finals: who enters each final, its seats and deals, the standings (finalists
first), resume after kill -9, and how `tournament show`/`list` name it. Real SQLite, the real
runner, the toy game with the greedy bot and copies of the random bot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.results import refit, statistics
from arena.results.leaderboard import tournament_leaderboard
from arena.results.store import Store
from arena.runner.match import strip_timing
from arena.tournament import TournamentConfig, TournamentError, create, run
from botmaker import random_copies
from waiting import PATIENCE

REPO = Path(__file__).resolve().parents[1]
GREEDY = str(REPO / "tests" / "bots" / "greedy.py")
FINALS = [[4, 1], [2, 3]]


@pytest.fixture
def field(tmp_path):
    """The greedy bot and five copies of the random bot, each its own version."""
    return [GREEDY] + random_copies(tmp_path / "bots", 5)


def config(bots, **more) -> TournamentConfig:
    return TournamentConfig(game="toy", bots=bots, format="swiss", rounds=2, finals=FINALS, duplicate=True, seed=5,
                            **more)


def refit_order(rows, versions) -> list[int]:
    fitted = refit.ratings([[refit.Seat(r.version, r.rank) for r in m] for m in statistics.by_match(rows)], versions)
    return sorted(versions, key=lambda v: -fitted[v])


def test_each_final_is_a_duplicate_round_robin_of_the_leaders_of_the_refit_so_far(tmp_path, field):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, config(field))
        run(store, tournament_id, workers=2)
        state = store.tournament(tournament_id)["format_state"]
        rows = statistics.seat_rows(store, tournament_id)
        versions = [e["bot_version_id"] for e in store.tournament_entries(tournament_id)]
    first, second = state["finals"]
    # who enters: the top 4 after the two Swiss rounds; then the top 2 of those after final 1 (round 2)
    assert first == refit_order([r for r in rows if r.round < 2], versions)[:4]
    assert second == [v for v in refit_order([r for r in rows if r.round < 3], versions) if v in first][:2]
    matches = statistics.by_match(rows)
    final_one = [m for m in matches if m[0].round == 2]
    final_two = [m for m in matches if m[0].round >= 3]
    # seats: every pair of finalists in both seatings, on one deal (a duplicate set); final 2 three times
    assert Counter(frozenset(r.version for r in m) for m in final_one) == {frozenset(p): 2 for p in
                                                                          _pairs(first)}
    assert len(final_two) == 2 * 3 and all({r.version for r in m} == set(second) for m in final_two)
    by_deal = Counter(m[0].deal for m in final_one + final_two)
    assert set(by_deal.values()) == {2}
    assert {m[0].deal for m in final_one + final_two}.isdisjoint({m[0].deal for m in matches if m[0].round < 2})


def _pairs(versions):
    return [(a, b) for i, a in enumerate(versions) for b in versions[i + 1:]]


def test_the_final_standings_put_the_last_finalists_first_then_the_first_final_s(tmp_path, field):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, config(field))
        run(store, tournament_id, workers=2)
        first, second = store.tournament(tournament_id)["format_state"]["finals"]
        board = tournament_leaderboard(store, tournament_id)
    order = [e["bot_version_id"] for e in board["entries"]]
    assert set(order[:2]) == set(second) and set(order[2:4]) == set(first) - set(second)
    assert [e["rank"] for e in board["entries"]] == list(range(1, 7))
    assert all(e["band"] >= 3 for e in board["entries"][2:])  # no band reaches above its group


def test_a_swiss_with_finals_killed_in_a_final_resumes_to_the_same_end(tmp_path, field):
    slow = {"options": {"rounds": 200}}
    with Store(tmp_path / "whole.db") as store:
        whole_id = create(store, config(field, **slow))
        run(store, whole_id, workers=2)
        whole = _logs(store, whole_id), store.tournament(whole_id)["format_state"]
    db = tmp_path / "killed.db"
    process = subprocess.Popen([sys.executable, "-m", "arena", "--db", str(db), "tournament", "run", "--game", "toy",
                                "--format", "swiss", "--rounds", "2", "--finals", "4x1,2x3", "--duplicate",
                                "--seed", "5", "--option", "rounds=200", "--bots", ",".join(field)], cwd=REPO,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ)
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if db.exists():
            try:
                with Store(db, readonly=True) as store:
                    if store.one("SELECT COUNT(*) AS n FROM matches WHERE round >= 2")["n"]:
                        break  # the first final is planned (and perhaps being played)
            except Exception:
                pass
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    with Store(db) as store:
        tournament_id = store.tournaments()[0]["id"]
        assert store.tournament(tournament_id)["status"] == "interrupted"
        run(store, tournament_id, workers=1)
        assert (_logs(store, tournament_id), store.tournament(tournament_id)["format_state"]) == whole


def _logs(store, tournament_id):
    return [strip_timing(store.match(row["id"])["log"]) for row in store.query(
        "SELECT id FROM matches WHERE tournament_id = ? AND status = 'finished' ORDER BY schedule_index",
        [tournament_id])]


def test_show_and_list_name_a_swiss_with_finals_and_its_whole_length(tmp_path, field):
    db = tmp_path / "arena.db"
    with Store(db) as store:
        tournament_id = create(store, config(field))
        run(store, tournament_id, workers=2)
    runner = CliRunner()
    show = runner.invoke(main, ["--db", str(db), "tournament", "show", str(tournament_id)])
    listed = runner.invoke(main, ["--db", str(db), "tournament", "list"])
    assert show.exit_code == 0 and listed.exit_code == 0, show.output + listed.output
    # 2 Swiss rounds of 3 pairs x 2 seatings; final 1: 6 pairs x 2; final 2: 1 pair x 2, 3 times
    assert ("format: swiss with finals, 2 rounds of 6 matches, duplicate deals, then a round-robin of the top 4 x1"
            " (12 matches), then a round-robin of the top 2 x3 (6 matches): 30 matches in all") in show.output
    assert "final 2 (a round-robin x3 of the top 2): " in show.output
    assert "swiss+finals" in listed.output and "30/30" in listed.output


@pytest.mark.parametrize("finals, message", [
    ([[4, 1], [4, 2]], "fewer finalists each time"),
    ([[4]], "finals are"),
    ([[1, 3]], "2 to 10000 finalists"),
])
def test_malformed_finals_are_refused_in_one_line(tmp_path, field, finals, message):
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(TournamentError, match=message):
            create(store, TournamentConfig(game="toy", bots=field, format="swiss", finals=finals))


def test_finals_bigger_than_the_field_or_outside_a_swiss_are_refused(tmp_path, field):
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(TournamentError, match="need at least 8 bots"):
            create(store, TournamentConfig(game="toy", bots=field, format="swiss", finals=[[8, 1]]))
        with pytest.raises(TournamentError, match="finals are for the swiss format"):
            create(store, TournamentConfig(game="toy", bots=field, finals=[[4, 1]]))
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "arena.db"), "tournament", "run", "--game", "toy",
                                       "--format", "swiss", "--finals", "4by1", "--bots", ",".join(field)])
    assert result.exit_code != 0 and "--finals must look like 30x1,16x6" in result.output
