"""`arena show MATCH` prints each bot's stderr under the decision during which it was written,
like a console: the last lines (`--stderr-lines N`, default 5), all of them (`--all-stderr`),
or none (`--stderr-lines 0`)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli import main
from botmaker import write_bot

CHATTY = '''
for idea in range(7):
    print("step %d idea %d" % (message["step"], idea), file=sys.stderr, flush=True)
reply({"type": "action", "index": 0})'''


def arena(db, *args):
    out = CliRunner().invoke(main, ["--db", db, *args], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return out.output


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """One stored toy match: a chatty bot (seat 0) against a silent one."""
    tmp = tmp_path_factory.mktemp("show")
    db = str(tmp / "arena.db")
    chatty = write_bot(tmp / "src", "chatty", on_start='''
print("loading", file=sys.stderr, flush=True)
reply({"type": "ready"})''', on_request=CHATTY)
    silent = write_bot(tmp / "src", "silent")
    arena(db, "tournament", "run", "--game", "toy", "--bots", f"{chatty},{silent}", "--rounds", "1",
          "--seed", "4", "--workers", "1", "--option", "rounds=2")
    return db


def _match_with_chatty_in_seat_0(db) -> str:
    for match_id in ("1", "2"):
        shown = arena(db, "show", match_id)
        if "   0  chatty" in shown:
            return match_id
    raise AssertionError("no match with chatty in seat 0")


def test_show_prints_the_last_five_lines_of_each_decision_s_stderr_under_it(stored):
    shown = arena(stored, "show", _match_with_chatty_in_seat_0(stored)).splitlines()
    at = shown.index(next(line for line in shown if line.startswith("step    0  seat 0:")))
    assert shown[at + 1:at + 7] == ["            | ... 2 earlier lines; --all-stderr shows them"] + [
        f"            | step 0 idea {i}" for i in range(2, 7)]
    assert shown[at + 7].startswith("step    1  seat 1:")  # the silent bot: nothing under its decision


def test_show_prints_the_start_up_stderr_before_the_first_decision(stored):
    shown = arena(stored, "show", _match_with_chatty_in_seat_0(stored))
    assert "start-up  seat 0: stderr\n            | loading\n" in shown


def test_all_stderr_prints_every_line_and_zero_lines_none(stored):
    match_id = _match_with_chatty_in_seat_0(stored)
    everything = arena(stored, "show", match_id, "--all-stderr")
    assert "".join(f"            | step 0 idea {i}\n" for i in range(7)) in everything
    assert "earlier line" not in everything
    nothing = arena(stored, "show", match_id, "--stderr-lines", "0")
    assert "| " not in nothing and "idea" not in nothing
