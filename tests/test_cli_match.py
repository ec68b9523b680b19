"""`arena match` and `arena doctor` from the command line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

RANDOM = str(Path(__file__).resolve().parents[1] / "bots" / "random.py")


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_match_prints_every_seat():
    result = run("match", "five-towers", RANDOM, RANDOM, "--seed", "4")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("five-towers  seed 4")
    assert len([line for line in lines if line.strip().startswith(("0 ", "1 "))]) == 2


def test_match_json_gives_the_result_without_the_log(tmp_path):
    log = tmp_path / "match.json"
    result = run("match", "five-towers", RANDOM, RANDOM, "--seed", "4", "--json", "--log", str(log))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["seed"] == 4 and "log" not in summary
    assert [seat["status"] for seat in summary["seats"]] == ["ok", "ok"]
    assert json.loads(log.read_text())["log"][0]["event"] == "start"


@pytest.mark.parametrize("args,message", [
    (("match", "chess", RANDOM, RANDOM), "unknown game 'chess'"),
    (("match", "five-towers", RANDOM), "played by 2, 3, 4, 5 players, not 1"),
    (("match", "five-towers", RANDOM, "/nonexistent/bot.py"), "bot not found"),
    (("match", "five-towers", RANDOM, RANDOM, "--option", "colour=blue"), "has no option 'colour'"),
    (("match", "five-towers", RANDOM, RANDOM, "--option", "novalue"), "must look like key=value"),
])
def test_bad_input_is_one_line_with_exit_code_2(args, message):
    arena = Path(sys.executable).parent / "arena"  # the installed console script
    result = subprocess.run([str(arena), *args], capture_output=True, text=True)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_doctor_names_the_sandbox_mode():
    result = run("doctor")
    assert result.exit_code == 0
    assert "sandbox mode ........... bubblewrap" in result.output
