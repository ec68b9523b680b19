"""Replays rebuilt by the engine from stored matches: checked against the log, compact frames."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from arena.results.store import Store
from arena.web import data
from arena.web.boards import full_view
from arena.web.replay import CHUNK, Replay, ReplayUnavailable, apply_ops, diff, encode_chunks, parse_log, stderr_outside_decisions

GAMES = ("five-towers", "agent-avenue", "fifth-avenue")


def load(web_db, match_id: int) -> dict:
    with Store(web_db.path) as store:
        return data.match(store, match_id, with_log=True)


@pytest.mark.parametrize("game", GAMES)
def test_every_stored_match_replays_exactly_as_logged(web_db, game):
    for match_id in web_db.match_ids(game):
        replay = Replay(load(web_db, match_id))
        summary = replay.summary(check=True)
        check = summary["verification"]
        assert check["ok"] and check["done"], (match_id, check)
        assert check["checked_steps"] == len(summary["steps"])
        assert check["checked_requests"] > 0 and check["complete"] and check["scores_match"]
        assert summary["frame_count"] == len(summary["steps"]) + 1
        assert summary["chunks"] == -(-summary["frame_count"] // CHUNK)


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_view_is_what_that_seat_was_sent(web_db, game):
    match_id = web_db.match_ids(game)[0]
    match = load(web_db, match_id)
    replay = Replay(match)
    requests = {e["step"]: e["message"] for e in match["log"] if e["event"] == "request"}
    for seat in range(match["players"]):
        frames = replay.frames(f"seat-{seat}")
        sent = [(step, message) for step, message in requests.items() if message["seat"] == seat]
        assert sent
        for step, message in sent:
            assert frames[step] == message["observation"]


def test_fallback_decisions_are_replayed_too(web_db):
    """The hostile bot fails with a protocol error; the harness plays its seat on."""
    with Store(web_db.path) as store:
        row = store.one("SELECT m.id FROM matches m JOIN match_seats s ON s.match_id = m.id"
                        " WHERE s.status = 'protocol' ORDER BY m.id LIMIT 1")
    replay = Replay(load(web_db, row["id"]))
    steps = replay.summary(check=True)["steps"]
    failed = [s for s in steps if s["failure"]]
    assert failed and failed[0]["failure"]["status"] == "protocol"
    assert failed[0]["by"] == "fallback"
    assert any(s["by"] == "fallback" for s in steps[steps.index(failed[0]) + 1:])
    assert replay.verification["ok"]


def test_frames_are_computed_lazily_and_the_check_goes_as_far_as_they_go(web_db):
    match_id = web_db.match_ids("five-towers")[0]
    replay = Replay(load(web_db, match_id))
    assert len(replay.steps) > CHUNK
    first = replay.chunk("full", 0)
    assert first["start"] == 0 and first["count"] == CHUNK
    check = replay.verification
    assert not check["done"] and check["ok"] is None and check["checked_steps"] == CHUNK - 1
    assert replay.chunk("seat-0", 0)["count"] == CHUNK  # another view does not check again
    assert replay.verification["checked_steps"] == CHUNK - 1
    assert replay.check()["done"] and replay.verification["ok"]
    assert replay.verification["checked_steps"] == len(replay.steps)


def test_the_full_view_holds_what_the_seats_cannot_see(web_db):
    aa = Replay(load(web_db, web_db.match_ids("agent-avenue")[0]))
    full, seat0 = aa.frames("full")[3], aa.frames("seat-0")[3]
    assert "hands" in full and "hand" not in full and full["seat"] is None
    assert full["hands"][0] == seat0["hand"] and "hands" not in seat0
    assert len(full["deck"]) == full["draw_pile"]
    fa = Replay(load(web_db, web_db.match_ids("fifth-avenue")[0]))
    full, seat1 = fa.frames("full")[10], fa.frames("seat-1")[10]
    assert full["players_info"][1]["black_cards"] == seat1["your_black_cards"]
    assert "black_cards" not in seat1["players_info"][0]
    assert len(full["stacks"]["black"]["cards"]) == full["stacks"]["black"]["size"]
    ft = Replay(load(web_db, web_db.match_ids("five-towers")[0]))
    full = ft.frames("full")[7]
    assert len(full["draw_pile"]) == full["draw_pile_size"] and "torn_down_cards" in full
    snap = ft.frames("snapshot")[7]
    assert snap["draw_pile"] == full["draw_pile"]


def test_a_log_that_does_not_match_the_engine_is_reported(web_db):
    match = load(web_db, web_db.match_ids("five-towers")[0])
    requests = [e for e in match["log"] if e["event"] == "request"]
    requests[3]["message"]["observation"]["round"] = 99
    requests[4]["message"]["legal"] = []
    check = Replay(match).summary(check=True)["verification"]
    assert not check["ok"]
    assert [(m["step"], m["field"]) for m in check["mismatches"]] == [
        (requests[3]["step"], "observation"), (requests[4]["step"], "legal")]

    match = load(web_db, web_db.match_ids("five-towers")[0])
    actions = [e for e in match["log"] if e["event"] == "action"]
    actions[5]["action"] = {"type": "bid", "amount": 17}
    replay = Replay(match)
    check = replay.summary(check=True)["verification"]
    assert not check["ok"] and "step 5: the engine refuses the logged action" in check["error"]
    assert replay.frame_count == 6  # the frames up to the refused action are still shown


def test_a_pending_match_or_an_unknown_game_has_no_replay(web_db):
    pending = web_db.pending_match()
    with Store(web_db.path) as store:
        with pytest.raises(ReplayUnavailable, match="pending"):
            Replay(data.match(store, pending, with_log=True))
        match = data.match(store, web_db.match_ids("five-towers")[0], with_log=True)
    with pytest.raises(ReplayUnavailable, match="unknown game"):
        Replay({**match, "game": "chess"})


def test_parse_log_pairs_each_decision_with_its_reply_and_failure():
    log = [
        {"event": "request", "seat": 0, "step": 0, "message": {"legal": [1, 2], "time": {"bank_ms": 9000}}},
        {"event": "reply", "seat": 0, "step": 0, "line": "{}", "ms": 3.5},
        {"event": "action", "seat": 0, "step": 0, "action": 1, "by": "bot", "debug": "hi"},
        {"event": "request", "seat": 1, "step": 1, "message": {"legal": [1]}},
        {"event": "failure", "seat": 1, "step": 1, "status": "timeout", "error": "slow"},
        {"event": "action", "seat": 1, "step": 1, "action": 1, "by": "fallback"},
        {"event": "failure", "seat": 2, "step": None, "status": "crash", "error": "start-up: gone"},
        {"event": "end", "scores": [1, 0], "ranks": [1, 2], "statuses": ["ok", "timeout"], "teams": None},
    ]
    steps, start_failures, end, requests = parse_log(log)
    assert steps[0] == {"step": 0, "seat": 0, "action": 1, "by": "bot", "debug": "hi", "ms": 3.5, "cpu_ms": None,
                        "harness_ms": None, "bank_ms": 9000, "legal_count": 2, "failure": None, "stderr": None}
    assert steps[1]["failure"] == {"status": "timeout", "error": "slow"} and steps[1]["ms"] is None
    assert start_failures == [{"seat": 2, "status": "crash", "error": "start-up: gone"}]
    assert end["statuses"] == ["ok", "timeout"] and set(requests) == {0, 1}


def test_each_step_carries_its_decision_s_stderr_from_its_reply_or_its_failure():
    log = [
        {"event": "ready", "seat": 0, "line": "{}", "stderr": "loading\n"},
        {"event": "reply", "seat": 0, "step": 0, "line": "{}", "stderr": "thinking \x1b[31m\n"},
        {"event": "action", "seat": 0, "step": 0, "action": 1, "by": "bot"},
        {"event": "reply", "seat": 1, "step": 1, "line": "nonsense"},
        {"event": "failure", "seat": 1, "step": 1, "status": "protocol", "error": "bad", "stderr": "Traceback\n"},
        {"event": "action", "seat": 1, "step": 1, "action": 1, "by": "fallback"},
        {"event": "end", "scores": [1, 0], "ranks": [1, 2], "statuses": ["ok", "protocol"], "teams": None},
        {"event": "stderr", "seat": 0, "after": "end", "stderr": "bye\n"},
    ]
    steps = parse_log(log)[0]
    assert [step["stderr"] for step in steps] == ["thinking \\x1b[31m\n", "Traceback\n"]  # escaped for the page
    assert stderr_outside_decisions(log, 2) == {"start": ["loading\n", None], "after_end": ["bye\n", None]}


def test_an_old_log_without_stderr_gives_none_everywhere():
    log = [{"event": "reply", "seat": 0, "step": 0, "line": "{}"},
           {"event": "action", "seat": 0, "step": 0, "action": 1, "by": "bot"}]
    assert parse_log(log)[0][0]["stderr"] is None
    assert stderr_outside_decisions(log, 1) == {"start": [None], "after_end": [None]}


def test_parse_log_gives_each_decision_its_wall_cpu_and_harness_times():
    log = [
        {"event": "request", "seat": 0, "step": 0, "message": {"legal": [1, 2]}},
        {"event": "reply", "seat": 0, "step": 0, "line": "{}", "ms": 3.5, "harness_ms": 0.2, "cpu_ms": 3.1},
        {"event": "action", "seat": 0, "step": 0, "action": 1, "by": "bot"},
        {"event": "request", "seat": 1, "step": 1, "message": {"legal": [1]}},
        {"event": "failure", "seat": 1, "step": 1, "status": "timeout", "error": "slow", "ms": 150.2, "cpu_ms": 151.0},
        {"event": "action", "seat": 1, "step": 1, "action": 1, "by": "fallback"},
    ]
    steps = parse_log(log)[0]
    assert (steps[0]["ms"], steps[0]["cpu_ms"], steps[0]["harness_ms"]) == (3.5, 3.1, 0.2)
    assert (steps[1]["ms"], steps[1]["cpu_ms"]) == (150.2, 151.0), "a decision that timed out: its wait"


JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | st.text("ab<", max_size=3),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text("xyz", max_size=2), inner,
                                                                                 max_size=4), max_leaves=20)


@settings(max_examples=150, deadline=None)
@given(JSON, JSON)
def test_diff_then_apply_gives_the_new_frame_and_leaves_the_old_one(old, new):
    before = json.dumps(old)
    ops = diff(old, new)
    assert apply_ops(old, ops) == new
    assert json.dumps(old) == before
    assert json.loads(json.dumps(ops)) == ops  # ops are plain JSON


def test_chunks_decode_on_their_own():
    frames = [{"n": i, "list": list(range(i % 7)), "fixed": [0] * 5} for i in range(150)]
    chunks = encode_chunks(frames)
    assert [c["start"] for c in chunks] == [0, CHUNK, 2 * CHUNK]
    decoded = []
    for chunk in chunks:
        frame = chunk["base"]
        decoded.append(frame)
        for ops in chunk["ops"]:
            frame = apply_ops(frame, ops)
            decoded.append(frame)
    assert decoded == frames


def test_full_view_of_a_game_without_an_adapter_is_its_snapshot():
    from arena.games import get_game

    state = get_game("toy").new_game(2, 1)
    assert full_view("toy", state) == state.snapshot()
