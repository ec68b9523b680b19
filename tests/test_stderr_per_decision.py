"""A bot's stderr is stored with the decision during which it was written: its start-up's on
`ready`, each decision's on its `reply` (or its `failure`), what it writes after `end` in an
event of its own; all within the caps of the whole match's stderr. Real sandboxed bots."""

from __future__ import annotations

import os
import shutil
import textwrap

import pytest

from arena.runner.match import Limits, MatchSpec, play_match
from botmaker import write_bot

QUICK = Limits(start_ms=3000, decision_ms=500, bank_ms=1000)

TALKER = '''\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "start":
        print("warming up", file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready"}), flush=True)
    elif kind == "request":
        print("thinking about step %d" % message["step"], file=sys.stderr, flush=True)
        print(json.dumps({"type": "action", "index": 0}), flush=True)
    elif kind == "end":
        print("I ranked %d" % message["ranks"][message["seat"]], file=sys.stderr, flush=True)
    elif kind == "quit":
        break
'''


def _bot(tmp_path, name: str, source: str) -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    os.chmod(tmp_path, 0o755)
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    os.chmod(path, 0o644)
    for parent in tmp_path.parents:  # the bot's user must reach it (pytest's tmp is 0700)
        if str(parent).startswith("/tmp/"):
            os.chmod(parent, os.stat(parent).st_mode | 0o711)
    return str(path)


def _play(bot: str, other: str, rounds: int = 3):
    return play_match(MatchSpec("toy", [bot, other], seed=5, options={"rounds": rounds}, limits=QUICK))


def _events(result, kind: str, seat: int = 0) -> list[dict]:
    return [e for e in result.log if e["event"] == kind and e.get("seat") == seat]


def test_each_decision_keeps_what_the_bot_wrote_while_deciding(tmp_path, test_bot):
    result = _play(_bot(tmp_path, "talker.py", TALKER), test_bot("greedy.py"))
    assert result.seats[0].status == "ok"
    replies = _events(result, "reply")
    assert [e["stderr"] for e in replies] == [f"thinking about step {e['step']}\n" for e in replies]
    assert len(replies) == 3


def test_start_up_stderr_is_kept_with_ready(tmp_path, test_bot):
    result = _play(_bot(tmp_path, "talker.py", TALKER), test_bot("greedy.py"))
    assert _events(result, "ready")[0]["stderr"] == "warming up\n"


def test_what_a_bot_writes_after_end_is_an_event_after_end(tmp_path, test_bot):
    result = _play(_bot(tmp_path, "talker.py", TALKER), test_bot("greedy.py"))
    kinds = [e["event"] for e in result.log]
    after = _events(result, "stderr")
    assert len(after) == 1 and after[0]["after"] == "end"
    assert after[0]["stderr"].startswith("I ranked ")
    assert kinds.index("stderr") > kinds.index("end")


def test_a_silent_bot_s_events_have_no_stderr_field(tmp_path, test_bot):
    result = _play(test_bot("greedy.py"), test_bot("greedy.py"))
    assert not any("stderr" in e for e in result.log)


def test_a_python_crash_s_traceback_is_kept_with_its_failure_and_quoted_by_its_exception(tmp_path, test_bot):
    path = write_bot(tmp_path, "crasher", on_request="""
        print("step log", file=sys.stderr, flush=True)
        if requests == 2:
            raise ValueError("no move fits")
        reply({"index": 0})""")
    result = _play(path, test_bot("greedy.py"))
    seat = result.seats[0]
    assert seat.status == "crash"
    assert seat.error.endswith("(stderr: ValueError: no move fits)")
    failure = _events(result, "failure")[0]
    assert failure["stderr"].startswith("step log\nTraceback (most recent call last):")
    assert _events(result, "reply")[0]["stderr"] == "step log\n"


@pytest.mark.skipif(shutil.which("node") is None, reason="no node on this machine")
def test_a_node_crash_is_quoted_by_its_error_line_not_the_version_banner(tmp_path, test_bot):
    path = _bot(tmp_path, "crasher.js", '''\
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
          }
        });
        ''')
    result = _play(path, test_bot("greedy.py"))
    seat = result.seats[0]
    assert seat.status == "crash", seat.error
    assert "(stderr: TypeError: Cannot set properties of undefined" in seat.error
    assert "Node.js v" in seat.stderr  # the banner is kept in the tail, just not quoted
    assert "TypeError" in _events(result, "failure")[0]["stderr"]


def test_the_decisions_stderr_stays_within_the_match_s_caps(tmp_path, test_bot):
    path = write_bot(tmp_path, "flooder", on_request="""
        sys.stderr.write(("%d" % requests) * 20000 + "\\n")
        sys.stderr.flush()
        reply({"index": 0})""")
    result = _play(path, test_bot("greedy.py"), rounds=6)
    assert result.seats[0].status == "ok"
    pieces = [e.get("stderr", "") for e in _events(result, "reply")]
    assert sum(len(p.encode()) for p in pieces) <= 64 * 1024 + 200
    assert pieces[0] == "1" * 20000 + "\n"  # in the first 32 KiB: whole
    assert "bytes of stderr dropped" in "".join(pieces)
    assert pieces[-1].endswith("6" * 20000 + "\n")  # in the last 32 KiB: whole


REUSED = '''\
import json, sys
matches = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "start":
        matches += 1
        print("start %d" % matches, file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready", "matches": "many"}), flush=True)
    elif kind == "request":
        print("match %d step %d" % (matches, message["step"]), file=sys.stderr, flush=True)
        print(json.dumps({"type": "action", "index": 0}), flush=True)
    elif kind == "end":
        print("after end %d" % matches, file=sys.stderr, flush=True)
    elif kind == "quit":
        break
'''


def test_a_reused_process_s_pieces_each_go_to_their_own_match_and_decision(tmp_path, test_bot):
    from arena.runner.livebots import LiveBots
    from arena.runner.sandbox import detect

    path = _bot(tmp_path, "reused.py", REUSED)
    bots = LiveBots(detect(), keep=4)
    try:
        results = [play_match(MatchSpec("toy", [path, test_bot("greedy.py")], seed=seed, options={"rounds": 2},
                                        limits=QUICK), bots=bots) for seed in (1, 2)]
    finally:
        bots.close()
    for number, result in enumerate(results, 1):
        assert _events(result, "ready")[0]["stderr"] == f"start {number}\n"
        assert [e["stderr"] for e in _events(result, "reply")] == [
            f"match {number} step {e['step']}\n" for e in _events(result, "reply")]
        assert [e["stderr"] for e in _events(result, "stderr")] == [f"after end {number}\n"]


JAVA_COMMAND = ("env MALLOC_ARENA_MAX=2 java -Xmx256m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m"
                " -XX:CompressedClassSpaceSize=64m -XX:MaxMetaspaceSize=128m -cp classes CrashBot")  # the Java kit's flags


def _compiled(tmp_path, language: str) -> str:
    """A bot in ``language`` that crashes at its second request (sources in tests/stderr_samples/)."""
    import subprocess
    from pathlib import Path

    samples = Path(__file__).parent / "stderr_samples"
    folder = tmp_path / language
    folder.mkdir(parents=True)
    if language == "cpp":
        subprocess.run(["g++", "-O0", "-o", folder / "bot", samples / "crash_bot.cpp"], check=True)
        path = folder / "bot"
    elif language == "rust":
        subprocess.run(["rustc", "-o", folder / "bot", samples / "crash_bot.rs"], check=True, capture_output=True)
        path = folder / "bot"
    elif language == "go":
        subprocess.run(["go", "build", "-o", str(folder / "bot"), str(samples / "crash_bot.go")], check=True,
                       capture_output=True, cwd=folder, env={**os.environ, "GO111MODULE": "off",
                                                             "GOCACHE": str(tmp_path / "gocache")})
        path = folder / "bot"
    else:
        subprocess.run(["javac", "-d", folder / "classes", samples / "CrashBot.java"], check=True)
        (folder / "bot.toml").write_text(f'command = "{JAVA_COMMAND}"\n')
        path = folder
    for root, dirs, files in os.walk(tmp_path):  # the bot's user must read and run it
        for name in dirs + files:
            os.chmod(os.path.join(root, name), 0o755)
    _bot(tmp_path, "unused.py", "")  # opens the folders above it to the bot's user
    return str(path)


@pytest.mark.parametrize("language, compiler, quoted", [
    ("cpp", "g++", "killed by SIGABRT (stderr: terminate called after throwing an instance of 'std::runtime_error':"
                   " what(): no legal action left)"),
    ("rust", "rustc", "index out of bounds: the len is 0 but the index is 3)"),  # after "thread 'main' ... panicked at bot.rs:..:"
    ("go", "go", "exited with code 2 (stderr: panic: runtime error: index out of range [3] with length 0)"),
    ("java", "javac", 'exited with code 1 (stderr: Exception in thread "main" java.lang.IllegalStateException:'
                      " choosing failed (caused by java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds"
                      " for length 1))"),
])
def test_a_compiled_kit_language_s_crash_is_quoted_by_its_error_line(tmp_path, test_bot, language, compiler, quoted):
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler} on this machine")
    result = _play(_compiled(tmp_path, language), test_bot("greedy.py"))
    seat = result.seats[0]
    assert seat.status == "crash" and quoted in seat.error, seat.error
    if language == "rust":
        assert "exited with code 101 (stderr: thread 'main'" in seat.error and " panicked at " in seat.error
    assert "request 2" in _events(result, "failure")[0]["stderr"]
