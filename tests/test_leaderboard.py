"""Leaderboard queries and their stable output formats."""

from __future__ import annotations

import csv
import io
import json

import pytest

from arena.results.leaderboard import CSV_COLUMNS, game_leaderboard, rated_games, render, tournament_leaderboard
from arena.results.store import Store
from synthetic import result, tournament


@pytest.fixture
def store(tmp_path):
    """Two tournaments among different bots; bot0 of the first always wins, bot2 crashes once."""
    with Store(tmp_path / "arena.db") as opened:
        first = tournament(opened, bots=3, players=2)
        crashed = False
        for match in opened.pending_matches(first):
            names = [s["bot"] for s in opened.match(match["id"])["seats"]]
            scores = [10 if name == "bot0" else 1 for name in names]
            statuses = ["crash" if name == "bot2" and not crashed else "ok" for name in names]
            crashed = crashed or "bot2" in names
            opened.record_match(match["id"], result(scores, statuses))
        second = tournament(opened, bots=2, players=2, seed=3)
        for match in opened.pending_matches(second):
            opened.record_match(match["id"], result([5, 5]))
        yield opened


def test_the_game_leaderboard_orders_by_conservative_skill(store):
    entries = game_leaderboard(store, "five-towers")["entries"]
    values = [e["conservative"] for e in entries]
    assert values == sorted(values, reverse=True)
    assert [e["rank"] for e in entries] == list(range(1, 6))
    assert entries[0]["bot"] == "bot0" and entries[0]["first_places"] == 4


def test_entries_count_matches_first_places_average_rank_and_failures(store):
    bot2 = next(e for e in game_leaderboard(store, "five-towers")["entries"] if e["bot"] == "bot2")
    assert bot2["matches"] == 4
    assert bot2["failures"] == {"timeout": 0, "crash": 1, "illegal": 0, "protocol": 0, "limit": 0}
    assert 1 <= bot2["average_rank"] <= 2


def test_limit_keeps_the_top_rows(store):
    assert [e["rank"] for e in game_leaderboard(store, "five-towers", limit=2)["entries"]] == [1, 2]


def test_a_tournament_leaderboard_has_only_its_entries_and_matches(store):
    board = tournament_leaderboard(store, 2)
    assert sorted(e["bot"] for e in board["entries"]) == ["bot3", "bot4"]
    assert all(e["matches"] == 2 and e["first_places"] == 2 for e in board["entries"])
    overall = {e["bot"]: e for e in game_leaderboard(store, "five-towers")["entries"]}
    assert board["entries"][0]["mu"] == overall[board["entries"][0]["bot"]]["mu"]


def test_a_game_without_ratings_has_an_empty_leaderboard(store):
    assert game_leaderboard(store, "agent-avenue")["entries"] == []
    assert rated_games(store) == ["five-towers"]


def test_csv_has_the_documented_columns_and_one_row_per_entry(store):
    text = render([game_leaderboard(store, "five-towers")], "csv")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == CSV_COLUMNS == [
        "game", "tournament", "rank", "bot", "version", "conservative", "mu", "sigma", "matches", "first_places",
        "average_rank", "failures_timeout", "failures_crash", "failures_illegal", "failures_protocol",
        "failures_limit"]
    assert len(rows) == 6 and rows[1][:5] == ["five-towers", "", "1", "bot0", "1"]


def test_json_has_the_documented_shape(store):
    data = json.loads(render([game_leaderboard(store, "five-towers")], "json"))
    assert set(data) == {"game", "tournament", "entries"}
    assert set(data["entries"][0]) == {"rank", "bot", "version", "conservative", "mu", "sigma", "matches",
                                       "first_places", "average_rank", "failures"}


def test_json_for_several_games_is_a_list(store):
    boards = [game_leaderboard(store, "five-towers"), game_leaderboard(store, "agent-avenue")]
    assert [b["game"] for b in json.loads(render(boards, "json", single=False))] == ["five-towers", "agent-avenue"]


def test_the_table_has_a_title_a_header_and_a_line_per_entry(store):
    lines = render([game_leaderboard(store, "five-towers")], "table").splitlines()
    assert lines[0] == "five-towers"
    assert lines[1].split() == ["rank", "bot", "ver", "mu-3sigma", "mu", "sigma", "matches", "firsts", "avg",
                                "rank", "failures"]
    assert len(lines) == 7 and "crash:1" in next(line for line in lines if "bot2" in line)
