"""Every environment variable arena reads, malformed, is refused before anything runs: one
`Error:` line naming the variable and the form it needs, exit code 2 (`arena.settings`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena import settings
from arena.cli import main

REPO = Path(__file__).resolve().parents[1]
GAMES_FORM = ("ARENA_GAMES must be name=module:Class entries separated by commas"
              " (e.g. mygame=mypackage.mygame:MyGame), not ")

MALFORMED = [
    ("ARENA_GAMES", "garbage", GAMES_FORM + "'garbage'"),
    ("ARENA_GAMES", "toy=toy_game", GAMES_FORM + "'toy=toy_game'"),
    ("ARENA_GAMES", "toy=toy_game:Toy,=x:Y", GAMES_FORM + "'=x:Y'"),
    ("ARENA_GAMES", "my game=pkg.mod:Cls", GAMES_FORM + "'my game=pkg.mod:Cls'"),
    ("ARENA_GAMES", "five-towers=pkg.mod:Cls", "ARENA_GAMES: 'five-towers' is one of arena's own games;"
                                               " give yours another name"),
    ("ARENA_GAMES", "a=pkg.mod:A,a=pkg.mod:B", "ARENA_GAMES names the game 'a' twice"),
    ("ARENA_SANDBOX", "docker", "ARENA_SANDBOX must be bubblewrap or none, not 'docker'"),
    ("ARENA_NO_CGROUPS", "yes", "ARENA_NO_CGROUPS must be 1 or 0 (or unset), not 'yes'"),
    ("ARENA_DEBUG", "true", "ARENA_DEBUG must be 1 or 0 (or unset), not 'true'"),
    ("ARENA_BOT_CACHE", "cache/bots", "ARENA_BOT_CACHE must be an absolute folder path, not 'cache/bots'"),
    ("ARENA_DB", "{tmp}", "ARENA_DB must be the path of a database file, not a folder ('{tmp}')"),
    ("ARENA_DB", "{tmp}/results/", "ARENA_DB must be the path of a database file, not a folder ('{tmp}/results/')"),
]


@pytest.mark.parametrize("variable, value, message", MALFORMED,
                         ids=[f"{variable}={value}" for variable, value, _ in MALFORMED])
@pytest.mark.parametrize("command", [["games"], ["tournament", "list"], ["bots"]], ids=" ".join)
def test_a_malformed_variable_is_one_error_line_before_anything_runs(tmp_path, variable, value, message, command):
    value, message = value.format(tmp=tmp_path), message.format(tmp=tmp_path)
    out = CliRunner().invoke(main, command, env={variable: value}, catch_exceptions=False)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [f"Error: {message}"]
    assert out.stdout == ""


def test_arena_games_garbage_is_refused_by_the_arena_command(tmp_path):
    env = {**os.environ, "ARENA_GAMES": "garbage"}
    done = subprocess.run([sys.executable, "-m", "arena", "games"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"Error: {GAMES_FORM}'garbage'"]


@pytest.mark.parametrize("variable, value", [("ARENA_GAMES", ""), ("ARENA_GAMES", "toy=toy_game:Toy,"),
                                             ("ARENA_SANDBOX", "none"), ("ARENA_SANDBOX", ""),
                                             ("ARENA_NO_CGROUPS", "0"), ("ARENA_NO_CGROUPS", "1"),
                                             ("ARENA_DEBUG", "0"), ("ARENA_BOT_CACHE", "/var/cache/arena"),
                                             ("ARENA_SECRET", " any text at all ")])
def test_well_formed_and_empty_values_are_accepted(variable, value):
    out = CliRunner().invoke(main, ["games"], env={variable: value}, catch_exceptions=False)
    assert out.exit_code == 0, out.output


def test_a_switch_is_on_only_for_1(monkeypatch):
    for text, on in (("1", True), ("0", False), ("", False)):
        monkeypatch.setenv("ARENA_NO_CGROUPS", text)
        assert settings.flag("ARENA_NO_CGROUPS") is on
    monkeypatch.delenv("ARENA_NO_CGROUPS")
    assert settings.flag("ARENA_NO_CGROUPS") is False


def test_a_malformed_machine_key_file_is_one_error_line(tmp_path, monkeypatch):
    (tmp_path / "arena").mkdir()
    key = tmp_path / "arena" / "secret"
    key.write_text("not a key\n")
    monkeypatch.delenv("ARENA_SECRET", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    bot = str(REPO / "bots" / "random.py")
    out = CliRunner().invoke(main, ["match", "toy", bot, bot, "--seed", "1"], catch_exceptions=False)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [f"Error: {key} must hold this machine's key, 64 hexadecimal digits, and"
                                       " holds something else; remove it (a new key is made) or set ARENA_SECRET"]


def test_a_relative_xdg_config_home_is_ignored_as_the_xdg_spec_says(monkeypatch):
    from arena.results import keys

    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/config")
    assert keys.key_file() == Path.home() / ".config" / "arena" / "secret"
    monkeypatch.setenv("XDG_CONFIG_HOME", "/srv/config")
    assert keys.key_file() == Path("/srv/config/arena/secret")


def test_the_modules_that_read_a_variable_refuse_it_in_the_same_words(monkeypatch):
    from arena.runner.sandbox import SandboxUnavailable, requested_mode
    from arena.tournament.executors.bundles import BotCache, BundleRefused

    monkeypatch.setenv("ARENA_SANDBOX", "docker")
    with pytest.raises(SandboxUnavailable, match="ARENA_SANDBOX must be bubblewrap or none, not 'docker'"):
        requested_mode()
    monkeypatch.setenv("ARENA_BOT_CACHE", "cache/bots")  # a Dask worker's cache folder
    with pytest.raises(BundleRefused, match="ARENA_BOT_CACHE must be an absolute folder path"):
        BotCache()
