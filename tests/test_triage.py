"""What an organiser needs around a run: progress without a terminal, the failures listing,
retrying harness errors, bot names that keep files apart, and a changed stored copy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.entry import main as entry
from arena.results.store import Store
from arena.tournament import TournamentConfig, TournamentError, create, retry_errors, run
from botmaker import write_bot
from waiting import PATIENCE

REPO = Path(__file__).resolve().parents[1]
RANDOM = str(REPO / "bots" / "random.py")


def arena(capsys, *args):
    with pytest.raises(SystemExit) as leaving:
        entry([str(a) for a in args])
    captured = capsys.readouterr()
    return leaving.value.code, captured.out, captured.err


def test_without_a_terminal_progress_is_plain_lines(tmp_path):
    bots = [write_bot(tmp_path / "src", "a"), RANDOM]
    done = subprocess.run([sys.executable, "-m", "arena", "--db", str(tmp_path / "arena.db"), "tournament", "run",
                           "--game", "toy", "--bots", ",".join(bots), "--rounds", "3", "--seed", "1"],
                          cwd=REPO, capture_output=True, text=True, timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.split("\n") if line.startswith("tournament 1: ")]
    assert lines[0].startswith("tournament 1: 0/6 matches")
    assert lines[-1].startswith("tournament 1: 6/6 matches") and "0 harness errors" in lines[-1]
    assert done.stderr.endswith("\n") and "\r" not in done.stderr


def test_failures_lists_failed_seats_with_error_and_stderr(tmp_path, capsys):
    crasher = write_bot(tmp_path / "src", "crasher", on_request='sys.stderr.write("about to fail\\n"); sys.exit(3)')
    db = tmp_path / "arena.db"
    code, _, err = arena(capsys, "--db", db, "tournament", "run", "--game", "toy", "--bots", f"{crasher},{RANDOM}",
                         "--seed", "1")
    assert code == 0, err
    code, out, err = arena(capsys, "--db", db, "failures", "--bot", "crasher")
    assert code == 0, err
    assert out.count(" seat ") == 2 and "crasher v1: crash: step" in out and "exited with code 3" in out
    assert "reproduce it: arena rerun 1 --seat 0" in out or "reproduce it: arena rerun 1 --seat 1" in out
    assert "| about to fail" in out
    code, out, _ = arena(capsys, "--db", db, "failures", "--bot", "random")
    assert out.strip() == "no failures"


def _fail_first_then_play(spec, marker, bots=None):
    from arena.runner.match import play_match

    if not os.path.exists(marker):
        with open(marker, "a"):
            pass
        raise OSError("the machine ran out of something")
    return play_match(spec, bots=bots)


def test_retry_plays_the_harness_errors_again(tmp_path):
    import functools

    bots = [write_bot(tmp_path / "src", "a"), RANDOM]
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, seed=3))
        play = functools.partial(_fail_first_then_play, marker=str(tmp_path / "failed-once"))
        summary = run(store, tournament_id, workers=1, play=play)
        assert summary.errors == 1 and summary.played == 1
        assert retry_errors(store, tournament_id) == 1
        again = run(store, tournament_id, workers=1)
        assert again.played == 1 and again.errors == 0
        info = store.tournament(tournament_id)
        assert (info["matches_finished"], info["matches_error"]) == (2, 0)
        assert store.one("SELECT COUNT(*) AS n FROM matches WHERE rating_seq IS NOT NULL")["n"] == 2


def test_two_files_called_bot_in_one_tournament_are_two_bots_and_say_so(tmp_path):
    alice = write_bot(tmp_path / "alice", "bot")
    bob = write_bot(tmp_path / "bob", "bot", on_request='reply({"index": 1})')
    notes: list[str] = []
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=[alice, bob], players=2, seed=1), notes)
        names = [entry["bot"] for entry in store.tournament_entries(tournament_id)]
    assert names == ["alice-bot", "bob-bot"]
    assert len(notes) == 2 and "2 bots here are called 'bot'" in notes[0] and notes[0].endswith("is 'alice-bot'")


def test_a_stored_copy_that_changed_does_not_play(tmp_path):
    bots = [write_bot(tmp_path / "src", "a"), RANDOM]
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, seed=1))
        copy = store.bot_store / store.tournament_entries(tournament_id)[0]["path"]
        os.chmod(copy.parent, 0o755)
        os.chmod(copy, 0o644)
        with open(copy, "a") as handle:
            handle.write("# tampered\n")
        with pytest.raises(TournamentError, match="a v1: the stored copy .* has changed"):
            run(store, tournament_id, workers=1)
        assert store.tournament(tournament_id)["matches_pending"] == 2
