"""The C++, Java and Rust starter kits: each builds with its own `build` command (through `arena submit`; skipped where its toolchain is missing), plays every
game legally through the real harness (`arena match ... --json`), plays several matches in
one process (protocol v2 reuse, reseeded on every start), and reads and writes any JSON."""

from __future__ import annotations

import json
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from arena.games import get_game
from arena.results.store import Store
from waiting import PATIENCE

REPO = Path(__file__).resolve().parents[1]
STARTER = REPO / "bots" / "starter"
RANDOM_BOT = REPO / "bots" / "random.py"
ARENA = Path(sys.executable).parent / "arena"  # the installed console script
KITS = ("cpp", "java", "rust")

# Every game, player count and variant the kits are asked to play: (game, players, options).
VARIANTS = [
    ("five-towers", 2, {}),
    ("five-towers", 3, {}),
    ("agent-avenue", 2, {}),
    ("agent-avenue", 2, {"advanced": True}),
    ("fifth-avenue", 2, {}),
    ("fifth-avenue", 3, {}),
]


def manifest(directory: Path) -> dict:
    return tomllib.loads((directory / "bot.toml").read_text())


def toolchain(kit: str) -> str | None:
    """Why the kit cannot be built here (None: it can). `.ci/run` installs them all."""
    needs = {"cpp": ["g++"], "java": ["javac"], "rust": ["cargo"]}[kit]
    for program in needs:
        if shutil.which(program) is None and not (program == "cargo" and (Path.home() / ".cargo/bin/cargo").exists()):
            return f"the {kit} kit needs {program}"
    return None


@pytest.fixture(scope="session")
def built_kits(tmp_path_factory) -> dict[str, Path]:
    """Every kit this machine can build, built by the real build step: `arena submit` copies
    them into a fresh database's bot store, runs each `build` inside the sandbox and validates
    it; the stored, built copy is what the tests play. The submissions run side by side."""
    buildable = [kit for kit in KITS if toolchain(kit) is None]
    if not buildable:
        return {}
    root = tmp_path_factory.mktemp("kits")
    database = root / "kits.db"
    done = subprocess.run([str(ARENA), "--db", str(database), "submit", "--game", "five-towers",
                           *(str(STARTER / kit) for kit in buildable)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"a kit did not build or validate: {done.stdout[-2000:]} {done.stderr[-2000:]}"
    with Store(database, create=False) as store:
        built = {version["name"]: store.bot_path(version) for version in store.bot_versions("five-towers")}
    assert sorted(built) == sorted(buildable)
    return built


@pytest.fixture(scope="session")
def kits(built_kits) -> dict[str, Path]:
    """All three kits, built (the test is skipped where a toolchain is missing)."""
    missing = [toolchain(kit) for kit in KITS if toolchain(kit)]
    if missing:
        pytest.skip("; ".join(missing))
    return built_kits


@pytest.fixture
def kit_folder(built_kits, kit) -> Path:
    reason = toolchain(kit)
    if reason:
        pytest.skip(reason)
    return built_kits[kit]


def command_argv(directory: Path) -> list[str]:
    """The kit's `command` as the harness starts it: words naming the folder's files made absolute."""
    words = shlex.split(manifest(directory)["command"])
    return [str(directory / word) if (directory / word).exists() else word for word in words]


# ------------------------------------------------------------------ the manifests


@pytest.mark.parametrize("kit", KITS)
def test_manifest_names_command_language_and_build(kit):
    config = manifest(STARTER / kit)
    assert config["language"] == kit
    assert isinstance(config["command"], str) and config["command"]
    assert isinstance(config["build"], str) and config["build"]
    assert (STARTER / kit / "README.md").is_file()


def test_every_kit_builds(kits):
    assert (kits["cpp"] / "bot").is_file()
    assert (kits["java"] / "classes" / "Bot.class").is_file()
    assert (kits["rust"] / "target" / "release" / "bot").is_file()


# ------------------------------------------------------------------ real matches


def run_match(directory: Path, game: str, players: int, options: dict, seed: int, seat: int) -> dict:
    bots = [str(RANDOM_BOT)] * players
    bots[seat] = str(directory)
    args = [str(ARENA), "match", game, *bots, "--seed", str(seed), "--json"]
    for key, value in options.items():
        args += ["--option", f"{key}={str(value).lower()}"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("kit", KITS)
def test_kit_plays_every_game_through_the_harness(kit_folder, kit):
    """Six real sandboxed matches per kit (two at a time), the kit's seat ends `ok` in each."""
    cases = [(game, players, options, 40 + i, i % players) for i, (game, players, options) in enumerate(VARIANTS)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda case: run_match(kit_folder, *case), cases))
    problems = []
    for (game, players, options, seed, seat), result in zip(cases, results):
        mine = result["seats"][seat]
        if mine["status"] != "ok" or mine["decisions"] == 0:
            problems.append((game, players, options, mine["status"], mine["error"], mine["stderr"][-500:]))
    assert problems == []


# ------------------------------------------------------------------ several matches in one process


class Pipe:
    """The bot as a plain child process: one line out, one line back."""

    def __init__(self, argv: list[str]):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, encoding="utf-8")
        self.stderr: list[str] = []
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
        self.process.stdin.flush()

    def ask(self, message: dict) -> dict:
        self.send(message)
        line = self.process.stdout.readline()
        assert line.endswith("\n"), f"no reply to {message['type']}; stderr: {''.join(self.stderr)[-1000:]}"
        return json.loads(line)


def play_over_pipe(pipe: Pipe, game_name: str, players: int, options: dict, seed: int, seat: int) -> list[int]:
    """One whole match of the engine with the piped bot in ``seat``; the indices it chose."""
    game = get_game(game_name)
    options = game.validate(players, options)
    state = game.create_state(players, seed, options)
    limits = {"start_ms": 5000, "decision_ms": 1000, "bank_ms": 10000, "max_line_bytes": 1048576,
              "max_output_bytes": 8388608}
    ready = pipe.ask({"type": "start", "protocol": 2, "game": game_name, "options": options, "seat": seat,
                      "players": players, "seed": seed, "limits": limits, "unknown_field": [1, {"x": None}]})
    assert ready["type"] == "ready" and ready.get("matches") == "many"
    pipe.send({"type": "ping", "note": "an unknown message type: ignored, no answer"})
    rng = random.Random(seed)
    chosen = []
    step = 0
    while not state.is_over():
        current = state.current_seat()
        legal = state.legal_actions()
        if current == seat:
            reply = pipe.ask({"type": "request", "seat": seat, "step": step, "observation": state.observation(seat),
                              "legal": legal, "time": {"decision_ms": 1000, "bank_ms": 10000}})
            assert set(reply) == {"type", "index"} and reply["type"] == "action"
            assert type(reply["index"]) is int and 0 <= reply["index"] < len(legal)
            chosen.append(reply["index"])
            state.apply(legal[reply["index"]])
        else:
            state.apply(rng.choice(legal))
        step += 1
    pipe.send({"type": "end", "seat": seat, "scores": state.scores(), "ranks": state.ranks(),
               "statuses": ["ok"] * players, "teams": state.teams()})
    return chosen


@pytest.fixture(scope="session")
def piped_choices(built_kits) -> dict[str, list[list[int]]]:
    """Each kit plays three matches in one process: five-towers, fifth-avenue, five-towers
    again with the first match's seed."""
    matches = [("five-towers", 2, {}, 2718281828459045235, 0),
               ("fifth-avenue", 3, {}, 77, 2),
               ("five-towers", 2, {}, 2718281828459045235, 0)]
    results = {}
    for kit, directory in built_kits.items():
        pipe = Pipe(command_argv(directory))
        try:
            results[kit] = [play_over_pipe(pipe, *match) for match in matches]
            pipe.send({"type": "quit"})
            assert pipe.process.wait(timeout=PATIENCE) == 0
        finally:
            if pipe.process.poll() is None:
                pipe.process.kill()
                pipe.process.wait()
    return results


@pytest.mark.parametrize("kit", KITS)
def test_kit_plays_several_matches_in_one_process_and_reseeds(piped_choices, kit_folder, kit):
    first, second, third = piped_choices[kit]
    assert first and second
    assert third == first  # the same seed after a new start: the same choices


def test_kits_make_the_same_choices_from_the_same_seed(piped_choices, kits):
    assert piped_choices["cpp"] == piped_choices["java"] == piped_choices["rust"]


@pytest.mark.parametrize("kit", KITS)
def test_kit_exits_at_the_end_of_input(kit_folder, kit):
    pipe = Pipe(command_argv(kit_folder))
    assert pipe.ask({"type": "start", "game": "five-towers", "seat": 0, "players": 2, "seed": -5})["type"] == "ready"
    pipe.process.stdin.close()
    assert pipe.process.wait(timeout=PATIENCE) == 0


# ------------------------------------------------------------------ the JSON code

VALID = [
    '{"a":1}', "[]", "{}", "[[[[[]]]]]", '""', '"plain"',
    r'"\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r\u0001"', '"\u00fc\u4e2d\U0001F600 raw UTF-8"',
    "0", "-0", "-12", "-12.5e-3", "1E+2", "2.5E3", "0.1", "-0.0", "3.141592653589793",
    "9223372036854775807", "-9223372036854775808", "123456789012345678901234567890", "1e300",
    "true", "false", "null", '{"k":{"n":[1,-2,3.25,{"x":null,"t":true,"f":false}]},"s":"\\u0000"}',
    ' \t{ "spaced" : [ 1 , 2 ] , "e" : { } }\r', '{"dup":1,"dup":2}',
    json.dumps({"type": "request", "seat": 1, "observation": {"towers": [{"candy": [15, 3, 0]}], "x": 1.5},
                "legal": [{"type": "bid", "amount": 2}, {"type": "pass"}]}, separators=(",", ":")),
]
INVALID = ["[1,]", '{"a" 1}', "01", r'"\x"', "[1.]", "nul", '"unterminated', "1 2", "{", "]", "",
           '{"a":1,}', "-", "1e", "'single'", "[1 2]", '"tab\there"']


STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def typed(value):
    """A value with its JSON types made explicit (Python's 2 == 2.0 would hide a float)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return ("int", value) if -2**63 <= value < 2**63 else ("float", float(value))
    if isinstance(value, float):
        return ("float", value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return [typed(item) for item in value]
    return {key: typed(item) for key, item in value.items()}


@pytest.mark.parametrize("kit", KITS)
def test_kit_json_round_trips_any_json(kit_folder, kit):
    argv = command_argv(kit_folder) + ["--echo-json"]
    lines = VALID + INVALID
    done = subprocess.run(argv, input="\n".join(lines) + "\n", capture_output=True, text=True,
                          encoding="utf-8", timeout=60)
    assert done.returncode == 0, done.stderr
    outputs = done.stdout.split("\n")
    assert outputs[-1] == "" and len(outputs) == len(lines) + 1
    for text, output in zip(VALID, outputs):
        assert output != "error", f"{kit} refused valid JSON {text!r}"
        assert typed(json.loads(output)) == typed(json.loads(text)), (text, output)
        assert not re.search(r"\s", STRING.sub('""', output)), output  # compact: no spaces outside strings
    for text, output in zip(INVALID, outputs[len(VALID):]):
        assert output == "error", f"{kit} accepted invalid JSON {text!r} as {output!r}"
