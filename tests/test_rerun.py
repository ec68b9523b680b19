"""`arena rerun`: one seat of a recorded match re-run with the exact messages it was sent, in the
real sandbox, judged as the match judged it, beside the recorded replies."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.results.store import Store
from arena.runner import protocol
from arena.runner.match import MatchSpec, play_match
from botmaker import write_bot

REPO = Path(__file__).resolve().parents[1]
RANDOM = str(REPO / "bots" / "random.py")
LAST_LEGAL = 'reply({"type": "action", "index": len(message["legal"]) - 1})'
# Says on stderr which message it got: the re-run's stderr shows what it was sent, step by step.
TELLS = 'sys.stderr.write(f"got request {message[\'step\']}\\n"); sys.stderr.flush()\n' + LAST_LEGAL
TELLS_START = 'sys.stderr.write("got start\\n"); sys.stderr.flush()\nreply({"type": "ready"})'
CRASHES_AT_THIRD = 'if requests == 3:\n    raise ZeroDivisionError("the bug at the third request")\n' + LAST_LEGAL


def arena(db, *args):
    return CliRunner().invoke(main, ["--db", db, *args], catch_exceptions=False)


@pytest.fixture
def db(tmp_path):
    (tmp_path / "results").mkdir()
    return str(tmp_path / "results" / "arena.db")


def tournament(db, *bots, extra=()):
    """A toy tournament of ``bots`` (paths; submitted by it), 4 rounds a match: 2 matches."""
    out = arena(db, "tournament", "run", "--game", "toy", "--bots", ",".join(bots), "--option", "rounds=4",
                "--seed", "4", "--workers", "1", *extra)
    assert out.exit_code == 0, out.output


def seat_of(db, match_id: int, name: str) -> int:
    with Store(db, readonly=True) as store:
        return next(s["seat"] for s in store.match(match_id, with_log=False)["seats"] if s["bot"] == name)


def rerun_json(db, *args):
    out = arena(db, "rerun", *args, "--json")
    assert out.exit_code in (0, 1), out.output
    return out.exit_code, json.loads(out.stdout)


def test_a_deterministic_bot_reproduces_its_stored_match_with_no_difference(db, tmp_path):
    tournament(db, write_bot(tmp_path / "src", "last", on_request=LAST_LEGAL), RANDOM)
    out = arena(db, "rerun", "1", "--seat", str(seat_of(db, 1, "last")))
    assert out.exit_code == 0, out.output
    assert "REPRODUCED: 4 decision(s), all as recorded; status ok" in out.output
    assert "DIFFERS" not in out.output


def test_an_edited_bot_reports_its_first_differing_step_with_both_replies(db, tmp_path):
    tournament(db, write_bot(tmp_path / "src", "last", on_request=LAST_LEGAL), RANDOM)
    seat = seat_of(db, 1, "last")
    edited = write_bot(tmp_path / "edit", "last", on_request='if requests == 3:\n    reply({"type": "action", "index": 0})\n'
                                                           'else:\n    ' + LAST_LEGAL)
    code, report = rerun_json(db, "1", "--seat", str(seat), "--bot", edited)
    assert code == 1
    steps = [s["step"] for s in report["steps"]]
    assert report["first_difference"] == steps[2] and report["differences"] == 1
    third = report["steps"][2]
    assert third["recorded_action"] == {"type": "take", "amount": 3} and third["action"] == {"type": "take", "amount": 1}
    out = arena(db, "rerun", "1", "--seat", str(seat), "--bot", edited)
    assert f"step {steps[2]}  DIFFERS  recorded: " in out.output
    assert f"first at step {steps[2]}" in out.output


def test_a_crashing_bot_reproduces_its_crash_with_the_traceback_under_that_step(db, tmp_path):
    tournament(db, write_bot(tmp_path / "src", "crashy", on_request=CRASHES_AT_THIRD), RANDOM)
    seat = seat_of(db, 1, "crashy")
    code, report = rerun_json(db, "1", "--seat", str(seat))
    assert code == 0, report
    third = report["steps"][2]
    assert third["status"] == third["recorded_status"] == "crash"
    assert "ZeroDivisionError: the bug at the third request" in third["stderr"]
    assert "ZeroDivisionError" not in report["steps"][1]["stderr"]
    out = arena(db, "rerun", "1", "--seat", str(seat))
    assert "| ZeroDivisionError: the bug at the third request" in out.output


def test_each_step_shows_the_stderr_written_while_it_was_decided(db, tmp_path):
    tournament(db, write_bot(tmp_path / "src", "tells", on_start=TELLS_START, on_request=TELLS), RANDOM)
    code, report = rerun_json(db, "1", "--seat", str(seat_of(db, 1, "tells")))
    assert code == 0
    assert report["start"]["stderr"] == "got start\n"
    assert [s["stderr"] for s in report["steps"]] == [f"got request {s['step']}\n" for s in report["steps"]]
    assert [s["recorded_stderr"] for s in report["steps"]] == [s["stderr"] for s in report["steps"]]  # from the store


def test_from_step_sends_start_then_the_requests_from_that_step(db, tmp_path):
    tournament(db, write_bot(tmp_path / "src", "tells", on_start=TELLS_START, on_request=TELLS), RANDOM)
    seat = seat_of(db, 1, "tells")
    _, whole = rerun_json(db, "1", "--seat", str(seat))
    third = whole["steps"][2]["step"]
    code, report = rerun_json(db, "1", "--seat", str(seat), "--from-step", str(third))
    assert code == 0
    assert report["start"]["stderr"] == "got start\n"
    assert [s["step"] for s in report["steps"]] == [s["step"] for s in whole["steps"][2:]]
    assert report["steps"][0]["stderr"] == f"got request {third}\n"


def test_a_protocol_error_is_classified_with_the_match_s_own_words(db, tmp_path):
    tournament(db, write_bot(tmp_path / "src", "chatty", on_request='print("thinking...", flush=True)'), RANDOM)
    seat = seat_of(db, 1, "chatty")
    code, report = rerun_json(db, "1", "--seat", str(seat))
    assert code == 0
    assert report["steps"][0]["status"] == "protocol"
    assert report["steps"][0]["error"] == report["steps"][0]["recorded_error"]


def test_an_unlisted_illegal_action_is_refused_by_the_replayed_engine_as_in_the_match(db, tmp_path):
    grabs = 'reply({"type": "action", "action": {"type": "take", "amount": 5}} if requests == 2 else {"type": "action", "index": 0})'
    tournament(db, write_bot(tmp_path / "src", "greedy", on_request=grabs), RANDOM)
    code, report = rerun_json(db, "1", "--seat", str(seat_of(db, 1, "greedy")))
    assert code == 0
    second = report["steps"][1]
    assert second["status"] == "illegal" and second["error"] == second["recorded_error"]
    assert "take 1, 2 or 3 points" in second["error"]


def test_a_timeout_is_judged_on_the_recorded_limits(db, tmp_path):
    spins = 'if requests == 2:\n    while True:\n        pass\n' + LAST_LEGAL
    tournament(db, write_bot(tmp_path / "src", "spins", on_request=spins), RANDOM,
               extra=("--decision-ms", "100", "--bank-ms", "0"))
    code, report = rerun_json(db, "1", "--seat", str(seat_of(db, 1, "spins")))
    assert code == 0
    assert report["limits"]["decision_ms"] == 100 and report["limits"]["bank_ms"] == 0
    assert report["steps"][1]["status"] == "timeout"
    assert "its limit was 100 ms" in report["steps"][1]["error"]


def test_a_bot_s_own_limits_in_its_tournament_are_its_limits_in_the_rerun(db, tmp_path):
    bot = write_bot(tmp_path / "src", "last", on_request=LAST_LEGAL)
    config = tmp_path / "t.toml"
    config.write_text(f'game = "toy"\nseed = 4\nworkers = 1\noptions = {{ rounds = 2 }}\nlimits = {{ decision_ms = 700 }}\n'
                      f'bots = [{{ path = "{bot}", limits = {{ memory_mb = 200, bank_ms = 300 }} }}, "{RANDOM}"]\n')
    assert arena(db, "tournament", "run", str(config)).exit_code == 0
    _, own = rerun_json(db, "1", "--seat", str(seat_of(db, 1, "last")))
    _, other = rerun_json(db, "1", "--seat", str(seat_of(db, 1, "random")))
    assert (own["limits"]["memory_mb"], own["limits"]["bank_ms"], own["limits"]["decision_ms"]) == (200, 300, 700)
    assert (other["limits"]["memory_mb"], other["limits"]["bank_ms"], other["limits"]["decision_ms"]) == (1024, 10000, 700)


@pytest.mark.parametrize("game", ["five-towers", "agent-avenue", "fifth-avenue"])
def test_every_game_reproduces_an_arena_match_log(tmp_path, game):
    log = tmp_path / "match.json"
    played = CliRunner().invoke(main, ["match", game, RANDOM, RANDOM, "--seed", "5", "--log", str(log)])
    assert played.exit_code == 0, played.output
    out = CliRunner().invoke(main, ["rerun", str(log), "--seat", "1"])
    assert out.exit_code == 0, out.output
    assert "REPRODUCED" in out.output


@pytest.mark.parametrize("game", ["five-towers", "agent-avenue", "fifth-avenue"])
def test_the_messages_rebuilt_from_a_stored_log_are_the_bytes_that_were_sent(game):
    result = play_match(MatchSpec(game, [RANDOM, RANDOM], seed=11))
    stored = json.loads(result.log.to_json())
    sent = [result.log.encoded[i] for i in sorted(result.log.encoded)]
    rebuilt = [b'{"event":"request","seat":%d,"step":%d,"message":' % (e["seat"], e["step"])
               + protocol.encode(e["message"])[:-1] + b"}" for e in stored if e["event"] == "request"]
    assert rebuilt == sent


ECHOES = """\
import hashlib, json, sys

# Every line it reads, as a digest of its exact bytes, on stderr; then the first legal action.
for line in sys.stdin.buffer:
    sys.stderr.write(hashlib.sha256(line).hexdigest() + "\\n")
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "request":
        print(json.dumps({"type": "action", "index": 0}), flush=True)
    elif message["type"] == "quit":
        break
"""


def echoing_bot(folder: Path) -> str:
    path = write_bot(folder, "echoes")  # made readable for the sandbox's user, then given its own text
    Path(path).write_text(ECHOES)
    return path


def test_the_bot_reads_the_very_bytes_of_every_message_its_seat_was_sent(db, tmp_path):
    tournament(db, echoing_bot(tmp_path / "src"), RANDOM)
    seat = seat_of(db, 1, "echoes")
    with Store(db, readonly=True) as store:
        recorded = store.match(1)["seats"][seat]["stderr"]
    _, report = rerun_json(db, "1", "--seat", str(seat))
    assert len(recorded.splitlines()) == 1 + 4 + 2  # start, its 4 requests, end and quit
    assert report["stderr"] == recorded


@pytest.mark.parametrize("game", ["five-towers", "agent-avenue", "fifth-avenue"])
def test_every_game_sends_the_very_bytes_of_an_arena_match_log(tmp_path, game):
    log = tmp_path / "match.json"
    played = CliRunner().invoke(main, ["match", game, echoing_bot(tmp_path / "src"), RANDOM, "--seed", "9",
                                       "--log", str(log)])
    assert played.exit_code == 0, played.output
    out = CliRunner().invoke(main, ["rerun", str(log), "--seat", "0", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["stderr"] == json.loads(log.read_text())["seats"][0]["stderr"]


# ---- stderr: cut as the match cuts it, beside the recorded piece; crashes quoted by their error line ----

# Writes on stderr during start-up, each decision (before its reply: what it writes after
# it goes with this decision or the next, as the bot is frozen sooner or later) and after `end`.
TALKS_AROUND = """\
import json, sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print("warming up", file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "request":
        print("WORD thinking about %d" % message["step"], file=sys.stderr, flush=True)
        print("WORD done with %d" % message["step"], file=sys.stderr, flush=True)
        print(json.dumps({"type": "action", "index": 0}), flush=True)
    elif message["type"] == "end":
        print("ranked %d" % message["ranks"][message["seat"]], file=sys.stderr, flush=True)
    elif message["type"] == "quit":
        break
"""


def talking_bot(folder: Path, word: str = "recorded") -> str:
    path = write_bot(folder, "talks")
    Path(path).write_text(TALKS_AROUND.replace("WORD", word))
    return path


def played_log(tmp_path, bot: str, *other: str, game: str = "toy") -> Path:
    log = tmp_path / "match.json"
    played = CliRunner().invoke(main, ["match", game, bot, *(other or [RANDOM]), "--seed", "3", "--log", str(log)])
    assert played.exit_code == 0, played.output
    return log


def test_each_message_s_stderr_is_the_piece_the_match_recorded_for_it(tmp_path):
    log = played_log(tmp_path, talking_bot(tmp_path / "src"))
    out = CliRunner().invoke(main, ["rerun", str(log), "--seat", "0", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["start"]["stderr"] == report["start"]["recorded_stderr"] == "warming up\n"
    for step in report["steps"]:
        n = step["step"]
        assert step["stderr"] == step["recorded_stderr"] == f"recorded thinking about {n}\nrecorded done with {n}\n"
    assert report["end_stderr"] == report["recorded_end_stderr"]
    assert report["end_stderr"].startswith("ranked ")


def test_a_changed_bot_s_stderr_is_shown_beside_the_recorded_one(tmp_path):
    log = played_log(tmp_path, talking_bot(tmp_path / "src"))
    fixed = talking_bot(tmp_path / "fixed", word="now")
    out = CliRunner().invoke(main, ["rerun", str(log), "--seat", "0", "--bot", fixed])
    assert out.exit_code == 0, out.output  # the same actions: only what it wrote differs
    lines = out.output.splitlines()
    at = lines.index("    step 0  same     {\"amount\": 1, \"type\": \"take\"}   (line {\"type\": \"action\", \"index\": 0})")
    assert lines[at + 1:at + 7] == ["            stderr recorded:",
                                    "            | recorded thinking about 0",
                                    "            | recorded done with 0",
                                    "            stderr now:",
                                    "            | now thinking about 0",
                                    "            | now done with 0"]
    assert "            stderr, as recorded:" in lines and "            | warming up" in lines  # start-up, the same


def test_a_log_without_stderr_per_decision_shows_this_run_s_with_a_note(tmp_path):
    log = played_log(tmp_path, talking_bot(tmp_path / "src"))
    data = json.loads(log.read_text())
    data["log"] = [{k: v for k, v in event.items() if k != "stderr"} for event in data["log"] if event["event"] != "stderr"]
    log.write_text(json.dumps(data))
    out = CliRunner().invoke(main, ["rerun", str(log), "--seat", "0", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert [s["recorded_stderr"] for s in [report["start"], *report["steps"]]] == [None] * (1 + len(report["steps"]))
    assert report["steps"][0]["stderr"] == "recorded thinking about 0\nrecorded done with 0\n"
    assert "the log keeps no stderr per decision" in " ".join(report["notes"])
    text = CliRunner().invoke(main, ["rerun", str(log), "--seat", "0"]).output
    assert "            stderr:\n            | recorded thinking about 0\n" in text


def test_a_silent_bot_s_log_keeps_empty_pieces_not_a_missing_record(tmp_path):
    log = played_log(tmp_path, write_bot(tmp_path / "src", "last", on_request=LAST_LEGAL))
    out = CliRunner().invoke(main, ["rerun", str(log), "--seat", "0", "--json"])
    report = json.loads(out.stdout)
    assert [s["recorded_stderr"] for s in report["steps"]] == [""] * len(report["steps"])
    assert report["notes"] == []


# After the traceback it says goodbye: the last line of stderr is not the one that explains the crash.
CRASHES_THEN_SAYS_BYE = 'import atexit\nif requests == 1:\n    atexit.register(lambda: print("bye from atexit", file=sys.stderr))\n' \
                        'if requests == 2:\n    raise KeyError("missing piece")\n' + LAST_LEGAL


def test_a_crash_in_the_rerun_quotes_the_exception_line_not_the_last_line(tmp_path):
    log = played_log(tmp_path, write_bot(tmp_path / "src", "crashy", on_request=CRASHES_THEN_SAYS_BYE))
    out = CliRunner().invoke(main, ["rerun", str(log), "--seat", "0", "--json"])
    assert out.exit_code == 0, out.output
    second = json.loads(out.stdout)["steps"][1]
    assert second["status"] == "crash"
    assert second["error"].endswith("(stderr: KeyError: 'missing piece')")
    assert second["error"] == second["recorded_error"]
    assert second["stderr"].rstrip().endswith("bye from atexit")


NODE_CRASHER = """\
#!/usr/bin/env node
const readline = require("readline");
const lines = readline.createInterface({input: process.stdin});
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "start") console.log(JSON.stringify({type: "ready"}));
  else if (message.type === "request") {
    console.error("looking at step " + message.step);
    if (message.step >= 2) message.observation.nothing.here = 1;
    console.log(JSON.stringify({type: "action", index: 0}));
  } else if (message.type === "quit") process.exit(0);
});
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="no node on this machine")
def test_a_node_crash_in_the_rerun_quotes_its_error_not_the_version_banner(tmp_path):
    bot = Path(write_bot(tmp_path / "src", "crasher.js", shebang="/usr/bin/env node"))
    bot.write_text(NODE_CRASHER)
    log = played_log(tmp_path, str(bot))
    out = CliRunner().invoke(main, ["rerun", str(log), "--seat", "0", "--json"])
    assert out.exit_code == 0, out.output
    failed = next(s for s in json.loads(out.stdout)["steps"] if s["status"] != "ok")
    assert failed["status"] == "crash"
    assert "(stderr: TypeError: Cannot set properties of undefined" in failed["error"]
    assert "Node.js v" in failed["stderr"] and "Node.js v" not in failed["error"]


# ---- bad input: one line, exit code 2 ------------------------------------------------------------

@pytest.fixture
def played(db, tmp_path):
    tournament(db, write_bot(tmp_path / "src", "last", on_request=LAST_LEGAL), RANDOM)
    return db


def seat_steps(db, seat):
    with Store(db, readonly=True) as store:
        return [e["step"] for e in store.match(1)["log"] if e.get("event") == "request" and e["seat"] == seat]


@pytest.mark.parametrize("args,message", [
    (("99", "--seat", "0"), "no match 99"),
    (("1", "--seat", "5"), "match 1 has seats 0 to 1; there is no seat 5"),
    (("1", "--seat", "0", "--from-step", "999"), "step 999 is after its last decision: seat 0 of match 1 decided at steps"),
    (("1", "--seat", "0", "--bot", "/nonexistent/bot.py"), "bot not found: /nonexistent/bot.py"),
    (("no-such-log.json", "--seat", "0"), "no such file: no-such-log.json"),
])
def test_bad_input_is_one_line_with_exit_code_2(played, args, message):
    out = CliRunner().invoke(main, ["--db", played, "rerun", *args])
    assert out.exit_code == 2, out.output
    assert message in out.output
    assert len(out.output.strip().splitlines()) == 1


def test_a_step_of_another_seat_is_refused_naming_the_seat_s_own_steps(played):
    other = seat_steps(played, 1)[0]
    out = arena(played, "rerun", "1", "--seat", "0", "--from-step", str(other))
    assert out.exit_code == 2
    assert f"step {other} is not one of its decisions: seat 0 of match 1 decided at steps" \
           f" {', '.join(map(str, seat_steps(played, 0)))}" in out.output


def test_a_file_that_is_no_match_log_is_refused(played, tmp_path):
    other = tmp_path / "notes.json"
    other.write_text('{"hello": 1}')
    out = arena(played, "rerun", str(other), "--seat", "0")
    assert out.exit_code == 2
    assert "is not a match log written by `arena match --log`" in out.output


def test_a_missing_stored_copy_asks_for_a_bot_of_ones_own(played):
    with Store(played, readonly=True) as store:
        version = store.bot_version(store.match(1, with_log=False)["seats"][0]["bot_version_id"])
        copy = store.bot_path(version)
    os.chmod(copy, 0o600)
    copy.rename(copy.with_suffix(".gone"))
    out = arena(played, "rerun", "1", "--seat", "0")
    assert out.exit_code == 2
    assert "is missing; re-run a copy of your own with --bot PATH" in out.output


def test_a_log_whose_bot_is_not_there_asks_for_one_with_bot(tmp_path):
    log = tmp_path / "match.json"
    bot = write_bot(tmp_path / "gone", "last", on_request=LAST_LEGAL)
    assert CliRunner().invoke(main, ["match", "toy", bot, RANDOM, "--log", str(log)]).exit_code == 0
    os.remove(bot)
    out = CliRunner().invoke(main, ["rerun", str(log), "--seat", "0"])
    assert out.exit_code == 2
    assert f"the bot of seat 0, {bot}, is not there" in out.output and "--bot PATH" in out.output


def test_the_recorded_sandbox_mode_is_used_unless_one_is_named(played, monkeypatch):
    monkeypatch.setenv("ARENA_SANDBOX", os.environ.get("ARENA_SANDBOX", "bubblewrap"))  # --sandbox sets it for good
    recorded = arena(played, "rerun", "1", "--seat", "0")
    assert "sandbox bubblewrap" in recorded.output and "note:" not in recorded.output
    named = CliRunner().invoke(main, ["--db", played, "--sandbox", "none", "rerun", "1", "--seat", "0"])
    assert named.exit_code == 0, named.output
    assert "note: the match ran in sandbox mode bubblewrap; this re-run in none" in named.output


def test_a_match_not_played_yet_has_nothing_to_rerun(db, tmp_path):
    from arena.tournament.config import TournamentConfig
    from arena.tournament.create import create

    with Store(db) as store:
        create(store, TournamentConfig(game="toy", bots=[write_bot(tmp_path / "src", "a"), RANDOM], players=2, seed=3))
    out = arena(db, "rerun", "1", "--seat", "0")
    assert out.exit_code == 2
    assert "match 1 has not been played yet (pending): there is nothing to re-run" in out.output
