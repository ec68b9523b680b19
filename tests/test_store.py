"""The SQLite store: schema, the one-transaction match commit, schedule-order ratings, recompute."""

from __future__ import annotations

import sqlite3

import pytest

from arena.results.store import Store, StoreError, unpack
from synthetic import fake_versions, result, scores_for, tournament


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "arena.db") as opened:
        yield opened


def finish_all(store, tournament_id, order=None):
    pending = store.pending_matches(tournament_id)
    for match in (order(pending) if order else pending):
        store.record_match(match["id"], result(scores_for(match)))


def ratings(store):
    return [(r["bot_version_id"], r["mu"], r["sigma"], r["matches"], r["first_places"], r["rank_sum"])
            for r in store.query("SELECT * FROM ratings ORDER BY bot_version_id")]


def test_database_is_in_wal_mode_with_foreign_keys_enforced(store):
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with pytest.raises(sqlite3.IntegrityError):
        with store.write():
            store.db.execute("INSERT INTO bot_versions (bot_id, version, content_hash, path, submitted_at)"
                             " VALUES (999, 1, 'h', 'p', 'now')")


def test_schema_has_the_documented_tables_and_leaderboard_index(store):
    tables = set(store.db.table_names())
    assert {"bots", "bot_versions", "tournaments", "tournament_entries", "matches", "match_seats",
            "match_logs", "ratings", "rating_history"} <= tables
    assert "leaderboard" in store.db.view_names()
    plan = " ".join(row[3] for row in store.db.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM ratings WHERE game = 'x' ORDER BY conservative DESC").fetchall())
    assert "ratings_leaderboard" in plan


def test_reopening_an_existing_database_keeps_its_rows(tmp_path):
    with Store(tmp_path / "arena.db") as first:
        fake_versions(first, 2)
    with Store(tmp_path / "arena.db") as second:
        assert len(second.bot_versions()) == 2


def test_opening_a_missing_database_for_reading_is_a_one_line_error(tmp_path):
    with pytest.raises(StoreError, match="no database at"):
        Store(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_creating_a_tournament_stores_every_scheduled_match_as_pending(store):
    tournament_id = tournament(store, bots=4, players=2, rounds=2)
    info = store.tournament(tournament_id)
    assert (info["matches_total"], info["matches_pending"], info["entries"]) == (24, 24, 4)
    assert [m["schedule_index"] for m in store.pending_matches(tournament_id)] == list(range(24))


def test_record_match_stores_seats_and_the_compressed_log(store):
    tournament_id = tournament(store, bots=3, players=3)
    match = store.pending_matches(tournament_id)[0]
    log = [{"event": "request", "seat": s, "step": s, "message": {"obs": "x" * 500}} for s in range(50)]
    store.record_match(match["id"], result([5, 9, 1], statuses=["ok", "ok", "timeout"], log=log,
                                           stderr=["", "hello\n", "late\n"]))
    stored = store.match(match["id"])
    assert stored["status"] == "finished"
    assert [(s["status"], s["score"], s["rank"]) for s in stored["seats"]] == [("ok", 5.0, 2), ("ok", 9.0, 1),
                                                                               ("timeout", 1.0, 3)]
    assert stored["log"] == log
    assert stored["seats"][2]["stderr"] == "late\n"
    blob = store.db.execute("SELECT log FROM match_logs WHERE match_id = ?", [match["id"]]).fetchone()[0]
    assert len(blob) < 2000 and unpack(blob) == log


def test_a_match_cannot_be_recorded_twice(store):
    tournament_id = tournament(store, bots=2)
    match = store.pending_matches(tournament_id)[0]
    store.record_match(match["id"], result([1, 2]))
    with pytest.raises(StoreError, match="already finished"):
        store.record_match(match["id"], result([1, 2]))
    assert store.one("SELECT COUNT(*) AS n FROM rating_history WHERE match_id = ?", [match["id"]])["n"] == 2


def test_a_failed_commit_leaves_no_trace(store):
    tournament_id = tournament(store, bots=2)
    match = store.pending_matches(tournament_id)[0]
    with pytest.raises(StoreError, match="seats"):
        store.record_match(match["id"], result([1, 2, 3]))  # wrong seat count, found mid-transaction
    assert store.match(match["id"])["status"] == "pending"
    assert store.query("SELECT * FROM match_logs") == []
    assert store.query("SELECT * FROM match_seats WHERE status IS NOT NULL") == []


def test_a_match_finished_out_of_order_is_stored_but_rated_when_the_gap_closes(store):
    tournament_id = tournament(store, bots=3, players=2)
    first, second, third = store.pending_matches(tournament_id)[:3]
    store.record_match(second["id"], result([3, 1]))
    store.record_match(third["id"], result([3, 1]))
    assert store.match(second["id"])["status"] == "finished"
    assert store.match(second["id"])["rating_seq"] is None
    assert store.tournament(tournament_id)["rated_through"] == -1
    store.record_match(first["id"], result([3, 1]))
    seqs = [store.match(m["id"])["rating_seq"] for m in (first, second, third)]
    assert seqs == sorted(seqs) and None not in seqs
    assert store.tournament(tournament_id)["rated_through"] == 2


def test_completion_order_does_not_change_the_ratings(tmp_path):
    outcomes = []
    for name, order in (("forward", None), ("backward", lambda ms: list(reversed(ms))),
                        ("interleaved", lambda ms: ms[1::2] + ms[0::2])):
        with Store(tmp_path / f"{name}.db") as store:
            finish_all(store, tournament(store, bots=4, players=3, rounds=2), order)
            outcomes.append(ratings(store))
    assert outcomes[0] == outcomes[1] == outcomes[2]


def test_an_errored_match_is_skipped_by_ratings_and_does_not_block_later_ones(store):
    tournament_id = tournament(store, bots=2)
    first, second = store.pending_matches(tournament_id)
    store.record_match(second["id"], result([1, 2]))
    store.record_error(first["id"], "OSError: no more processes")
    assert store.match(first["id"])["error"] == "OSError: no more processes"
    assert store.match(second["id"])["rating_seq"] is not None
    assert store.one("SELECT SUM(matches) AS n FROM ratings")["n"] == 2


def test_ratings_keep_counts_of_first_places_ranks_and_failures(store):
    tournament_id = tournament(store, bots=2)
    first, second = store.pending_matches(tournament_id)
    store.record_match(first["id"], result([9, 1], statuses=["ok", "crash"]))
    store.record_match(second["id"], result([4, 4]))
    rows = {r["bot_version_id"]: r for r in store.query("SELECT * FROM ratings")}
    seat_versions = [s["bot_version_id"] for s in store.match(first["id"])["seats"]]
    winner, loser = rows[seat_versions[0]], rows[seat_versions[1]]
    assert (winner["matches"], winner["first_places"], winner["rank_sum"]) == (2, 2, 2)
    assert (loser["matches"], loser["first_places"], loser["rank_sum"], loser["failures_crash"]) == (2, 1, 3, 1)
    assert winner["conservative"] == pytest.approx(winner["mu"] - 3 * winner["sigma"])


def test_team_results_give_teammates_the_same_update(store):
    tournament_id = tournament(store, bots=4, players=4, game="agent-avenue")
    match = store.pending_matches(tournament_id)[0]
    store.record_match(match["id"], result([1, 0, 1, 0], teams=[[0, 2], [1, 3]], game="agent-avenue"))
    history = store.query("SELECT seat, mu_after - mu_before AS change FROM rating_history ORDER BY seat")
    assert history[0]["change"] == pytest.approx(history[2]["change"])
    assert history[1]["change"] == pytest.approx(history[3]["change"])
    assert history[0]["change"] > 0 > history[1]["change"]
    assert [s["team"] for s in store.match(match["id"])["seats"]] == [0, 1, 0, 1]


def test_recompute_gives_the_stored_numbers(store):
    finish_all(store, tournament(store, bots=5, players=3))
    finish_all(store, tournament(store, bots=3, players=2, seed=8))
    before = ratings(store)
    history = store.query("SELECT * FROM rating_history ORDER BY match_id, seat")
    summary = store.recompute_ratings()
    assert summary["max_change"] == 0.0 and summary["matches"] == 30 + 6
    assert ratings(store) == before
    assert store.query("SELECT * FROM rating_history ORDER BY match_id, seat") == history


def test_recompute_repairs_tampered_ratings(store):
    finish_all(store, tournament(store, bots=3))
    before = ratings(store)
    store.db.execute("UPDATE ratings SET mu = 99, matches = 0")
    assert store.recompute_ratings("five-towers")["max_change"] > 50
    assert ratings(store) == before


def test_a_reader_sees_committed_results_while_a_writer_holds_its_transaction(tmp_path):
    with Store(tmp_path / "arena.db") as writer:
        tournament_id = tournament(writer, bots=2)
        first, second = writer.pending_matches(tournament_id)
        writer.record_match(first["id"], result([2, 1]))
        with writer.write():
            writer.db.execute("UPDATE matches SET error = 'in progress' WHERE id = ?", [second["id"]])
            with Store(tmp_path / "arena.db", create=False) as reader:
                assert reader.one("SELECT SUM(matches) AS n FROM ratings")["n"] == 2


def test_a_run_that_could_not_write_its_last_status_shows_as_interrupted(store, tmp_path):
    """A full disk can refuse the run's last write (its status): the row still says `running`
    with this very process as runner, and must not read as running once the run is over."""
    import os

    tournament_id = tournament(store, bots=2)
    store.claim_tournament(tournament_id, os.getpid())
    assert store.tournament(tournament_id)["status"] == "running"
    with Store(tmp_path / "arena.db", readonly=True) as reader:  # its writes fail, as on a full disk
        with pytest.raises(StoreError):
            reader.set_tournament_status(tournament_id, "interrupted")
        assert reader.tournament(tournament_id)["status"] == "interrupted"
