"""The contest runner: uploads become ladder entries, refusals are recorded with their reason,
test matches are unrated and played ahead of the ladder, organiser actions apply."""

from __future__ import annotations

from arena.results.store import Store
from contestkit import CRASHING_BOT, GOOD_BOT, inbox, make_contest, run_until, submissions, upload


def ladder_matches(store, contest) -> int:
    return store.one("SELECT COUNT(*) AS n FROM matches WHERE tournament_id = ? AND status = 'finished'",
                     [contest["ladder_id"]])["n"]


def test_accepted_uploads_join_the_ladder_and_play_rated_matches(tmp_path):
    db, contest, _ = make_contest(tmp_path)
    for name in ("ada", "bob"):
        upload(db, name, GOOD_BOT)
    run_until(db, lambda s: ladder_matches(s, contest) >= 2)
    with Store(db, readonly=True) as store:
        assert [(r["name"], r["status"]) for r in submissions(store)] == [("ada", "accepted"), ("bob", "accepted")]
        rated = store.one("SELECT COUNT(*) AS n FROM matches WHERE tournament_id = ? AND rating_seq IS NOT NULL",
                          [contest["ladder_id"]])["n"]
        assert rated >= 2


def test_a_bot_that_fails_validation_is_refused_with_its_stderr(tmp_path):
    db, contest, _ = make_contest(tmp_path)
    upload(db, "ada", CRASHING_BOT)
    run_until(db, lambda s: bool(submissions(s)))
    with Store(db, readonly=True) as store:
        [row] = submissions(store)
    assert row["status"] == "refused" and "validation match" in row["reason"] and "I give up" in row["reason"]


def test_a_newer_version_replaces_the_older_in_the_ladder(tmp_path):
    db, contest, _ = make_contest(tmp_path)
    upload(db, "ada", GOOD_BOT)
    upload(db, "ada", GOOD_BOT + b"# version two\n")
    run_until(db, lambda s: len(submissions(s)) == 2)
    with Store(db, readonly=True) as store:
        entries = store.query("SELECT bot_version_id, withdrawn FROM tournament_entries WHERE tournament_id = ?"
                              " ORDER BY position", [contest["ladder_id"]])
        current = store.one("SELECT bot_version_id FROM contest_entrants WHERE name = 'ada'")["bot_version_id"]
    assert [e["withdrawn"] for e in entries] == [1, 0] and entries[1]["bot_version_id"] == current


def test_test_matches_are_unrated_and_played_ahead_of_the_ladder(tmp_path):
    db, contest, _ = make_contest(tmp_path)
    for name in ("ada", "bob", "cy"):
        upload(db, name, GOOD_BOT)
    run_until(db, lambda s: ladder_matches(s, contest) >= 1)
    with inbox(db) as box:
        box.add_test_request("ada", ["bob"], 2, per_hour=5)

    def tests_played(store):
        return store.one("SELECT COUNT(*) AS n FROM contest_test_matches t JOIN matches m ON m.id = t.match_id"
                         " WHERE m.status = 'finished'")["n"] == 2

    run_until(db, tests_played)
    with Store(db, readonly=True) as store:
        rows = store.query("SELECT m.rating_seq, m.tournament_id FROM contest_test_matches t"
                           " JOIN matches m ON m.id = t.match_id")
    assert rows == [{"rating_seq": None, "tournament_id": None}] * 2


def test_a_zipped_folder_is_built_and_a_failing_build_is_refused_with_its_output(tmp_path):
    from contestkit import zipped

    db, contest, _ = make_contest(tmp_path)
    good = zipped({"mybot/bot.toml": 'command = "python3 bot.py"\nbuild = "sh build.sh"\n',
                   "mybot/build.sh": "echo building fine\n", "mybot/bot.py": GOOD_BOT})
    broken = zipped({"mybot/bot.toml": 'command = "python3 bot.py"\nbuild = "sh build.sh"\n',
                     "mybot/build.sh": "echo 'error: missing semicolon on line 3' >&2\nexit 3\n",
                     "mybot/bot.py": GOOD_BOT})
    upload(db, "ada", broken, filename="mybot.zip")
    upload(db, "bob", good, filename="mybot.zip")
    run_until(db, lambda s: len(submissions(s)) == 2)
    with Store(db, readonly=True) as store:
        rows = {r["name"]: r for r in submissions(store)}
        build_log = store.one("SELECT build_log FROM contest_submissions WHERE status = 'accepted'")["build_log"]
    assert rows["ada"]["status"] == "refused" and "missing semicolon on line 3" in rows["ada"]["reason"]
    assert rows["bob"]["status"] == "accepted" and "building fine" in build_log
