"""What the commands print about a failing bot: `arena match` its stderr's tail and its whole
path, bulk `arena submit` the same tail as a single submit, `arena check` a hint to name the
game when a bot passes some games and fails others. Real sandboxed bots."""

from __future__ import annotations

import pytest

from arena.entry import main as entry
from botmaker import write_bot

CRASH_AT_THIRD = '''
print("deciding %d" % requests, file=sys.stderr, flush=True)
if requests == 3:
    for number in range(30):
        print("detail %d" % number, file=sys.stderr)
    raise ValueError("no move fits")
reply({"index": 0})'''


def arena(capsys, *args):
    with pytest.raises(SystemExit) as leaving:
        entry([str(a) for a in args])
    captured = capsys.readouterr()
    return leaving.value.code, captured.out, captured.err


def test_match_prints_a_failed_bot_s_last_20_stderr_lines_and_its_whole_path(tmp_path, capsys, test_bot):
    folder = tmp_path / "a_rather_long_folder_name_for_bots" / "of_one_student"
    path = write_bot(folder, "crasher", on_request=CRASH_AT_THIRD)
    code, out, _ = arena(capsys, "match", "toy", path, test_bot("greedy.py"), "--seed", "1", "--option", "rounds=5")
    assert code == 0
    lines = out.splitlines()
    row = next(line for line in lines if line.startswith("   0  "))
    assert f"   0  {path} " in row  # never cut from the left
    error = lines.index(row) + 1
    assert lines[error].strip().endswith("(stderr: ValueError: no move fits)")
    tail = lines[error + 1:error + 22]
    assert tail[0].startswith("      | ... ") and tail[0].endswith(" earlier lines of its stderr; --log FILE keeps all")
    assert tail[-1] == "      | ValueError: no move fits" and len(tail) == 21
    assert all(line.startswith("      | ") for line in tail)


def test_a_bot_that_passes_leaves_no_stderr_lines_in_match(tmp_path, capsys, test_bot):
    path = write_bot(tmp_path, "talker", on_request='''
print("thinking", file=sys.stderr, flush=True)
reply({"index": 0})''')
    code, out, _ = arena(capsys, "match", "toy", path, test_bot("greedy.py"), "--seed", "1")
    assert code == 0 and "thinking" not in out and "| " not in out


def test_bulk_submit_prints_a_refused_bot_s_stderr_tail_as_single_submit_does(tmp_path, capsys):
    folder = tmp_path / "class"
    write_bot(folder, "good")
    write_bot(folder, "crasher", on_request=CRASH_AT_THIRD)
    db = tmp_path / "arena.db"
    code, out, _ = arena(capsys, "--db", db, "submit", folder, "--game", "toy")
    assert code == 1
    lines = out.splitlines()
    refused = next(i for i, line in enumerate(lines) if line.startswith("refused: "))
    assert "crasher" in lines[refused] and "(stderr: ValueError: no move fits)" in lines[refused]
    assert lines[refused + 1] == "    --- last lines of its stderr ---"
    assert "    ValueError: no move fits" in lines[refused + 2:refused + 22]
    code, _, single = arena(capsys, "--db", db, "submit", folder / "crasher.py", "--game", "toy")
    shown = single.splitlines()
    assert code == 1 and [f"    {line}" for line in shown[1:]] == lines[refused + 1:refused + len(shown)]


def test_check_hints_at_game_when_a_bot_passes_one_game_and_fails_the_others(tmp_path, capsys):
    path = write_bot(tmp_path, "toy_only", on_start='''
if message["game"] != "toy":
    sys.exit("I play toy only")
reply({"type": "ready"})''')
    code, out, err = arena(capsys, "check", path)
    assert code == 1 and "FAIL  five-towers" in out and "ok    toy" in out
    hint = err.strip().splitlines()[-1]
    assert hint.startswith("hint: it passes toy and fails ")
    assert hint.endswith(': a bot for one game is checked with --game toy (or name its games in a bot.toml: games = ["toy"])')


def test_check_of_one_named_game_gives_no_hint(tmp_path, capsys):
    path = write_bot(tmp_path, "toy_only", on_start='''
if message["game"] != "toy":
    sys.exit("I play toy only")
reply({"type": "ready"})''')
    code, _, err = arena(capsys, "check", path, "--game", "toy")
    assert code == 0 and "hint" not in err
