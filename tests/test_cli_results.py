"""The results commands through click: submit, bots, tournament, ratings, leaderboard, show, --db."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.cli import main
from botmaker import write_bot

LAST_LEGAL = 'reply({"type": "action", "index": len(message["legal"]) - 1})'


@pytest.fixture
def db(tmp_path):
    (tmp_path / "results").mkdir()
    return str(tmp_path / "results" / "arena.db")


@pytest.fixture
def bots(tmp_path):
    return [write_bot(tmp_path / "src", "first"), write_bot(tmp_path / "src", "last", on_request=LAST_LEGAL)]


def arena(db, *args, env=None):
    return CliRunner().invoke(main, ["--db", db, *args] if db else list(args), env=env, catch_exceptions=False)


@pytest.fixture
def played(db, bots):
    """A finished toy tournament: first vs last, 2 rounds."""
    out = arena(db, "tournament", "run", "--game", "toy", "--bots", ",".join(bots), "--rounds", "2", "--seed", "4",
                "--workers", "2")
    assert out.exit_code == 0, out.output
    return out


def test_tournament_run_reports_the_schedule_and_the_outcome(played):
    assert "tournament 1: toy, 2 bots, 2 players, round-robin, 2 round(s): 4 matches, seed 4" in played.stdout
    assert "tournament 1 finished: 4 matches played" in played.stdout


def test_submit_then_resubmit_then_bots(db, bots):
    accepted = arena(db, "submit", bots[0], "--game", "toy", "--name", "alpha")
    assert accepted.exit_code == 0 and accepted.stdout.startswith("accepted: toy/alpha v1 (python, sha256 ")
    again = arena(db, "submit", bots[0], "--game", "toy", "--name", "alpha")
    assert again.stdout.startswith("unchanged: toy/alpha v1 already has this content")
    listing = arena(db, "bots", "--game", "toy").stdout.splitlines()
    assert listing[0].split()[:4] == ["game", "bot", "ver", "language"]
    assert listing[1].split()[:4] == ["toy", "alpha", "1", "python"]
    assert listing[1].split()[-1] == "http://127.0.0.1:8000/games/toy/bots/alpha"
    elsewhere = arena(db, "bots", "--url", "https://arena.example.org/").stdout.splitlines()
    assert elsewhere[1].split()[-1] == "https://arena.example.org/games/toy/bots/alpha"


def test_a_rejected_submission_exits_1_with_the_reason(db, tmp_path):
    path = write_bot(tmp_path / "src", "quitter", on_start="sys.exit(1)")
    out = arena(db, "submit", path, "--game", "toy")
    assert out.exit_code == 1
    assert "Error: rejected quitter: its validation match against the random bot ended with status crash" in out.stderr


@pytest.mark.parametrize("args, message", [
    (["submit", "nothere.py", "--game", "toy"], "Error: no such file or directory: nothere.py"),
    (["submit", "nothere.py", "--game", "chess"], "Error: unknown game 'chess'"),
    (["leaderboard", "--game", "chess"], "Error: unknown game 'chess'"),
    (["tournament", "run", "--game", "toy", "--bots", "ghost,spirit"], "Error: unknown bot 'ghost' for toy"),
])
def test_bad_input_is_a_one_line_error(db, args, message):
    out = arena(db, *args)
    assert out.exit_code != 0
    assert out.stderr.strip().splitlines()[-1].startswith(message)


def test_reading_commands_do_not_create_a_database(db):
    out = arena(db, "leaderboard", "--game", "toy")
    assert out.exit_code == 1 and "no database at" in out.stderr


def test_the_arena_db_variable_chooses_the_database(tmp_path, bots):
    chosen = tmp_path / "elsewhere" / "x.db"
    chosen.parent.mkdir()
    out = arena(None, "submit", bots[0], "--game", "toy", env={"ARENA_DB": str(chosen)})
    assert out.exit_code == 0, out.output
    assert chosen.exists() and list((chosen.parent / "x.db-bots").glob("*/first.py"))


def test_leaderboard_needs_a_game_a_tournament_or_all_games(db, played):
    out = arena(db, "leaderboard")
    assert out.exit_code == 2 and "--all-games" in out.stderr


def test_leaderboard_formats(db, played):
    table = arena(db, "leaderboard", "--game", "toy").stdout.splitlines()
    assert table[0] == "toy" and table[2].split()[:2] == ["1", "last"]
    data = json.loads(arena(db, "leaderboard", "--game", "toy", "--format", "json", "--limit", "1").stdout)
    assert [e["bot"] for e in data["entries"]] == ["last"]
    rows = arena(db, "leaderboard", "--all-games", "--format", "csv").stdout.splitlines()
    assert rows[0].startswith("game,tournament,rank,bot,version,") and len(rows) == 3
    listed = json.loads(arena(db, "leaderboard", "--all-games", "--format", "json").stdout)
    assert [board["game"] for board in listed] == ["toy"]


def test_tournament_list_and_show(db, played):
    listing = arena(db, "tournament", "list").stdout.splitlines()
    assert listing[1].split()[:8] == ["1", "-", "toy", "round-robin", "2", "2", "4/4", "0"]
    shown = arena(db, "tournament", "show", "1").stdout
    assert "tournament 1: finished" in shown and "matches: 4 finished, 0 errors, 0 pending, of 4" in shown
    assert "format: round-robin, 2 round(s): 4 matches" in shown
    data = json.loads(arena(db, "tournament", "show", "1", "--json").stdout)
    assert data["matches_finished"] == 4 and [e["bot"] for e in data["leaderboard"]] == ["last", "first"]
    assert arena(db, "tournament", "show", "9").stderr.strip() == "Error: no tournament 9"


def test_show_prints_every_decision(db, played):
    text = arena(db, "show", "1").stdout
    assert text.startswith("match 1 (tournament 1 #0): toy, 2 players")
    assert sum(1 for line in text.splitlines() if line.startswith("step ")) == 6  # 3 rounds x 2 seats
    data = json.loads(arena(db, "show", "1", "--json").stdout)
    assert [e["event"] for e in data["log"]].count("request") == 6
    assert {"seats", "log", "options", "seed", "rating_seq"} <= set(data)


def test_ratings_recompute_reports_no_change(db, played):
    out = arena(db, "ratings", "recompute", "--game", "toy")
    assert out.stdout.strip() == ("recomputed ratings from 4 matches for 2 bot versions (toy);"
                                  " largest change in mu or sigma: 0")


def test_a_tournament_file_skips_what_is_unavailable_when_asked(db, bots, tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(f'skip_unavailable = true\nseed = 1\n\n[[tournament]]\ngame = "toy"\n'
                    f'bots = ["{bots[0]}", "{bots[1]}", "{tmp_path}/missing.py"]\n\n'
                    f'[[tournament]]\ngame = "no-such-game"\nbots = ["a", "b"]\n')
    out = arena(db, "tournament", "run", str(path))
    assert out.exit_code == 0, out.output
    assert "leaving out" in out.stderr and "skipping no-such-game" in out.stderr
    assert "tournament 1 finished: 2 matches played" in out.stdout


def test_the_cli_default_database_is_the_stores():
    from arena import cli
    from arena.results import store

    assert cli.DEFAULT_DB == store.DEFAULT_DB


def _sleep_forever(_):
    import time

    time.sleep(3600)


def test_an_in_process_run_gives_back_the_signal_handlers_so_a_later_pool_can_be_terminated(db, bots):
    """The hang that once stuck CI: a coordinator's SIGTERM handler left in the test process is
    inherited by fork-based pool workers, which then ignore Pool.terminate() for ever."""
    import multiprocessing
    import signal

    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    out = arena(db, "tournament", "run", "--game", "toy", "--bots", ",".join(bots), "--seed", "4", "--workers", "1")
    assert out.exit_code == 0, out.output
    assert {signum: signal.getsignal(signum) for signum in before} == before
    pool = multiprocessing.get_context("fork").Pool(1)
    pool.map_async(_sleep_forever, [0])
    pool.terminate()
    finished = []
    import threading

    joiner = threading.Thread(target=lambda: (pool.join(), finished.append(True)), daemon=True)
    joiner.start()
    joiner.join(60)
    assert finished, "Pool.join() did not return after terminate(): a worker ignored SIGTERM"
