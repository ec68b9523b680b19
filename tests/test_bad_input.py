"""Bad input from a user: each gets one `Error:` line, exit 1 (2 for usage), no traceback, and
nothing is created or changed — no folder, no database, nothing written into a file that is
not arena's, nothing already stored lost."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from arena.entry import main as entry
from botmaker import write_bot

REPO = Path(__file__).resolve().parents[1]
RANDOM = str(REPO / "bots" / "random.py")


def arena(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as leaving:
        entry(list(args))
    captured = capsys.readouterr()
    return leaving.value.code, captured.out, captured.err


def snapshot(folder: Path) -> dict:
    found = {}
    for root, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = Path(root) / name
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    return found


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A folder with a real arena database (one tournament played) and the bots' sources."""
    import contextlib
    import io

    tmp_path = tmp_path_factory.mktemp("place")
    src = tmp_path / "src"
    bots = [write_bot(src, "alpha"), write_bot(src, "beta", on_request='reply({"index": 1})')]
    db = tmp_path / "arena.db"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        with pytest.raises(SystemExit) as leaving:
            entry(["--db", str(db), "tournament", "run", "--game", "toy", "--bots", ",".join(bots),
                   "--seed", "1", "--workers", "1"])
    assert leaving.value.code == 0
    (tmp_path / "other.db").write_bytes(b"")
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE notes (text TEXT)")
    other.commit()
    other.close()
    (tmp_path / "garbage.db").write_bytes(b"this is not a database at all" * 100)
    (tmp_path / "empty.db").write_bytes(b"")
    (tmp_path / "notutf8.toml").write_bytes(b'game = "toy"\nbots = ["\xff\xfe"]\n')
    return tmp_path


@pytest.fixture
def place(template, tmp_path):
    """A copy of the template folder for one test."""
    import shutil

    copy = tmp_path / "place"
    shutil.copytree(template, copy, symlinks=True)
    return copy, copy / "arena.db", [str(copy / "src" / "alpha.py"), str(copy / "src" / "beta.py")]


def toml(tmp_path: Path, text: str) -> str:
    path = tmp_path / f"t{abs(hash(text)) % 10**8}.toml"
    path.write_text(text)
    return str(path)


CASES = [
    # (arguments, expected exit code, text in the error); {db}, {tmp}, {bot}, {bot2} are filled in
    (["--db", "{tmp}/garbage.db", "leaderboard", "--game", "toy"], 1, "is not an SQLite database"),
    (["--db", "{tmp}/garbage.db", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}"], 1,
     "is not an SQLite database"),
    (["--db", "{tmp}", "bots"], 1, "is a folder"),
    (["--db", "{tmp}", "submit", "{bot}", "--game", "toy"], 1, "is a folder"),
    (["--db", "{tmp}/other.db", "leaderboard", "--game", "toy"], 1, "another program"),
    (["--db", "{tmp}/other.db", "submit", "{bot}", "--game", "toy"], 1, "another program"),
    (["--db", "{tmp}/empty.db", "leaderboard", "--game", "toy"], 1, "is empty"),
    (["--db", "{tmp}/missing/folder/x.db", "submit", "{bot}", "--game", "toy"], 1, "does not exist"),
    (["--db", "{tmp}/missing.db", "bots"], 1, "no database at"),
    (["--db", "{tmp}/garbage.db/x.db", "submit", "{bot}", "--game", "toy"], 1, "is a file, not a folder"),
    (["--db", "{db}", "show", "99999999999999999999"], 2, "not in the range"),
    (["--db", "{db}", "show", "-3"], 2, "No such option"),
    (["--db", "{db}", "show", "424242"], 1, "no match 424242"),
    (["--db", "{db}", "tournament", "show", "77"], 1, "no tournament 77"),
    (["--db", "{db}", "tournament", "resume", "0"], 2, "not in the range"),
    (["--db", "{db}", "leaderboard"], 2, "give --game GAME"),
    (["--db", "{db}", "leaderboard", "--game", "toy", "--all-games"], 2, "--all-games"),
    (["--db", "{db}", "leaderboard", "--game", "chess"], 1, "unknown game 'chess'"),
    (["--db", "{db}", "leaderboard", "--game", "toy", "--limit", "0"], 2, "not in the range"),
    (["--db", "{db}", "leaderboard", "--game", "toy", "--format", "xml"], 2, "'xml' is not one of"),
    (["--db", "{db}", "submit", "{tmp}/nothere.py", "--game", "toy"], 1, "no such file or directory"),
    (["--db", "{db}", "submit", "{bot}", "--game", "toy", "--name", ""], 1, "may not be empty"),
    (["--db", "{db}", "submit", "{bot}", "--game", "toy", "--name", "a/b"], 1, "bad bot name"),
    (["--db", "{db}", "submit", "{bot}"], 2, "Missing option '--game'"),
    (["--db", "{db}", "tournament", "run"], 2, "give a tournament FILE.toml"),
    (["--db", "{db}", "tournament", "run", "--game", "toy"], 2, "--game needs --bots"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", ","], 2, "names no bot"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--workers", "0"], 2,
     "not in the range"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--workers", "-1"], 2,
     "not in the range"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--seed", "1.5"], 2,
     "not a valid integer"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--seed", str(1 << 64)], 2,
     "not in the range"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--bank-ms", "99999999999"], 2,
     "not in the range"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--decision-ms", "-5"], 2,
     "not in the range"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--memory-mb", "lots"], 2,
     "not a valid integer"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--rounds", "100000000"], 2,
     "not in the range"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--rounds", "1999999"], 1,
     "at most 2,000,000 fit one tournament"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--players", "3"], 1,
     "need at least 3 bots"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot}"], 1, "each may enter once"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "ghost,spirit"], 1, "unknown bot 'ghost'"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "alpha@7,beta"], 1, "has no version 7"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "alpha@x,beta"], 1, "bad version"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--option", "rounds=many"], 1,
     "rounds"),
    (["--db", "{db}", "tournament", "run", "--game", "toy", "--bots", "{bot},{bot2}", "--option", "x"], 1,
     "must look like key=value"),
    (["--db", "{db}", "tournament", "run", "{toml:rounds}", "--game", "toy"], 2, "not both"),
    (["--db", "{db}", "tournament", "run", "{tmp}/nothere.toml"], 1, "no such file"),
    (["--db", "{db}", "tournament", "run", "{tmp}/notutf8.toml"], 1, "not UTF-8"),
    (["--db", "{db}", "tournament", "run", "{toml:bad}"], 1, "not valid TOML"),
    (["--db", "{db}", "tournament", "run", "{toml:rounds}"], 1, "rounds must be a whole number, not a string"),
    (["--db", "{db}", "tournament", "run", "{toml:game}"], 1, "game must be a string, not a number"),
    (["--db", "{db}", "tournament", "run", "{toml:options}"], 1, "options must be a table"),
    (["--db", "{db}", "tournament", "run", "{toml:botsstring}"], 1, "bots must be a list, not a string"),
    (["--db", "{db}", "tournament", "run", "{toml:players}"], 1, "players must be a whole number, not a string"),
    (["--db", "{db}", "tournament", "run", "{toml:seedfloat}"], 1, "seed must be a whole number"),
    (["--db", "{db}", "tournament", "run", "{toml:limit}"], 1, "limit decision_ms must be from 1 to 600000"),
    (["--db", "{db}", "tournament", "run", "{toml:unknownlimit}"], 1, "unknown limit 'decison_ms'"),
    (["--db", "{db}", "tournament", "run", "{toml:typo}"], 1, "unknown key 'round' (did you mean 'rounds'?)"),
    (["--db", "{db}", "tournament", "run", "{toml:entry}"], 1, "unknown key 'pth'"),
    (["--db", "{db}", "tournament", "run", "{toml:emptyname}"], 1, "name must be 1 to 200 characters"),
    (["--db", "{db}", "tournament", "run", "{toml:nogame}"], 1, "needs 'game' and 'bots'"),
    (["match", "chess", "{bot}", "{bot2}"], 2, "unknown game 'chess'"),
    (["match", "toy", "{bot}"], 2, "not 1"),
    (["match", "toy", "{bot}", "{tmp}/nothere.py"], 2, "bot not found"),
    (["match", "toy", "{bot}", "{bot2}", "--log", "{tmp}/missing/m.json"], 2, "does not exist"),
    (["match", "toy", "{bot}", "{bot2}", "--log", "{tmp}"], 2, "Error"),
    (["match", "toy", "{bot}", "{bot2}", "--seed", "-1"], 2, "not in the range"),
    (["match", "toy", "{bot}", "{bot2}", "--start-ms", "0"], 2, "not in the range"),
    (["--db", "{db}", "failures", "--tournament", "99"], 1, "no tournament 99"),
    (["--db", "{db}", "ratings", "recompute", "--game", "chess"], 1, "unknown game"),
    (["--db", "", "bots"], 2, "--db needs a file path"),
    (["--sandbox", "docker", "bots"], 2, "'docker' is not one of"),
    (["tournament", "frobnicate"], 2, "No such command"),
]

TOMLS = {
    "rounds": 'game = "toy"\nbots = ["a", "b"]\nrounds = "3"\n',
    "bad": 'game = "toy\n',
    "game": 'game = 1\nbots = ["a", "b"]\n',
    "options": 'game = "toy"\nbots = ["a", "b"]\noptions = ["rounds"]\n',
    "botsstring": 'game = "toy"\nbots = "random"\n',
    "players": 'game = "toy"\nbots = ["a", "b"]\nplayers = "2"\n',
    "seedfloat": 'game = "toy"\nbots = ["a", "b"]\nseed = 1.5\n',
    "limit": 'game = "toy"\nbots = ["a", "b"]\nlimits = { decision_ms = 0 }\n',
    "unknownlimit": 'game = "toy"\nbots = ["a", "b"]\nlimits = { decison_ms = 5 }\n',
    "typo": 'game = "toy"\nbots = ["a", "b"]\nround = 3\n',
    "entry": 'game = "toy"\nbots = [{ pth = "x.py" }]\n',
    "emptyname": 'game = "toy"\nbots = ["a", "b"]\nname = ""\n',
    "nogame": 'bots = ["a", "b"]\n',
}


@pytest.mark.parametrize("args,code,message", CASES, ids=[" ".join(c[0])[:60] for c in CASES])
def test_bad_input_is_one_error_line_and_changes_nothing(place, capsys, args, code, message):
    tmp, db, bots = place
    filled = []
    for arg in args:
        if arg.startswith("{toml:"):
            filled.append(toml(tmp, TOMLS[arg[6:-1]]))
        else:
            filled.append(arg.format(db=db, tmp=tmp, bot=bots[0], bot2=bots[1]))
    before = snapshot(tmp)
    got, out, err = arena(capsys, *filled)
    assert got == code, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    assert message in lines[0], err
    assert "Traceback" not in out + err
    after = snapshot(tmp)
    created = {path for path in set(after) - set(before) if not path.endswith(".toml")}
    assert created == set(), created
    changed = {path for path in before if path in after and before[path] != after[path]
               and not path.endswith((".db-wal", ".db-shm"))}
    assert changed == set(), changed


def test_a_bad_extra_game_module_is_one_line(capsys, monkeypatch):
    from arena import games

    monkeypatch.setitem(games.REGISTRY, "broken", "no_such_module_anywhere:Game")
    code, out, err = arena(capsys, "match", "broken", RANDOM, RANDOM)
    assert code == 2 and err.startswith("Error: ") and "no_such_module_anywhere" in err
    assert len(err.strip().splitlines()) == 1


def test_read_commands_work_on_a_database_that_cannot_be_written(place, capsys):
    tmp, db, _ = place
    os.chmod(db, 0o444)
    os.chmod(tmp, 0o555)
    try:
        for args in (["leaderboard", "--game", "toy"], ["bots"], ["tournament", "list"], ["show", "1"],
                     ["failures"]):
            code, out, err = arena(capsys, "--db", str(db), *args)
            assert code == 0, (args, err)
    finally:
        os.chmod(tmp, 0o755)
        os.chmod(db, 0o644)


def test_a_newer_schema_is_refused_by_name(tmp_path, capsys):
    db = tmp_path / "future.db"
    connection = sqlite3.connect(db)
    for table in ("bots", "bot_versions", "tournaments", "matches"):
        connection.execute(f"CREATE TABLE {table} (id INTEGER)")
    connection.execute("PRAGMA user_version = 99")
    connection.execute(f"PRAGMA application_id = {0x6172656E}")
    connection.commit()
    connection.close()
    code, out, err = arena(capsys, "--db", str(db), "bots")
    assert code == 1 and "newer arena (schema 99" in err
