"""Real runtimes under the default limits: `java -jar`, a Go binary and Node start and play
with the cgroup memory accounting; where only rlimits are available (ARENA_NO_CGROUPS=1),
`java -jar` needs the flags docs/bots.md gives, and those flags are enough."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ARENA = Path(sys.executable).parent / "arena"
RANDOM_BOT = REPO / "bots" / "random.py"

JAVA_BOT = r"""
import java.io.*;
public class Bot {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\"type\":\"start\"")) System.out.println("{\"type\":\"ready\"}");
            else if (line.contains("\"type\":\"request\"")) System.out.println("{\"index\":0}");
            else if (line.contains("\"type\":\"quit\"")) break;
            System.out.flush();
        }
    }
}
"""

GO_BOT = r"""
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		switch {
		case strings.Contains(line, `"type":"start"`):
			fmt.Println(`{"type":"ready"}`)
		case strings.Contains(line, `"type":"request"`):
			fmt.Println(`{"index":0}`)
		case strings.Contains(line, `"type":"quit"`):
			return
		}
	}
}
"""

JAVA_RLIMIT_FLAGS = "-Xmx256m -XX:CompressedClassSpaceSize=64m -XX:+UseSerialGC"


def readable(folder: Path) -> Path:
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)
    for parent in folder.parents:
        if str(parent).startswith("/tmp/"):
            parent.chmod(parent.stat().st_mode | 0o711)
    return folder


def submitted(tmp_path: Path, folder: Path) -> Path:
    """The bot built by `arena submit` (the sandboxed build step); its stored, built copy."""
    from arena.results.store import Store

    database = tmp_path / "arena.db"
    done = subprocess.run([str(ARENA), "--db", str(database), "submit", str(folder), "--game", "agent-avenue"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    with Store(database, create=False) as store:
        (version,) = store.bot_versions("agent-avenue")
        return store.bot_path(version)


def match_seat(bot: Path, cgroups: bool = True) -> dict:
    """Seat 0 of a real sandboxed match under the default limits."""
    env = dict(os.environ)
    env.pop("ARENA_NO_CGROUPS", None)
    if not cgroups:
        env["ARENA_NO_CGROUPS"] = "1"
    done = subprocess.run([str(ARENA), "match", "agent-avenue", str(bot), str(RANDOM_BOT), "--seed", "3", "--json"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["seats"][0]


def with_command(tmp_path: Path, built: Path, command: str) -> Path:
    """A copy of a built bot with another `command` (the build is not run again)."""
    copy = tmp_path / f"copy-{abs(hash(command))}"
    shutil.copytree(built, copy)
    for path in [copy, *copy.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    (copy / "bot.toml").write_text(f'command = "{command}"\n')
    return readable(copy)


needs_java = pytest.mark.skipif(shutil.which("javac") is None or shutil.which("jar") is None,
                                reason="needs a JDK (javac, jar)")
needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="needs Go (apt-get install golang-go)")


@pytest.fixture(scope="module")
def java_jar(tmp_path_factory) -> Path:
    tmp_path = tmp_path_factory.mktemp("java")
    folder = tmp_path / "javabot"
    folder.mkdir()
    (folder / "Bot.java").write_text(JAVA_BOT)
    (folder / "bot.toml").write_text('command = "java -jar bot.jar"\n'
                                     f'build = "javac -J{JAVA_RLIMIT_FLAGS.replace(" ", " -J")} Bot.java'
                                     ' && jar cfe bot.jar Bot Bot.class"\n')
    return submitted(tmp_path, readable(folder))


@needs_java
def test_plain_java_jar_plays_under_the_default_limits(java_jar):
    seat = match_seat(java_jar)
    assert (seat["status"], seat["error"]) == ("ok", None)


@needs_java
def test_with_rlimits_only_plain_java_jar_does_not_start_and_the_error_says_why(java_jar):
    seat = match_seat(java_jar, cgroups=False)
    assert seat["status"] == "crash" and "start-up" in seat["error"]


@needs_java
def test_with_rlimits_only_the_documented_java_flags_are_enough(java_jar, tmp_path):
    bot = with_command(tmp_path, java_jar, f"java {JAVA_RLIMIT_FLAGS} -jar bot.jar")
    seat = match_seat(bot, cgroups=False)
    assert (seat["status"], seat["error"]) == ("ok", None)


@needs_go
@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroups", "rlimits"])
def test_a_go_binary_plays_under_the_default_limits(tmp_path, cgroups):
    folder = tmp_path / "gobot"
    folder.mkdir()
    (folder / "main.go").write_text(GO_BOT)
    (folder / "bot.toml").write_text('command = "./bot"\n'
                                     'build = "GOCACHE=$HOME/cache GO111MODULE=off go build -o bot main.go"\n')
    seat = match_seat(submitted(tmp_path, readable(folder)), cgroups=cgroups)
    assert (seat["status"], seat["error"]) == ("ok", None)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroups", "rlimits"])
def test_node_plays_under_the_default_limits(cgroups):
    seat = match_seat(REPO / "bots" / "starter" / "javascript", cgroups=cgroups)
    assert (seat["status"], seat["error"]) == ("ok", None)
