"""Limits and rules: upload size, uploads per day, test requests per hour, closed
submissions and the deadline, withdrawn entrants — each refusal a clear message."""

from __future__ import annotations

import pytest

from arena.contest import records, views
from arena.contest.inbox import InboxRefusal
from arena.results.store import Store
from contestkit import GOOD_BOT, inbox, make_contest, run_until, submissions, upload


def test_an_upload_over_the_size_limit_is_refused_and_leaves_no_file(tmp_path):
    db, _, _ = make_contest(tmp_path)
    with inbox(db) as box, pytest.raises(InboxRefusal, match="larger than the limit of 1 KiB"):
        box.add_upload("ada", "bot.py", b"x" * 1025, max_bytes=1024, per_day=5)
    assert [p for p in box.uploads.rglob("*") if p.is_file()] == []


def test_uploads_beyond_the_daily_limit_are_refused(tmp_path):
    db, _, _ = make_contest(tmp_path)
    for _ in range(2):
        upload(db, "ada", GOOD_BOT, per_day=2)
    with pytest.raises(InboxRefusal, match="uploaded 2 times in the last 24 hours; the limit is 2"):
        upload(db, "ada", GOOD_BOT, per_day=2)
    upload(db, "bob", GOOD_BOT, per_day=2)  # the limit is each entrant's own


def test_test_requests_beyond_the_hourly_limit_are_refused(tmp_path):
    db, _, _ = make_contest(tmp_path)
    with inbox(db) as box:
        box.add_test_request("ada", ["bob"], 1, per_hour=1)
        with pytest.raises(InboxRefusal, match="the limit is 1"):
            box.add_test_request("ada", ["bob"], 1, per_hour=1)


def test_uploads_after_closing_are_refused_and_earlier_ones_still_count(tmp_path):
    db, contest, _ = make_contest(tmp_path)
    upload(db, "ada", GOOD_BOT)
    with inbox(db) as box:
        box.add_action("close")
    upload(db, "bob", GOOD_BOT)
    run_until(db, lambda s: len(submissions(s)) == 2)
    with Store(db, readonly=True) as store:
        rows = {r["name"]: r for r in submissions(store)}
    assert rows["ada"]["status"] == "accepted"
    assert rows["bob"]["status"] == "refused" and "submissions closed" in rows["bob"]["reason"]


def test_a_passed_deadline_closes_submissions(tmp_path):
    db, contest, _ = make_contest(tmp_path, deadline="2020-01-01T00:00:00Z")
    upload(db, "ada", GOOD_BOT)
    run_until(db, lambda s: len(submissions(s)) == 1)
    with Store(db, readonly=True) as store:
        [row] = submissions(store)
        assert records.contest(store, "course")["closed_at"].startswith("2020-01-01T00:00:00")
    assert row["status"] == "refused" and "submissions closed at 2020-01-01 00:00:00 UTC" in row["reason"]


def test_a_withdrawn_entrant_leaves_the_ladder_and_a_reinstated_one_comes_back(tmp_path):
    db, contest, _ = make_contest(tmp_path)
    upload(db, "ada", GOOD_BOT)
    upload(db, "bob", GOOD_BOT + b"# bob\n")
    run_until(db, lambda s: len(submissions(s)) == 2)
    with inbox(db) as box:
        box.add_action("withdraw", entrant="ada")
    run_until(db, lambda s: s.one("SELECT COUNT(*) AS n FROM contest_requests")["n"] == 1)
    with Store(db, readonly=True) as store:
        contest = records.contest(store, "course")
        assert [r["name"] for r in views.leaderboard(store, contest)] == ["bob"]
        entry = store.one("SELECT e.withdrawn FROM tournament_entries e JOIN contest_entrants c"
                          " ON c.bot_version_id = e.bot_version_id WHERE c.name = 'ada'")
        assert entry["withdrawn"] == 1
    with inbox(db) as box:
        box.add_action("reinstate", entrant="ada")
    run_until(db, lambda s: s.one("SELECT COUNT(*) AS n FROM contest_requests")["n"] == 2)
    with Store(db, readonly=True) as store:
        assert sorted(r["name"] for r in views.leaderboard(store, contest)) == ["ada", "bob"]


def test_a_test_request_naming_an_entrant_without_a_bot_is_refused_with_why(tmp_path):
    db, contest, _ = make_contest(tmp_path)
    upload(db, "ada", GOOD_BOT)
    run_until(db, lambda s: len(submissions(s)) == 1)
    with inbox(db) as box:
        box.add_test_request("ada", ["cy"], 1, per_hour=5)
    run_until(db, lambda s: s.one("SELECT COUNT(*) AS n FROM contest_requests")["n"] == 1)
    with Store(db, readonly=True) as store:
        contest = records.contest(store, "course")
        ada = views.entrant_by_name(store, contest, "ada")
        [request] = views.requests(store, contest, ada["id"])
    assert request["outcome"] == "refused: 'cy' has no version in the contest"


def test_a_deadline_moved_later_opens_submissions_again(tmp_path):
    db, contest, _ = make_contest(tmp_path, deadline="2020-01-01T00:00:00Z")
    run_until(db, lambda s: records.contest(s, "course")["closed_at"] is not None)
    with inbox(db) as box:
        box.add_action("deadline", deadline="2099-01-01T00:00:00Z")
    run_until(db, lambda s: s.one("SELECT COUNT(*) AS n FROM contest_requests")["n"] == 1)
    with Store(db, readonly=True) as store:
        assert records.contest(store, "course")["closed_at"] is None
