"""The pages' reads: an entrant's versions with refusals and build output, matches, rating
history and failures (their own only), the leaderboard, the organiser's lists."""

from __future__ import annotations

from arena.contest import records, views
from arena.results.store import Store
from contestkit import CRASHING_BOT, GOOD_BOT, TEMPLATE, inbox, make_contest, run_until, submissions, upload

DEBUG_AND_STDERR_BOT = TEMPLATE.format(
    on_start=" " * 8 + 'reply({"type": "ready"})',
    on_request=" " * 8 + 'print("thinking hard", file=sys.stderr, flush=True)\n'
    + " " * 8 + 'reply({"type": "action", "index": 0, "debug": "my secret plan"})').encode()


def played(store, name, count):
    return store.one("SELECT COUNT(*) AS n FROM match_seats s JOIN bot_versions v ON v.id = s.bot_version_id"
                     " JOIN bots b ON b.id = v.bot_id WHERE b.name = ? AND s.status IS NOT NULL", [name])["n"] >= count


def test_an_entrants_page_reads_versions_matches_history_and_only_their_own_stderr(tmp_path):
    db, contest, _ = make_contest(tmp_path)
    upload(db, "ada", CRASHING_BOT)
    upload(db, "ada", DEBUG_AND_STDERR_BOT)
    upload(db, "bob", DEBUG_AND_STDERR_BOT + b"# bob\n")
    run_until(db, lambda s: len(submissions(s)) == 3 and played(s, "bob", 2))
    with Store(db, readonly=True) as store:
        contest = records.contest(store, "course")
        ada = views.entrant_by_name(store, contest, "ada")
        versions = views.submissions(store, contest, ada["id"])
        assert [v["status"] for v in versions] == ["accepted", "refused"] and versions[0]["current"]
        assert "I give up" in versions[1]["reason"] and versions[0]["validation"]["status"] == "ok"
        ladder = [m for m in views.matches(store, contest, ada["id"]) if m["kind"] == "ladder" and m["status"] == "finished"]
        assert ladder and {s["name"] for s in ladder[0]["seats"]} == {"ada", "bob"}
        assert views.rating_history(store, contest, ada["id"])
        detail = views.seat_detail(store, contest, ladder[0]["id"], ada["id"])
        assert len(detail) == 1 and "thinking hard" in detail[0]["stderr"]
        assert detail[0]["debug"][0]["text"] == "my secret plan"
        assert views.match_access(store, contest, ladder[0]["id"], ada["id"]) == "own"
        cy = views.entrant_by_name(store, contest, "cy")
        assert views.match_access(store, contest, ladder[0]["id"], cy["id"]) == "result"  # replays not public
        assert views.seat_detail(store, contest, ladder[0]["id"], cy["id"]) == []
        organiser = views.seat_detail(store, contest, ladder[0]["id"], None)
        assert sorted(s["name"] for s in organiser) == ["ada", "bob"]
        assert all("thinking hard" in s["stderr"] for s in organiser)


def test_the_leaderboard_and_organiser_lists(tmp_path):
    db, contest, _ = make_contest(tmp_path)
    upload(db, "ada", GOOD_BOT)
    upload(db, "bob", GOOD_BOT + b"# bob\n")
    upload(db, "cy", CRASHING_BOT)
    run_until(db, lambda s: len(submissions(s)) == 3 and played(s, "bob", 2))
    with Store(db, readonly=True) as store, inbox(db) as box:
        contest = records.contest(store, "course")
        board = views.leaderboard(store, contest)
        assert sorted(r["name"] for r in board) == ["ada", "bob"] and board[0]["rank"] == 1
        listed = {r["name"]: r for r in views.entrants(store, contest)}
        assert (listed["cy"]["refused"], listed["cy"]["version"], listed["ada"]["accepted"]) == (1, None, 1)
        assert [s["name"] for s in views.all_submissions(store, contest)] == ["cy", "bob", "ada"]
        assert views.queue(box, store, contest)["inbox"] == []
        assert views.summary(store, contest)["with_bot"] == 2


def test_with_public_replays_others_see_the_full_view_of_ladder_matches_but_never_test_matches(tmp_path):
    db, contest, _ = make_contest(tmp_path, public_replays=True)
    upload(db, "ada", GOOD_BOT)
    upload(db, "bob", GOOD_BOT + b"# bob\n")
    run_until(db, lambda s: len(submissions(s)) == 2 and played(s, "bob", 1))
    with inbox(db) as box:
        box.add_test_request("ada", ["bob"], 1, per_hour=5)
    run_until(db, lambda s: s.one("SELECT COUNT(*) AS n FROM contest_test_matches t JOIN matches m"
                                  " ON m.id = t.match_id WHERE m.status = 'finished'")["n"] == 1)
    with Store(db, readonly=True) as store:
        contest = records.contest(store, "course")
        cy = views.entrant_by_name(store, contest, "cy")
        ladder = store.one("SELECT id FROM matches WHERE tournament_id = ? AND status = 'finished'",
                           [contest["ladder_id"]])["id"]
        test = store.one("SELECT match_id FROM contest_test_matches")["match_id"]
        assert views.match_access(store, contest, ladder, cy["id"]) == "public"
        assert views.match_access(store, contest, ladder, None) == "public"
        assert views.match_access(store, contest, test, cy["id"]) == "result"
        assert views.seat_detail(store, contest, ladder, cy["id"]) == []  # still no one else's stderr


def test_the_organisers_failure_list_reads_failed_seats_newest_first_and_their_stderr(tmp_path):
    db, contest, _ = make_contest(tmp_path)
    # Plays in seat 0 (its validation match), gives up in seat 1 (half its ladder matches).
    flaky = TEMPLATE.format(on_start=" " * 8 + 'reply({"type": "ready"})',
                            on_request=" " * 8 + 'if message["seat"] == 1: sys.exit("flaky: gave up")\n'
                            + " " * 8 + 'reply({"type": "action", "index": 0})').encode()
    upload(db, "ada", GOOD_BOT)
    upload(db, "bob", flaky)
    run_until(db, lambda s: s.one("SELECT COUNT(*) AS n FROM match_seats WHERE status = 'crash'")["n"] >= 2)
    with Store(db, readonly=True) as store:
        contest = records.contest(store, "course")
        failed = views.failures(store, contest)
        assert failed and {f["name"] for f in failed} == {"bob"} and {f["status"] for f in failed} == {"crash"}
        assert [f["match_id"] for f in failed] == sorted((f["match_id"] for f in failed), reverse=True)
        bob = [s for s in views.seat_detail(store, contest, failed[0]["match_id"], None) if s["name"] == "bob"]
        assert "flaky: gave up" in bob[0]["stderr"]
