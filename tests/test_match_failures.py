"""Hostile and broken bots against the real sandbox: each gets its exact status, the other
seat's match completes, and no process of the bot survives the match."""

from __future__ import annotations

import socket
from dataclasses import replace

import pytest

from arena.runner.match import Limits, MatchSpec, play_match
from botmaker import processes_with, write_bot, zombie_children

QUICK = Limits(start_ms=2000, decision_ms=200, bank_ms=300)
# A bot that sleeps is timed out by the wall clock at once; the CPU clock would let it sleep
# up to its wall-time cap (tests/test_clocks.py times that).
WALL = replace(QUICK, clock="wall")


@pytest.fixture
def play(tmp_path, test_bot):
    """Play the toy game: the bot under test in seat 0, a well-behaved bot in seat 1."""
    def run(name, limits=QUICK, rounds=3, **handlers):
        path = write_bot(tmp_path, name, **handlers)
        result = play_match(MatchSpec("toy", [path, test_bot("greedy.py")], seed=7,
                                      options={"rounds": rounds}, limits=limits))
        assert result.seats[1].status == "ok", "the other seat must finish its match"
        assert result.seats[1].decisions == rounds, "the other seat must play every turn"
        assert processes_with(path) == [], "no process of the bot may survive the match"
        assert zombie_children() == []
        return result
    return run


def test_good_bot_finishes_ok(play):
    result = play("good")
    assert [s.status for s in result.seats] == ["ok", "ok"]
    assert result.seats[0].decisions == 3


def test_crash_at_start_is_crash(play):
    result = play("crash_start", on_start="sys.exit(3)")
    assert result.seats[0].status == "crash"
    assert "exited with code 3" in result.seats[0].error


def test_crash_mid_match_is_crash(play):
    result = play("crash_mid", on_request="""
        if requests == 2:
            raise SystemExit(4)
        reply({"index": 0})""")
    assert result.seats[0].status == "crash"
    assert result.seats[0].decisions == 1


def test_failed_seat_is_ranked_last_even_with_the_best_score(play):
    result = play("crash_after_scoring", on_request="""
        if requests == 3:
            raise SystemExit(1)
        reply({"index": 2})""")
    assert result.seats[0].status == "crash"
    assert result.ranks == [2, 1]


def test_hang_at_start_is_timeout(play):
    result = play("hang_start", limits=WALL, on_start="time.sleep(3600)")
    assert result.seats[0].status == "timeout"
    assert "start-up" in result.seats[0].error


def test_hang_mid_match_is_timeout(play):
    result = play("hang_mid", limits=WALL, on_request="""
        if requests == 2:
            time.sleep(3600)
        reply({"index": 0})""")
    assert result.seats[0].status == "timeout"
    assert result.seats[0].decisions == 1


def test_slow_replies_use_the_bank_then_time_out(play):
    # 200 ms allowed per decision; each reply takes ~600 ms, so 400 ms come out of the
    # 1000 ms bank each time: two replies fit, the third cannot.
    limits = Limits(start_ms=2000, decision_ms=200, bank_ms=1000, clock="wall")
    result = play("slow", limits=limits, rounds=4, on_request="""
        time.sleep(0.6)
        reply({"index": 0})""")
    assert result.seats[0].status == "timeout"
    assert result.seats[0].decisions == 2


def test_slow_reply_within_the_bank_is_ok(play):
    result = play("slow_once", on_request="""
        if requests == 1:
            time.sleep(0.3)
        reply({"index": 0})""")
    assert result.seats[0].status == "ok"


def test_non_json_reply_is_protocol(play):
    result = play("non_json", on_request='sys.stdout.write("take three\\n"); sys.stdout.flush()')
    assert result.seats[0].status == "protocol"
    assert "not valid JSON" in result.seats[0].error


def test_reply_of_wrong_shape_is_protocol(play):
    result = play("wrong_shape", on_request='reply({"move": 3})')
    assert result.seats[0].status == "protocol"
    assert "exactly one of 'action' and 'index'" in result.seats[0].error


def test_index_out_of_range_is_protocol(play):
    result = play("bad_index", on_request='reply({"index": 99})')
    assert result.seats[0].status == "protocol"


def test_bad_ready_is_protocol(play):
    result = play("bad_ready", on_start='reply({"type": "hello"})')
    assert result.seats[0].status == "protocol"


def test_illegal_action_is_illegal(play):
    result = play("illegal", on_request='reply({"action": {"type": "take", "amount": 7}})')
    assert result.seats[0].status == "illegal"
    assert "take 1, 2 or 3 points" in result.seats[0].error


def test_hundred_megabyte_line_is_protocol(play):
    result = play("huge_line", on_request="""
        chunk = "x" * (1 << 20)
        for _ in range(100):
            sys.stdout.write(chunk)
        sys.stdout.write("\\n")""")
    assert result.seats[0].status == "protocol"
    assert "line longer than" in result.seats[0].error


def test_stdout_flood_of_valid_lines_is_limit(play):
    result = play("stdout_flood", on_request="""
        while True:
            reply({"index": 0, "debug": "flood" * 100})""")
    assert result.seats[0].status == "limit"
    assert "more than one line" in result.seats[0].error


def test_stdout_flood_of_garbage_is_limit(play):
    result = play("garbage_flood", on_request="""
        while True:
            print("spam " * 20)""")
    assert result.seats[0].status == "limit"


def test_stdout_beyond_the_output_cap_is_limit(play):
    limits = Limits(start_ms=2000, decision_ms=200, bank_ms=300, max_output_bytes=4096)
    result = play("chatty", limits=limits, on_request='reply({"index": 0, "debug": "x" * 3000})')
    assert result.seats[0].status == "limit"
    assert "more than 4096 bytes" in result.seats[0].error


def test_stderr_flood_is_kept_to_64_kib_and_is_no_failure(play):
    result = play("stderr_flood", on_start="""
        for _ in range(2000):
            sys.stderr.write("e" * 10000 + "\\n")
        sys.stderr.flush()
        reply({"type": "ready"})""")
    assert result.seats[0].status == "ok"
    assert len(result.seats[0].stderr.encode()) <= 64 * 1024 + 100
    assert "bytes of stderr dropped" in result.seats[0].stderr


def test_memory_hog_is_limit(play):
    limits = Limits(start_ms=2000, decision_ms=5000, bank_ms=300, memory_mb=256)
    result = play("memory_hog", limits=limits, on_request="""
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))""")
    assert result.seats[0].status == "limit"
    assert "memory" in result.seats[0].error


def test_fork_bomb_is_bounded_and_cleaned_up(play):
    result = play("fork_bomb", on_request="""
        while True:
            try:
                os.fork()
            except OSError:
                pass""")
    assert result.seats[0].status == "timeout"


def test_network_connection_fails_in_the_sandbox(play):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    result = play("network", on_start=f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=1)
            sys.stderr.write("CONNECTED\\n")
        except OSError as error:
            sys.stderr.write("connect failed: %s\\n" % error)
        reply({{"type": "ready"}})""")
    assert result.seats[0].status == "ok"
    assert "connect failed" in result.seats[0].stderr
    with pytest.raises(socket.timeout):
        listener.accept()
    listener.close()


def test_write_outside_scratch_fails(play, tmp_path):
    target = tmp_path / "escaped.txt"
    result = play("writer", on_start=f"""
        for path in ({str(target)!r}, "/etc/arena-escaped", os.path.expanduser("~/inside.txt"), "inside.txt"):
            try:
                with open(path, "w") as handle:
                    handle.write("x")
                sys.stderr.write("wrote %s\\n" % path)
            except OSError as error:
                sys.stderr.write("refused %s: %s\\n" % (path, error.strerror))
        reply({{"type": "ready"}})""")
    assert result.seats[0].status == "ok"
    assert not target.exists()
    assert f"refused {target}" in result.seats[0].stderr
    assert "refused /etc/arena-escaped" in result.seats[0].stderr
    assert "wrote inside.txt" in result.seats[0].stderr, "the scratch directory is writable"


def test_double_forked_child_is_gone_after_the_match(play):
    marker = "arena-orphan-marker-5517"
    result = play("double_fork", on_start=f"""
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sleep", ["/bin/sleep", "3600", {marker!r}])
            os._exit(0)
        reply({{"type": "ready"}})""")
    assert result.seats[0].status == "ok"
    assert processes_with(marker) == []


def test_cpu_time_limit_is_timeout(play):
    limits = Limits(start_ms=2000, decision_ms=5000, bank_ms=300, cpu_seconds=1)
    result = play("spinner", limits=limits, on_request="""
        while True:
            pass""")
    assert result.seats[0].status == "timeout"
    assert "CPU time" in result.seats[0].error


def test_closing_stdout_while_running_is_crash(play):
    result = play("closer", on_request="""
        if requests == 2:
            os.close(1)  # the descriptor itself: sys.stdout.close() leaves fd 1 open
            time.sleep(3600)
        reply({"index": 0})""")
    assert result.seats[0].status == "crash"
    assert "closed its stdout" in result.seats[0].error


def test_failed_seats_share_the_last_rank(tmp_path, test_bot):
    from arena.runner.match import MatchSpec, play_match

    crasher = write_bot(tmp_path, "crasher", on_start="sys.exit(1)")
    garbler = write_bot(tmp_path, "garbler", on_request='print("nonsense", flush=True)')
    result = play_match(MatchSpec("toy", [crasher, test_bot("greedy.py"), garbler], seed=2, limits=QUICK))
    assert [s.status for s in result.seats] == ["crash", "ok", "protocol"]
    assert result.ranks == [2, 1, 2]


def test_a_bad_answer_to_start_is_logged_and_quoted(play):
    result = play("banner", on_start='print("hello from my bot", flush=True)')
    assert result.seats[0].status == "protocol"
    assert "hello from my bot" in result.seats[0].error
    assert {"event": "ready", "seat": 0} .items() <= next(e for e in result.log if e["event"] == "ready").items()


def test_a_timed_out_decision_counts_in_time_used(play):
    result = play("sleeper", limits=WALL, on_request="time.sleep(3600)")
    assert result.seats[0].status == "timeout"
    assert result.seats[0].time_ms >= QUICK.decision_ms + QUICK.bank_ms
