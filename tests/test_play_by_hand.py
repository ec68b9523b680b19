"""A person's seat without a browser: the clock, refused actions, storage and rating, the
leaderboard filter, the `arena play` command itself (a real subprocess, driven over HTTP as
its page would), and that no tournament ever schedules a person."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.results.store import Store
from arena.results.submit import register
from arena.runner import cgroups
from arena.runner.human import HumanSeat
from arena.runner.match import Limits, MatchSpec, play_match
from arena.tournament import TournamentConfig, create
from arena.tournament.config import TournamentError
from arena.tournament.humanplay import prepare
from arena.web.commands import is_loopback
from botmaker import write_bot
from waiting import PATIENCE

REPO = Path(__file__).resolve().parents[1]
RANDOM = str(REPO / "bots" / "random.py")


@pytest.fixture
def db(tmp_path) -> Path:
    os.chmod(tmp_path, 0o755)
    path = tmp_path / "arena.db"
    with Store(path) as store:
        register(store, RANDOM, "five-towers", "random")
    return path


def play(db: Path, name: str = "ada", think_s: float = 60, **kwargs):
    with Store(db) as store:
        return prepare(store, "five-towers", ["random"], name, seat=0, seed=kwargs.pop("seed", 5), think_s=think_s,
                       bank_s=0, **kwargs).start()


def next_request(match) -> dict | None:
    view = match.view()
    while view["request"] is None and not view["end"]:
        view = match.view(view["version"], wait_s=PATIENCE)
    return view["request"]


def seats_of(db: Path, match_id: int) -> list[dict]:
    with Store(db) as store:
        return store.query("SELECT s.*, m.rating_seq FROM match_seats s JOIN matches m ON m.id = s.match_id"
                           " WHERE s.match_id = ? ORDER BY s.seat", [match_id])


def test_a_person_who_does_not_act_in_time_times_out_and_the_match_is_still_stored_and_rated(db):
    match = play(db, think_s=0.3)
    match.thread.join(PATIENCE)
    seats = seats_of(db, match.match_id)
    assert seats[0]["status"] == "timeout" and seats[0]["rank"] == 2
    assert "no action in time" in seats[0]["error"] and "300 ms" in seats[0]["error"]
    assert seats[1]["status"] == "ok" and seats[0]["rating_seq"] is not None
    assert match.human.view()["end"]["statuses"] == ["timeout", "ok"]


def test_a_refused_action_gets_the_engines_reason_and_the_same_decision_waits_for_another(db):
    match = play(db)
    request = next_request(match)
    reason = match.submit({"type": "build", "card": 99})
    assert "not allowed in the bid phase" in reason
    assert match.view()["request"] == request  # still waiting, the same step
    assert match.submit(request["legal"][0]) is None
    assert match.submit(request["legal"][0]) == "it is not your turn"  # taken once only
    match.leave()
    match.thread.join(PATIENCE)
    assert seats_of(db, match.match_id)[0]["decisions"] == 1


def test_the_person_is_a_bot_of_language_human_and_leaderboard_no_humans_leaves_them_out(db):
    match = play(db, name="grace", think_s=0.2)
    match.thread.join(PATIENCE)
    with Store(db) as store:
        assert [v["language"] for v in store.bot_versions("five-towers", "grace")] == ["human"]
    runner = CliRunner()
    shown = runner.invoke(main, ["--db", str(db), "leaderboard", "--game", "five-towers", "--format", "json"])
    hidden = runner.invoke(main, ["--db", str(db), "leaderboard", "--game", "five-towers", "--format", "json",
                                  "--no-humans"])
    assert shown.exit_code == 0 and hidden.exit_code == 0, shown.output + hidden.output
    assert {e["bot"] for e in json.loads(shown.output)["entries"]} == {"grace", "random"}
    assert {e["bot"] for e in json.loads(hidden.output)["entries"]} == {"random"}


def test_a_person_is_marked_as_such_on_the_leaderboard(db):
    match = play(db, name="grace", think_s=0.2)
    match.thread.join(PATIENCE)
    runner = CliRunner()
    board = json.loads(runner.invoke(main, ["--db", str(db), "leaderboard", "--game", "five-towers",
                                            "--format", "json"]).output)
    assert {e["bot"]: e.get("person", False) for e in board["entries"]} == {"grace": True, "random": False}
    table = runner.invoke(main, ["--db", str(db), "leaderboard", "--game", "five-towers"]).output
    assert "grace (person)" in table and "random (person)" not in table


def test_a_person_is_never_scheduled_by_a_tournament(db):
    match = play(db, name="hal", think_s=0.2)
    match.thread.join(PATIENCE)
    with Store(db) as store:
        register(store, REPO / "bots" / "five_towers_heuristic.py", "five-towers", "heuristic")
        tournament = create(store, TournamentConfig(game="five-towers", bots=["*"], seed=1))
        names = {e["bot"] for e in store.tournament_entries(tournament)}
        with pytest.raises(TournamentError, match="is a person"):
            create(store, TournamentConfig(game="five-towers", bots=["hal", "random"], seed=2))
    assert names == {"random", "heuristic"}


def test_a_bots_name_cannot_be_taken_by_a_person(db):
    with Store(db) as store, pytest.raises(TournamentError, match="name of a five-towers bot"):
        prepare(store, "five-towers", [RANDOM], "random", seat=0)


def test_play_is_offered_by_serve_only_on_a_loopback_address():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4") and not is_loopback("example.org")


def test_arena_play_serves_the_seat_on_loopback_and_ends_with_the_stored_match(db):
    arena = Path(sys.executable).parent / "arena"
    process = subprocess.Popen([str(arena), "--db", str(db), "play", "five-towers", "--vs", "random", "--name", "eve",
                                "--seat", "1", "--seed", "3", "--no-browser"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in process.stdout:
            found = re.search(r"play at (http://127\.0\.0\.1:\d+)/play/(\S+)", line)
            if found:
                base, token = found.groups()
                url = f"{base}/api/play/{token}"
                break
        assert url, process.stderr.read()
        clicks = 0
        version = None
        while True:
            with urllib.request.urlopen(url + ("" if version is None else f"?since={version}"), timeout=PATIENCE) as r:
                view = json.load(r)
            version = view["version"]
            if view["end"]:
                break
            if view["request"]:
                action = json.dumps({"action": view["request"]["legal"][-1]}).encode()
                post = urllib.request.Request(url + "/action", data=action, headers={
                    "Content-Type": "application/json", "Origin": base})
                with urllib.request.urlopen(post, timeout=PATIENCE) as r:
                    assert json.load(r) == {"ok": True}
                clicks += 1
        out, err = process.communicate(timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert f"match {view['match_id']} stored and rated" in out and "eve (you)" in out
    assert seats_of(db, view["match_id"])[1]["decisions"] == clicks


RESTLESS = """
import threading, time
def burn():
    while True:  # works all the time, unless it is frozen
        sum(range(1000))
threading.Thread(target=burn, daemon=True).start()
reply({"type": "ready"})"""


@pytest.mark.skipif(not cgroups.cpu_readable(), reason="the CPU clock and the freezer need cgroups (root)")
def test_the_bots_are_frozen_while_the_person_thinks(tmp_path):
    """A bot that computes all the time is charged, at its next turn, whatever it used since
    its last: a second of a person's thinking per turn would show in its CPU time (half a
    second of it, unfrozen, was charged about 90 ms a turn here; frozen, about 10 ms)."""
    restless = write_bot(tmp_path, "restless", on_start=RESTLESS)
    person = HumanSeat("ida")
    spec = MatchSpec("toy", [person, restless], seed=1, options={"rounds": 4}, limits=Limits(bank_ms=0),
                     seat_limits=[Limits(decision_ms=60_000, bank_ms=0, clock="wall"), None])
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.update(result=play_match(spec)))
    thread.start()
    view = person.view()
    while not view["end"]:
        if view["request"]:
            time.sleep(1.0)  # thinking
            assert person.submit(view["request"]["legal"][0]) is None
        view = person.view(view["version"], wait_s=PATIENCE)
    thread.join(PATIENCE)
    result = outcome["result"]
    assert [s.status for s in result.seats] == ["ok", "ok"], result.seats[1].error
    charged = [e["cpu_ms"] for e in result.log if e["event"] == "reply" and e["seat"] == 1]
    assert len(charged) == 4 and max(charged) < 50, charged


def test_rerun_of_a_persons_seat_asks_for_a_bot_to_run(db):
    match = play(db, name="jo", think_s=0.2)
    match.thread.join(PATIENCE)
    result = CliRunner().invoke(main, ["--db", str(db), "rerun", str(match.match_id), "--seat", "0"])
    assert result.exit_code != 0 and "was played by a person (jo)" in result.output and "--bot PATH" in result.output
