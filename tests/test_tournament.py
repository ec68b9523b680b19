"""Tournaments with real bot processes and real SQLite files: running, parallelism, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.results.store import Store
from arena.tournament import TournamentConfig, TournamentError, create, load_file, run
from botmaker import write_bot
from synthetic import result
from waiting import PATIENCE, wait_until

REPO = Path(__file__).resolve().parents[1]
RANDOM_BOT = str(REPO / "bots" / "random.py")
LAST_LEGAL = 'reply({"type": "action", "index": len(message["legal"]) - 1})'


@pytest.fixture
def bots(tmp_path):
    source = tmp_path / "src"
    return [write_bot(source, "first"), write_bot(source, "last", on_request=LAST_LEGAL), RANDOM_BOT]


def standings(store, tournament_id=None):
    from arena.results.leaderboard import game_leaderboard, tournament_leaderboard

    board = tournament_leaderboard(store, tournament_id) if tournament_id else game_leaderboard(store, "toy")
    return [(e["bot"], e["mu"], e["sigma"], e["matches"], e["first_places"]) for e in board["entries"]]


def play_toy(store, bots, workers, rounds=1, players=2):
    tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=players, rounds=rounds, seed=11))
    return tournament_id, run(store, tournament_id, workers=workers)


def test_a_tournament_plays_and_rates_every_scheduled_match(tmp_path, bots):
    with Store(tmp_path / "arena.db") as store:
        tournament_id, summary = play_toy(store, bots, workers=2)
        info = store.tournament(tournament_id)
        assert (summary.played, summary.errors, summary.interrupted) == (6, 0, False)
        assert (info["status"], info["matches_finished"], info["rated_through"]) == ("finished", 6, 5)
        statuses = {s["status"] for m in store.query("SELECT id FROM matches") for s in store.match(m["id"])["seats"]}
        assert statuses == {"ok"}
        assert standings(store)[0][0] == "last"  # taking 3 points a turn beats taking 1


def test_one_worker_and_two_workers_give_identical_ratings(tmp_path, bots):
    outcomes = []
    for workers in (1, 2):
        (tmp_path / f"w{workers}").mkdir()
        with Store(tmp_path / f"w{workers}" / "arena.db") as store:
            play_toy(store, bots, workers=workers, rounds=2)
            outcomes.append(standings(store))
    assert outcomes[0] == outcomes[1]


def record_play(spec, log, bots=None):
    """A stand-in for play_match that notes each match it plays in ``log`` (runs in a pool
    worker; bind ``log`` with functools.partial: workers do not see later environment changes)."""
    from types import SimpleNamespace

    with open(log, "a") as handle:
        handle.write(f"{spec.seed}\n")
    scores = [float((spec.seed >> (5 * seat)) % 7) for seat in range(len(spec.bots))]
    return SimpleNamespace(to_dict=lambda: result(scores, game=spec.game))


def failing_play(spec, bots=None):
    raise OSError("out of file descriptors")


def test_resume_plays_exactly_the_unfinished_matches(tmp_path, bots):
    import functools

    record = functools.partial(record_play, log=str(tmp_path / "played.txt"))
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, rounds=2, seed=3))
        pending = store.pending_matches(tournament_id)
        for match in pending[::3]:
            store.record_match(match["id"], result([1, 2], game="toy"))
        summary = run(store, tournament_id, workers=2, play=record)
        played = sorted(int(line) for line in (tmp_path / "played.txt").read_text().split())
        assert played == sorted(m["seed"] for i, m in enumerate(pending) if i % 3)
        assert summary.played == len(played)
        assert store.tournament(tournament_id)["status"] == "finished"
        assert run(store, tournament_id, workers=2, play=record).played == 0


def test_a_match_the_harness_cannot_play_is_stored_as_an_error(tmp_path, bots):
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots[:2], players=2, seed=3))
        summary = run(store, tournament_id, workers=1, play=failing_play)
        assert (summary.errors, summary.interrupted) == (2, False)
        errors = store.query("SELECT error FROM matches WHERE tournament_id = ?", [tournament_id])
        assert errors == [{"error": "OSError: out of file descriptors"}] * 2


def test_the_same_bot_version_may_not_enter_twice(tmp_path, bots):
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(TournamentError, match="are the same bot; each may enter once"):
            create(store, TournamentConfig(game="toy", bots=[bots[0], bots[0]], players=2))


def test_an_unknown_bot_name_is_a_one_line_error(tmp_path):
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(TournamentError, match=r"unknown bot 'ghost' for toy"):
            create(store, TournamentConfig(game="toy", bots=["ghost", "spirit"], players=2))


def test_bad_options_are_refused_before_anything_is_stored(tmp_path, bots):
    from arena.games import OptionError

    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(OptionError):
            create(store, TournamentConfig(game="toy", bots=bots, players=2, options={"rounds": "many"}))
        assert store.tournaments() == []


def test_a_toml_file_with_several_tournaments_shares_its_top_level_defaults(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('rounds = 3\nseed = 9\n\n[[tournament]]\ngame = "toy"\nbots = ["a", "b"]\n\n'
                    '[[tournament]]\ngame = "five-towers"\nbots = ["c", "d"]\nrounds = 1\n')
    configs = load_file(path)
    assert [(c.game, c.rounds, c.seed) for c in configs] == [("toy", 3, 9), ("five-towers", 1, 9)]


def test_a_toml_file_with_an_unknown_key_is_refused(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('game = "toy"\nbots = ["a", "b"]\nround = 3\n')
    with pytest.raises(TournamentError, match="unknown key 'round'"):
        load_file(path)


# ---- the command as a process: kill -9, Ctrl-C, concurrent readers ------------------------------

def arena(db, *args, **kwargs):
    return subprocess.run([sys.executable, "-m", "arena.cli", "--db", str(db), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=PATIENCE, **kwargs)


def start_tournament(db, bots, rounds=2, env=None, command=None):
    db.parent.mkdir(exist_ok=True)
    command = (command or [sys.executable, "-m", "arena.cli"]) + [
        "--db", str(db), "tournament", "run", "--game", "five-towers", "--bots", ",".join(bots), "--players", "2",
        "--rounds", str(rounds), "--seed", "21", "--workers", "1"]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def wait_for_finished(db, count, process):
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if db.exists():
            try:
                with Store(db, create=False) as store:
                    if store.one("SELECT COUNT(*) AS n FROM matches WHERE status = 'finished'")["n"] >= count:
                        return
            except Exception:  # the schema may still be being created
                pass
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError("the tournament made no progress")


def leaderboard_json(db):
    out = arena(db, "leaderboard", "--game", "five-towers", "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["entries"]


@pytest.mark.slow
def test_kill_9_loses_no_finished_match_and_resume_equals_an_uninterrupted_run(tmp_path, bots):
    whole = start_tournament(tmp_path / "whole" / "arena.db", bots)
    assert whole.wait(timeout=PATIENCE) == 0, whole.communicate()
    db = tmp_path / "killed" / "arena.db"
    # Killed right after its 4th match is stored, however fast or slow the machine is.
    pause = tmp_path / "pause"
    pause.mkdir()
    env = {**os.environ, "PAUSE_AT": "arena.results.store.Store.record_match", "PAUSE_DIR": str(pause),
           "PAUSE_NTH": "4", "PAUSE_WHEN": "after"}
    process = start_tournament(db, bots, env=env, command=[sys.executable, str(REPO / "tests" / "paused_arena.py")])
    wait_until(lambda: (pause / "paused").exists(), process, "the 4th match stored")
    assert leaderboard_json(db)  # readable while the tournament writes
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=PATIENCE)
    with Store(db, create=False) as store:
        before = {m["id"]: m["ended_at"] for m in store.query("SELECT id, ended_at FROM matches WHERE status = 'finished'")}
        assert 3 <= len(before) < 12
        assert store.tournaments()[0]["status"] == "interrupted"
    resumed = arena(db, "tournament", "resume", "1", "--workers", "2")
    assert resumed.returncode == 0, resumed.stderr
    with Store(db, create=False) as store:
        after = {m["id"]: m["ended_at"] for m in store.query("SELECT id, ended_at FROM matches WHERE status = 'finished'")}
        assert len(after) == 12 and all(after[k] == v for k, v in before.items())
        assert store.one("SELECT COUNT(*) AS n FROM match_logs")["n"] == 12
        assert store.one("SELECT COUNT(DISTINCT match_id) AS n FROM rating_history")["n"] == 12
    assert leaderboard_json(db) == leaderboard_json(tmp_path / "whole" / "arena.db")


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_at_once_and_resume_completes_the_tournament(tmp_path, bots, stop):
    db = tmp_path / "arena.db"
    process = start_tournament(db, bots)
    wait_for_finished(db, 2, process)
    process.send_signal(stop)
    out, err = process.communicate(timeout=PATIENCE)
    assert process.returncode == 128 + stop, err
    assert "arena tournament resume 1" in out
    with Store(db, create=False) as store:
        info = store.tournaments()[0]
        assert info["status"] == "interrupted" and info["matches_pending"] > 0
        assert store.one("SELECT COUNT(*) AS n FROM match_logs")["n"] == info["matches_finished"]
    assert arena(db, "tournament", "resume", "1").returncode == 0
    with Store(db, create=False) as store:
        assert store.tournaments()[0]["matches_finished"] == 12


def test_a_missing_stored_bot_copy_stops_the_run_before_any_match(tmp_path, bots):
    import shutil

    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots[:2], players=2, seed=3))
        first = store.tournament_entries(tournament_id)[0]["path"].split("/")[0]
        shutil.rmtree(store.bot_store / first)
        with pytest.raises(TournamentError, match="first v1: the stored copy .* is missing"):
            run(store, tournament_id, workers=1)
        assert store.tournament(tournament_id)["matches_pending"] == 2


def _die_once_then_play(spec, marker=None, bots=None):
    """A `play` for pool workers: the first call kills its own worker outright (as the
    kernel's OOM killer would), later calls play normally."""
    from arena.runner.match import play_match

    if marker is not None and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return play_match(spec, bots=bots)


def test_a_match_whose_worker_dies_is_played_again(tmp_path, bots):
    import functools

    play = functools.partial(_die_once_then_play, marker=str(tmp_path / "died"))
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, seed=11))
        summary = run(store, tournament_id, workers=2, play=play)
        assert (tmp_path / "died").exists()
        assert (summary.played, summary.errors, summary.interrupted) == (6, 0, False)


def _die_twice_then_play(spec, folder=None, bots=None):
    """The first two calls, in any worker, kill their own worker; later calls play."""
    from arena.runner.match import play_match

    for name in ("first", "second"):
        marker = os.path.join(folder, name)
        if not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
    return play_match(spec, bots=bots)


def test_a_match_waiting_behind_a_dying_worker_spends_no_attempt(tmp_path, bots):
    """A worker holds the match it plays and the next one; when it dies, only the first was
    played: the waiting one is not counted as lost, so two deaths in a row store no error."""
    import functools

    play = functools.partial(_die_twice_then_play, folder=str(tmp_path))
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, seed=11))
        summary = run(store, tournament_id, workers=1, play=play)
        assert (tmp_path / "second").exists()
        assert (summary.played, summary.errors, summary.interrupted) == (6, 0, False)
