"""Contest formats: gauntlet, Swiss, ladder, SPRT and duplicate deals — their schedules, their
stopping rules, and that each is deterministic from the seed, the same for 1 and 2 workers,
and resumable."""

from __future__ import annotations

import json
import random
import shutil
import statistics as stats
from collections import Counter
from pathlib import Path

import pytest

from arena.results import sprt, statistics
from arena.results.schema import SCHEMA_VERSION
from arena.results.store import Store
from arena.runner.match import strip_timing
from arena.tournament import TournamentConfig, TournamentError, create, run
from arena.tournament.formats.gauntlet import gauntlet
from botmaker import random_copies
from waiting import PATIENCE

REPO = Path(__file__).resolve().parents[1]
GREEDY = str(REPO / "tests" / "bots" / "greedy.py")


@pytest.fixture
def randoms(tmp_path):
    """Copies of the random bot, each its own version."""
    return random_copies(tmp_path / "randoms", 6)


def logs_and_board(store, tournament_id):
    from arena.results.leaderboard import tournament_leaderboard

    logs = [strip_timing(store.match(row["id"])["log"]) for row in store.query(
        "SELECT id FROM matches WHERE tournament_id = ? AND status = 'finished' ORDER BY schedule_index",
        [tournament_id])]
    board = [(e["bot"], round(e["mu"], 9), round(e["sigma"], 9), e["matches"])
             for e in tournament_leaderboard(store, tournament_id)["entries"]]
    return logs, board


def played_with(tmp_path, config: TournamentConfig, workers: int, name: str):
    with Store(tmp_path / f"{name}.db") as store:
        tournament_id = create(store, config)
        run(store, tournament_id, workers=workers)
        return logs_and_board(store, tournament_id), store.tournament(tournament_id)


# ---- gauntlet -------------------------------------------------------------------------------------

def test_a_gauntlet_puts_a_candidate_in_every_match_against_every_field_group_in_every_seat():
    schedule = gauntlet([0, 1], [2, 3, 4], players=3, rounds=1, seed=5)
    assert len(schedule) == 2 * 3 * 3
    for match in schedule:
        assert sum(1 for e in match.seats if e in (0, 1)) == 1
    seats = Counter((e, seat) for m in schedule for seat, e in enumerate(m.seats) if e in (0, 1))
    assert set(seats.values()) == {3}  # each candidate sits in each seat equally often


def test_a_gauntlet_needs_candidates(tmp_path, randoms):
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(TournamentError, match="needs candidates"):
            create(store, TournamentConfig(game="toy", bots=randoms[:3], format="gauntlet"))


# ---- Swiss --------------------------------------------------------------------------------------

def test_swiss_pairs_by_standing_without_repeating_a_group_while_avoidable(tmp_path, randoms):
    bots = [GREEDY] + randoms[:5]
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, format="swiss", rounds=3, seed=4))
        run(store, tournament_id, workers=2)
        groups = Counter()
        for match in statistics.by_match(statistics.seat_rows(store, tournament_id)):
            if match[0].seat == 0:
                groups[(match[0].round, frozenset(r.version for r in match))] += 1
        per_round = Counter()
        for (round_number, _), count in groups.items():
            per_round[round_number] += count
        assert per_round == {0: 6, 1: 6, 2: 6}  # 3 groups of 2 a round, each in both seatings
        assert set(groups.values()) == {2}
        assert len({group for _, group in groups}) == 9  # no group met in two rounds


def test_swiss_after_round_one_the_winners_meet(tmp_path, randoms):
    second = tmp_path / "greedy2.py"
    shutil.copy(GREEDY, second)
    with open(second, "a") as handle:
        handle.write("# the other greedy\n")
    second.chmod(0o644)
    bots = [GREEDY, str(second)] + randoms[:2]
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, format="swiss", rounds=2, seed=11))
        run(store, tournament_id, workers=1)
        entries = {e["bot_version_id"]: e["bot"] for e in store.tournament_entries(tournament_id)}
        rows = statistics.seat_rows(store, tournament_id)
        round_two = {frozenset(entries[r.version] for r in m) for m in statistics.by_match(rows) if m[0].round == 1}
        first_round = {frozenset(entries[r.version] for r in m) for m in statistics.by_match(rows) if m[0].round == 0}
        if frozenset({"greedy", "greedy2"}) not in first_round:
            assert frozenset({"greedy", "greedy2"}) in round_two


def test_swiss_gives_the_odd_one_out_a_bye(tmp_path, randoms):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=randoms[:5], format="swiss", rounds=5,
                                                       seed=2))
        run(store, tournament_id, workers=2)
        rows = statistics.seat_rows(store, tournament_id)
        sat_out = []
        for round_number in range(5):
            present = {r.version for r in rows if r.round == round_number}
            sat_out += [v for v in {r.version for r in rows} if v not in present]
        assert len(sat_out) == 5 and len(set(sat_out)) == 5  # one bye a round, never twice


def test_swiss_standings_count_swiss_points_with_byes_and_buchholz_and_show_every_round(tmp_path, randoms):
    from arena.results import swiss

    bots = [GREEDY] + randoms[:4]
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, format="swiss", rounds=5, seed=2))
        run(store, tournament_id, workers=2)
        rounds = swiss.rounds(store, tournament_id)
        table = swiss.standings(store, tournament_id)
        text = swiss.text(store, tournament_id)
        names = {e["bot_version_id"]: e["bot"] for e in store.tournament_entries(tournament_id)}
    assert [len(r.groups) for r in rounds] == [2] * 5 and [len(r.byes) for r in rounds] == [1] * 5
    assert sorted(v for r in rounds for v in r.byes) == sorted(names)  # each sits out once
    # 2 players: a match hands out 1 point in all; a bye is worth a round of draws (1 point)
    assert sum(row.points for row in table) == pytest.approx(20 + 5)
    assert names[table[0].version] == "greedy" and table[0].place == 1
    keys = [(-round(r.points, 9), -round(r.buchholz, 9), -r.first_places) for r in table]
    assert keys == sorted(keys)
    assert text.count("\nround ") == 5 and "; bye: " in text and "Swiss standings" in text


def test_a_swiss_progress_counts_the_matches_of_every_round_from_the_start(tmp_path, randoms):
    from arena.results.describe import format_text

    seen = []
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=randoms[:5], format="swiss", rounds=3,
                                                       seed=2))
        run(store, tournament_id, workers=2, progress=seen.append)
        text = format_text(store.tournament(tournament_id), 5)
    assert seen[0].total == 12 and seen[-1].final and (seen[-1].done, seen[-1].total) == (12, 12)
    assert all(p.total == 12 for p in seen)  # 3 rounds of 2 groups, each in both seatings
    assert text == "swiss, 3 rounds of 4 matches: 12 matches in all"


def test_a_ladder_and_an_sprt_say_their_stop_rule():
    from arena.results.describe import format_text, planned_matches

    ladder = {"format": "ladder", "players": 2, "config": {"max_matches": 500, "until_stable": True, "top": 3,
                                                           "stable_batches": 5, "sigma_bound": 1.5}}
    assert format_text(ladder, 10) == ("ladder, until the top 3 keep their order for 5 batches with every σ under"
                                       " 1.5, at most 500 matches")
    assert planned_matches(ladder, 10) == (500, False)
    sprt = {"format": "sprt", "players": 2, "config": {"elo0": 0, "elo1": 5, "alpha": 0.05, "beta": 0.1}}
    assert format_text(sprt, 2) == "sprt, elo0 0 elo1 5, alpha 0.05 beta 0.1: until H0 or H1 is accepted"


# ---- ladder -----------------------------------------------------------------------------------------

def test_a_ladder_plays_batches_until_its_match_count(tmp_path, randoms):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=randoms[:4], format="ladder", batch=4,
                                                       max_matches=12, seed=1))
        summary = run(store, tournament_id, workers=2)
        assert summary.played == 12
        assert store.tournament(tournament_id)["format_state"]["stopped"] == "max_matches"
        counts = Counter(r.version for r in statistics.seat_rows(store, tournament_id))
        assert max(counts.values()) - min(counts.values()) <= 2  # the fewest-played go first


def test_a_bot_added_to_a_running_ladder_plays_in_its_next_batches_and_a_withdrawn_one_stops(tmp_path, randoms):
    from arena.tournament.create import resolve_one

    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=randoms[:3], format="ladder", batch=3,
                                                       max_matches=6, seed=3))
        run(store, tournament_id, workers=1)
        newcomer = resolve_one(store, "toy", GREEDY)
        store.add_entry(tournament_id, newcomer["id"])
        leaving = store.tournament_entries(tournament_id)[0]["bot_version_id"]
        store.withdraw_entry(tournament_id, leaving)
        config = store.tournament(tournament_id)["config"]
        store.set_tournament_config(tournament_id, {**config, "max_matches": 18})
        run(store, tournament_id, workers=1)
        rows = statistics.seat_rows(store, tournament_id)
        later = [r for r in rows if r.schedule_index >= 6]
        assert any(r.version == newcomer["id"] for r in later)
        assert not any(r.version == leaving for r in later)


def test_a_ladder_until_stable_stops_once_the_top_is_settled(tmp_path, randoms):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=[GREEDY] + randoms[:2], format="ladder",
                                                       batch=6, until_stable=True, top=1, stable_batches=2,
                                                       sigma_bound=4.0, max_matches=600, seed=5))
        summary = run(store, tournament_id, workers=2)
        state = store.tournament(tournament_id)["format_state"]
        assert state["stopped"] == "stable" and summary.played < 600


# ---- SPRT ------------------------------------------------------------------------------------------

def simulated_pairs(rng: random.Random, elo: float, count: int) -> list[float]:
    """Pairs of games (no draws) between bots ``elo`` apart: each pair's mean score."""
    win = statistics.elo_to_score(elo)
    return [sum(rng.random() < win for _ in range(2)) / 2 for _ in range(count)]


@pytest.mark.parametrize("elo,accepted", [(-20, "H0"), (40, "H1")])
def test_the_sprt_accepts_the_right_hypothesis_for_bots_of_known_strength(elo, accepted):
    rng = random.Random(7)
    verdicts = Counter(statistics.sprt_decision(simulated_pairs(rng, elo, 5000), 0, 10, 0.05, 0.05)[0]
                       for _ in range(100))
    assert verdicts[accepted] >= 97


@pytest.mark.parametrize("elo,wrong", [(0, "H1"), (10, "H0")])
def test_the_sprt_errs_at_most_as_often_as_alpha_and_beta_allow(elo, wrong):
    rng = random.Random(11)
    verdicts = Counter(statistics.sprt_decision(simulated_pairs(rng, elo, 8000), 0, 10, 0.05, 0.05)[0]
                       for _ in range(300))
    assert verdicts[wrong] <= 0.05 * 300 * 1.8  # within sampling noise of 5 %


def test_an_sprt_of_a_much_stronger_version_accepts_h1_and_stops(tmp_path, randoms):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=[GREEDY, randoms[0]], format="sprt",
                                                       elo0=0, elo1=30, batch=4, seed=2))
        summary = run(store, tournament_id, workers=2)
        state = store.tournament(tournament_id)["format_state"]
        assert state["verdict"] == "H1" and summary.played < 100


def test_an_sprt_of_equal_versions_accepts_h0(tmp_path, randoms):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=randoms[:2], format="sprt", elo0=0,
                                                       elo1=150, batch=16, seed=3, options={"rounds": 1}))
        run(store, tournament_id, workers=2)
        assert store.tournament(tournament_id)["format_state"]["verdict"] == "H0"


def test_an_sprt_with_more_players_keeps_the_field_and_the_deal_in_both_matches_of_a_pair(tmp_path, randoms):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", players=3, bots=[GREEDY, randoms[0]],
                                                       field=randoms[1:4], format="sprt", elo1=30, batch=3,
                                                       max_matches=12, seed=4))
        run(store, tournament_id, workers=1)
        entries = {e["bot_version_id"]: e["position"] for e in store.tournament_entries(tournament_id)}
        for deal, matches in statistics.duplicate_sets(statistics.seat_rows(store, tournament_id)).items():
            assert len(matches) == 2
            a, b = ([entries[r.version] for r in sorted(m, key=lambda r: r.seat)] for m in matches)
            assert [p for p in a if p > 1] == [p for p in b if p > 1]  # the same field in the same seats
            assert a.index(min(a)) == b.index(min(b))  # new and old in the same seat


# ---- duplicate deals ---------------------------------------------------------------------------------

def test_duplicate_sets_cancel_the_luck_of_the_deal_for_identical_bots(tmp_path, randoms):
    twins = randoms[:2]
    spreads = {}
    for duplicate in (False, True):
        with Store(tmp_path / f"dup{duplicate}.db") as store:
            tournament_id = create(store, TournamentConfig(game="agent-avenue", bots=twins, rounds=20,
                                                           duplicate=duplicate, seed=8))
            run(store, tournament_id, workers=2)
            rows = statistics.seat_rows(store, tournament_id)
            versions = sorted({r.version for r in rows})
            matches = statistics.by_match(rows)
            # Independent deals are paired in schedule order into sets of the same size.
            sets = (list(statistics.duplicate_sets(rows).values()) if duplicate
                    else [matches[i:i + 2] for i in range(0, len(matches), 2)])
            spreads[duplicate] = stats.pstdev(statistics.set_difference(s, *versions) for s in sets)
    assert spreads[True] < 0.5 * spreads[False]


# ---- every format: the seed decides, not the workers; resume continues ---------------------------

@pytest.mark.parametrize("extra", [
    {"format": "gauntlet", "candidates": "first"},
    {"format": "swiss", "rounds": 3},
    {"format": "swiss", "rounds": 2, "finals": [[3, 1], [2, 2]]},
    {"format": "ladder", "batch": 4, "max_matches": 12},
    {"format": "sprt", "elo1": 100, "batch": 4, "max_matches": 24},
    {"format": "round-robin", "duplicate": True},
], ids=["gauntlet", "swiss", "swiss-finals", "ladder", "sprt", "duplicate"])
def test_one_and_two_workers_give_the_same_matches_and_ratings(tmp_path, randoms, extra):
    extra = dict(extra)
    bots = randoms[:4] if extra["format"] != "sprt" else randoms[:2]
    if extra.get("candidates") == "first":
        extra["candidates"], bots = [bots[0]], bots[1:]
    results = [played_with(tmp_path, TournamentConfig(game="toy", bots=bots, seed=21, **extra), workers, f"w{workers}")
               for workers in (1, 2)]
    assert results[0][0] == results[1][0]
    assert results[0][1]["format_state"] == results[1][1]["format_state"]


def test_a_swiss_tournament_killed_half_way_resumes_to_the_same_end(tmp_path, randoms):
    import os
    import signal
    import subprocess
    import sys
    import time

    config = TournamentConfig(game="toy", bots=randoms[:4], format="swiss", rounds=6, seed=9,
                              options={"rounds": 200})
    whole = played_with(tmp_path, config, 2, "whole")[0]
    db = tmp_path / "killed.db"
    process = subprocess.Popen([sys.executable, "-m", "arena", "--db", str(db), "tournament", "run", "--game", "toy",
                                "--format", "swiss", "--rounds", "6", "--seed", "9", "--option", "rounds=200",
                                "--bots", ",".join(randoms[:4])], cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=os.environ)
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if db.exists():
            try:
                with Store(db, readonly=True) as store:
                    if store.one("SELECT COUNT(*) AS n FROM matches WHERE round >= 2")["n"]:
                        break
            except Exception:
                pass
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    with Store(db) as store:
        tournament_id = store.tournaments()[0]["id"]
        assert store.tournament(tournament_id)["status"] == "interrupted"
        run(store, tournament_id, workers=1)
        assert logs_and_board(store, tournament_id) == whole


# ---- SPRT state: stored with the test, reported on resume, continued by id -----------------------

def arena_cli(db, *args):
    from click.testing import CliRunner

    from arena.cli import main

    return CliRunner().invoke(main, ["--db", str(db), *args], catch_exceptions=False)


def kill_when(process, db: Path, sql: str, timeout: float = 120) -> None:
    """SIGKILL ``process`` as soon as ``sql`` (a COUNT) finds a row in ``db`` (it must, in time)."""
    import signal
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if db.exists():
            try:
                with Store(db, readonly=True) as store:
                    if store.one(sql)["n"]:
                        break
            except Exception:
                pass  # the schema may still be being created
        time.sleep(0.02)
    assert process.poll() is None, "the run ended before the moment to kill it"
    process.send_signal(signal.SIGKILL)
    process.wait()


SPRT_ARGS = ["--game", "toy", "--elo0", "0", "--elo1", "15", "--batch", "4", "--seed", "5", "--option", "rounds=150"]


def test_an_sprt_killed_with_sigkill_resumes_to_its_verdict_exit_code_and_stored_state(tmp_path, randoms):
    import os
    import subprocess
    import sys

    config = TournamentConfig(game="toy", bots=randoms[:2], format="sprt", elo0=0, elo1=15, batch=4, seed=5,
                              options={"rounds": 150})
    (whole, _), finished = played_with(tmp_path, config, 2, "whole")
    assert finished["format_state"]["verdict"] == "H0"
    with Store(tmp_path / "whole.db", readonly=True) as store:
        expected = sprt.load(store, finished["id"]).as_dict()
    db = tmp_path / "killed.db"
    process = subprocess.Popen([sys.executable, "-m", "arena", "--db", str(db), "sprt", *SPRT_ARGS, "--workers", "2",
                                "--bots", ",".join(randoms[:2])], cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=os.environ)
    # The third batch is planned: two steps' states are behind it, many pairs still to play.
    kill_when(process, db, "SELECT COUNT(*) AS n FROM matches WHERE round >= 2")
    with Store(db) as store:
        tournament_id = store.tournaments()[0]["id"]
        assert store.tournament(tournament_id)["status"] == "interrupted"
        assert sprt.load(store, tournament_id).verdict is None  # killed before the verdict

    resumed = arena_cli(db, "tournament", "resume", str(tournament_id), "--workers", "2")
    assert resumed.exit_code == 3, resumed.output  # the documented code for H0
    assert resumed.stdout.splitlines()[-1].startswith(f"H0 accepted after {expected['pairs']} pairs")
    with Store(db, readonly=True) as store:
        assert logs_and_board(store, tournament_id)[0] == whole
        assert {**sprt.load(store, tournament_id).as_dict(), "updated_at": None} == {**expected, "updated_at": None}

    shown = arena_cli(db, "tournament", "show", str(tournament_id))
    assert (f"sprt: elo0 0, elo1 15, alpha 0.05, beta 0.05: LLR {expected['llr']:.2f} after {expected['pairs']}"
            " pairs in [-2.94, 2.94]; H0 accepted") in shown.stdout
    as_json = json.loads(arena_cli(db, "tournament", "show", str(tournament_id), "--json").stdout)["sprt"]
    assert {key: as_json[key] for key in ("elo0", "elo1", "alpha", "beta", "pairs", "verdict", "statistic")} == \
        {"elo0": 0.0, "elo1": 15.0, "alpha": 0.05, "beta": 0.05, "pairs": expected["pairs"], "verdict": "H0",
         "statistic": "gsprt-exact"}
    assert as_json["lower"] == pytest.approx(-2.944, abs=1e-3) and as_json["llr"] == pytest.approx(expected["llr"])

    again = arena_cli(db, "sprt", "--id", str(tournament_id))
    assert again.exit_code == 3 and again.stdout.splitlines()[-1].startswith("H0 accepted")


def test_the_sprt_state_is_stored_from_the_start(tmp_path, randoms):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=randoms[:2], format="sprt", elo0=-5,
                                                       elo1=25, alpha=0.1, beta=0.02, seed=1))
        state = sprt.load(store, tournament_id)
        assert (state.elo0, state.elo1, state.alpha, state.beta, state.pairs, state.llr, state.verdict) == \
            (-5, 25, 0.1, 0.02, 0, 0.0, None)
        assert (state.lower, state.upper) == statistics.sprt_bounds(0.1, 0.02)
        assert store.one("SELECT COUNT(*) AS n FROM sprt_tests")["n"] == 1
        # A budget of one batch is not spent before that batch is played.
        small = create(store, TournamentConfig(game="toy", bots=randoms[2:4], format="sprt", batch=4,
                                               max_matches=8, seed=1))
        assert store.tournament(small)["matches_total"] == 8 and sprt.load(store, small).verdict is None


def test_sprt_id_goes_on_with_a_test_whose_budget_ran_out_when_given_a_larger_one(tmp_path, randoms):
    db = tmp_path / "arena.db"
    first = arena_cli(db, "sprt", *SPRT_ARGS, "--bots", ",".join(randoms[:2]), "--max-matches", "8")
    assert first.exit_code == 4, first.output
    assert first.stdout.splitlines()[-1].startswith("no verdict after 4 pairs")
    more = arena_cli(db, "sprt", "--id", "1", "--max-matches", "400", "--workers", "2")
    assert more.exit_code == 3, more.output
    with Store(db, readonly=True) as store:
        assert sprt.load(store, 1).verdict == "H0" and store.tournament(1)["config"]["max_matches"] == 400


def test_sprt_id_refuses_a_tournament_that_is_no_sprt_and_options_that_would_change_the_test(tmp_path, randoms):
    db = tmp_path / "arena.db"
    assert arena_cli(db, "tournament", "run", "--game", "toy", "--bots", ",".join(randoms[:2])).exit_code == 0
    assert arena_cli(db, "sprt", *SPRT_ARGS, "--bots", ",".join(randoms[2:4]), "--max-matches", "4").exit_code == 4
    other = arena_cli(db, "sprt", "--id", "1")
    assert other.exit_code == 1
    assert other.stderr.splitlines() == ["Error: tournament 1 is not an SPRT test (it is a round-robin tournament;"
                                         " continue it with: arena tournament resume 1)"]
    for args in (["--elo1", "30"], ["--bots", "a,b"], ["--seed", "3"], ["--decision-ms", "50"]):
        changed = arena_cli(db, "sprt", "--id", "2", *args)
        assert changed.exit_code == 2 and len(changed.stderr.splitlines()) == 1
        assert changed.stderr.startswith(f"Error: {args[0]} cannot change an existing test")
    missing = arena_cli(db, "sprt", "--id", "99")
    assert missing.exit_code == 1 and missing.stderr.splitlines() == ["Error: no tournament 99"]


def test_a_database_from_before_the_sprt_table_reads_as_it_is_and_upgrades_with_its_state(tmp_path, randoms):
    import sqlite3

    db = tmp_path / "arena.db"
    with Store(db) as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=randoms[:2], format="sprt", elo1=60,
                                                       batch=4, seed=5))
        run(store, tournament_id, workers=1)
        expected = sprt.load(store, tournament_id)
    connection = sqlite3.connect(db)  # what schema 2 had: the state only in format_state
    connection.execute("DROP TABLE sprt_tests")
    connection.execute("PRAGMA user_version = 2")
    connection.commit()
    connection.close()
    with Store(db, readonly=True) as store:
        assert sprt.load(store, tournament_id).as_dict() == {**expected.as_dict(), "updated_at": None}
    shown = arena_cli(db, "tournament", "show", str(tournament_id))
    assert shown.exit_code == 0 and "; H0 accepted" in shown.stdout
    with Store(db) as store:  # a writer upgrades it
        assert store.one("PRAGMA user_version")["user_version"] == SCHEMA_VERSION
        row = store.one("SELECT pairs, verdict, llr FROM sprt_tests WHERE tournament_id = ?", [tournament_id])
        assert row == {"pairs": expected.pairs, "verdict": "H0", "llr": expected.llr}
