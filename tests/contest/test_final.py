"""The final: the last accepted versions in a fresh duplicate tournament, standings with bands,
and the grades CSV (entrants without an accepted version listed without a rank)."""

from __future__ import annotations

import csv
import io

import pytest

from arena.contest import records
from arena.contest.config import ContestError
from arena.contest.final import final_config, finalists, grades_csv, standings
from arena.results.store import Store
from contestkit import CRASHING_BOT, GOOD_BOT, inbox, make_contest, run_until, upload


def final_finished(store) -> bool:
    row = store.one("SELECT t.status FROM contests c JOIN tournaments t ON t.id = c.final_id")
    return bool(row) and row["status"] == "finished"


def test_the_final_plays_the_last_versions_and_exports_grades(tmp_path):
    db, contest, _ = make_contest(tmp_path, names=("ada", "bob", "cy", "dee"))
    for name in ("ada", "bob", "cy"):
        upload(db, name, GOOD_BOT)
    upload(db, "ada", GOOD_BOT + b"# ada's second version\n")
    upload(db, "dee", CRASHING_BOT)
    with inbox(db) as box:
        box.add_action("final")  # waits for the uploads received before it
    run_until(db, final_finished)
    with Store(db, readonly=True) as store:
        contest = records.contest(store, "course")
        final = store.tournament(contest["final_id"])
        entries = store.tournament_entries(contest["final_id"])
        rows = standings(store, contest)
    assert final["config"]["duplicate"] and final["format"] == "round-robin"
    assert sorted((e["bot"], e["version"]) for e in entries) == [("ada", 2), ("bob", 1), ("cy", 1)]
    grades = list(csv.DictReader(io.StringIO(grades_csv(rows))))
    assert [g["name"] for g in grades][-1] == "dee" and grades[-1]["rank"] == ""
    assert sorted(g["rank"] for g in grades[:3]) == ["1", "2", "3"] and all(g["band"] for g in grades[:3])
    assert grades[0]["email"].endswith("@example.org")


def test_the_final_needs_closed_submissions(tmp_path):
    from arena.contest.final import create_final

    db, contest, _ = make_contest(tmp_path)
    with Store(db) as store, pytest.raises(ContestError, match="close them first"):
        create_final(store, records.contest(store, "course"))


def test_a_large_field_gets_the_swiss_with_finals_that_advice_recommends(tmp_path):
    from arena.tournament import advice

    db, contest, _ = make_contest(tmp_path)
    with Store(db) as store:
        contest = records.contest(store, "course")
    many = [{"name": f"bot{i}", "version": 1} for i in range(200)]
    config = final_config(contest, many)
    plan = advice.recommended(200)
    assert (config.format, config.rounds, config.duplicate) == ("swiss", plan.rounds, True)
    assert config.finals == [list(final) for final in plan.finals] == [[30, 1], [16, 6]]
    assert final_config(contest, many[:10]).format == "round-robin"
    with Store(db, readonly=True) as store:
        assert finalists(store, contest) == []  # nobody has an accepted version yet
