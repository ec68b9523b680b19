"""The sandbox as a bot sees it: its user, its files, its environment; and mode none."""

from __future__ import annotations

import json
import os

import pytest

from arena.runner import cgroups, sandbox
from arena.runner.match import Limits, MatchSpec, play_match
from arena.runner.sandbox import SandboxUnavailable, detect
from botmaker import processes_with, write_bot

QUICK = Limits(start_ms=4000, decision_ms=1000, bank_ms=1000)

REPORT = """
    import json, os
    def can_import(name):
        try:
            __import__(name)
            return True
        except ImportError:
            return False
    report = {"uid": os.getuid(), "cwd": os.getcwd(), "cwd_entries": os.listdir("."),
              "home": os.environ.get("HOME"), "env": sorted(os.environ),
              "root_visible": os.path.exists("/root/.bashrc"), "repo_visible": os.path.exists(%r),
              "own_path": __file__, "games": can_import("arena.games.five_towers"),
              "runner": can_import("arena.runner.match")}
    sys.stderr.write("REPORT " + json.dumps(report) + "\\n")
    reply({"type": "ready"})"""


def bot_report(result) -> dict:
    line = next(line for line in result.seats[0].stderr.splitlines() if line.startswith("REPORT "))
    return json.loads(line[len("REPORT "):])


def play(path, other, protections=None):
    return play_match(MatchSpec("toy", [path, other], seed=1, limits=QUICK), protections=protections)


def test_match_records_the_sandbox_it_ran_in(tmp_path, test_bot):
    result = play(write_bot(tmp_path, "plain"), test_bot("greedy.py"))
    assert result.sandbox["mode"] == "bubblewrap"
    assert result.sandbox["resources"] in ("cgroup v1", "cgroup v2", "rlimits")


def test_bot_starts_in_an_empty_home_with_a_minimal_environment(tmp_path, test_bot):
    report = bot_report(play(write_bot(tmp_path, "reporter", on_start=REPORT % __file__), test_bot("greedy.py")))
    assert report["cwd"] == report["home"] == sandbox.BOT_HOME
    assert report["cwd_entries"] == []
    assert set(report["env"]) <= {"ARENA_BOT_TOKEN", "HOME", "LANG", "PATH", "PWD", "PYTHONDONTWRITEBYTECODE",
                                  "PYTHONHASHSEED", "PYTHONPATH", "PYTHONUNBUFFERED", "TMPDIR"}


def test_the_bots_own_files_are_at_slash_bot(tmp_path, test_bot):
    report = bot_report(play(write_bot(tmp_path, "where", on_start=REPORT % __file__), test_bot("greedy.py")))
    assert report["own_path"] == "/bot/where.py"


@pytest.mark.skipif(os.geteuid() != 0, reason="bots change user only when the harness runs as root")
def test_bot_runs_as_an_unprivileged_user_when_harness_is_root(tmp_path, test_bot):
    assert bot_report(play(write_bot(tmp_path, "whoami", on_start=REPORT % __file__), test_bot("greedy.py")))["uid"] >= 1000


def test_bot_cannot_see_the_harness_files(tmp_path, test_bot):
    report = bot_report(play(write_bot(tmp_path, "snoop", on_start=REPORT % __file__), test_bot("greedy.py")))
    assert report["repo_visible"] is False
    assert report["root_visible"] is False


def test_arenas_game_rules_are_importable_but_nothing_else_of_arena(tmp_path, test_bot):
    report = bot_report(play(write_bot(tmp_path, "engine", on_start=REPORT % __file__), test_bot("greedy.py")))
    assert report["games"] is True
    assert report["runner"] is False


def test_a_bot_in_a_private_folder_still_runs(tmp_path, test_bot):
    private = tmp_path / "private"
    path = write_bot(private, "secretive")
    os.chmod(private, 0o700)
    os.chmod(path, 0o600)
    assert play(path, test_bot("greedy.py")).seats[0].status == "ok"


def test_without_bubblewrap_untrusted_bots_are_refused_with_the_fix(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    sandbox._bubblewrap_problem.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap.*--sandbox none"):
            detect("bubblewrap")
    finally:
        monkeypatch.undo()
        sandbox._bubblewrap_problem.cache_clear()


def test_mode_none_runs_trusted_bots_and_still_cleans_up(tmp_path, test_bot):
    marker = "arena-mode-none-orphan-5521"
    path = write_bot(tmp_path, "orphan", on_start=f"""
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.environ.pop("ARENA_BOT_TOKEN", None) if {cgroups.available() is not None!r} else None
                os.execv("/bin/sleep", ["/bin/sleep", "3600", {marker!r}])
            os._exit(0)
        open("left-behind", "w").write("x")
        reply({{"type": "ready"}})""")
    result = play(path, test_bot("greedy.py"), protections=detect("none"))
    assert result.sandbox["mode"] == "none"
    assert result.seats[0].status == "ok"
    assert processes_with(marker) == []
    assert not [e for e in os.scandir("/tmp") if e.name.startswith("arena-scratch-")
                and os.path.exists(os.path.join(e.path, "left-behind"))]


def test_without_cgroups_memory_is_limited_per_process(tmp_path, test_bot, monkeypatch):
    monkeypatch.setenv("ARENA_NO_CGROUPS", "1")
    cgroups.available.cache_clear()
    try:
        limits = Limits(start_ms=4000, decision_ms=5000, bank_ms=500, memory_mb=200)
        path = write_bot(tmp_path, "hog", on_request="""
            hoard = [bytearray(50 << 20) for _ in range(10)]
            reply({"index": 0})""")
        result = play_match(MatchSpec("toy", [path, test_bot("greedy.py")], seed=1, limits=limits))
        assert result.sandbox["resources"] == "rlimits"
        assert result.seats[0].status == "limit"
    finally:
        monkeypatch.undo()
        cgroups.available.cache_clear()
