"""The sandbox as a bot sees it: its user, its files, its environment; and the weaker modes."""

from __future__ import annotations

import json
import os

import pytest

from arena.runner.match import Limits, MatchSpec, play_match
from arena.runner.sandbox import Protections, detect_protections
from botmaker import processes_with, write_bot

QUICK = Limits(start_ms=3000, decision_ms=500, bank_ms=500)
# Without bubblewrap, a bot's user must reach its interpreter on its own; the system Python
# is reachable, a Python under /root (pyenv) is not.
SYSTEM_PYTHON = "/usr/bin/python3"
LIMITS_ONLY = Protections("limits-only", False, "user-permissions" if os.geteuid() == 0 else "none",
                          False, os.geteuid() == 0)

REPORT = """
    import json, os
    report = {"uid": os.getuid(), "cwd": os.getcwd(), "cwd_entries": os.listdir("."),
              "env": sorted(os.environ), "root_visible": os.path.exists("/root/.bashrc"),
              "repo_visible": os.path.exists(%r)}
    sys.stderr.write("REPORT " + json.dumps(report) + "\\n")
    reply({"type": "ready"})"""


def bot_report(result) -> dict:
    line = next(line for line in result.seats[0].stderr.splitlines() if line.startswith("REPORT "))
    return json.loads(line[len("REPORT "):])


def play(path, other, protections=None):
    return play_match(MatchSpec("toy", [path, other], seed=1, limits=QUICK), protections=protections)


def test_match_records_the_sandbox_mode(tmp_path, test_bot):
    result = play(write_bot(tmp_path, "plain"), test_bot("greedy.py"))
    assert result.sandbox["mode"] == detect_protections().mode


def test_bot_starts_in_an_empty_scratch_directory_with_a_minimal_environment(tmp_path, test_bot):
    result = play(write_bot(tmp_path, "reporter", on_start=REPORT % __file__), test_bot("greedy.py"))
    report = bot_report(result)
    assert report["cwd_entries"] == []
    assert set(report["env"]) <= {"ARENA_BOT_TOKEN", "HOME", "LANG", "PATH", "PWD", "PYTHONDONTWRITEBYTECODE",
                                  "PYTHONHASHSEED", "PYTHONUNBUFFERED", "TMPDIR"}
    assert not os.path.exists(report["cwd"]), "the scratch directory is removed after the match"


@pytest.mark.skipif(os.geteuid() != 0, reason="bots change user only when the harness runs as root")
def test_bot_runs_as_an_unprivileged_user_when_harness_is_root(tmp_path, test_bot):
    result = play(write_bot(tmp_path, "whoami", on_start=REPORT % __file__), test_bot("greedy.py"))
    assert bot_report(result)["uid"] >= 1000


@pytest.mark.skipif(detect_protections().mode != "bubblewrap", reason="needs bubblewrap")
def test_bot_cannot_see_the_harness_files_under_bubblewrap(tmp_path, test_bot):
    result = play(write_bot(tmp_path, "snoop", on_start=REPORT % __file__), test_bot("greedy.py"))
    report = bot_report(result)
    assert report["repo_visible"] is False
    assert report["root_visible"] is False


needs_system_python = pytest.mark.skipif(not os.path.exists(SYSTEM_PYTHON), reason="needs /usr/bin/python3")


@needs_system_python
def test_double_forked_child_is_killed_without_a_pid_namespace(tmp_path, test_bot):
    marker = "arena-limits-only-orphan-8841"
    path = write_bot(tmp_path, "orphan", on_start=f"""
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sleep", ["/bin/sleep", "3600", {marker!r}])
            os._exit(0)
        reply({{"type": "ready"}})""", shebang=SYSTEM_PYTHON)
    result = play(path, test_bot("greedy.py"), protections=LIMITS_ONLY)
    assert result.sandbox["mode"] == "limits-only"
    assert result.seats[0].status == "ok"
    assert processes_with(marker) == []


@needs_system_python
def test_limits_apply_without_bubblewrap(tmp_path, test_bot):
    limits = Limits(start_ms=3000, decision_ms=5000, bank_ms=500, memory_mb=200)
    path = write_bot(tmp_path, "hog", on_request="""
        hoard = [bytearray(50 << 20) for _ in range(10)]
        reply({"index": 0})""", shebang=SYSTEM_PYTHON)
    result = play_match(MatchSpec("toy", [path, test_bot("greedy.py")], seed=1, limits=limits),
                        protections=LIMITS_ONLY)
    assert result.seats[0].status == "limit"


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root harness gives bots another user")
def test_bot_in_a_private_folder_still_runs_as_root(tmp_path, test_bot):
    private = tmp_path / "private"
    path = write_bot(private, "secretive")
    os.chmod(private, 0o700)
    os.chmod(path, 0o600)
    result = play(path, test_bot("greedy.py"))
    assert result.seats[0].status == "ok"
