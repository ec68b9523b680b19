"""Storage faults: a full disk, an immutable database file, a read-only file system, a damaged
database. Each is one clear `Error:` line and exit 1; read commands work on files they cannot
write and never write; after space returns, `resume` finishes with nothing lost."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from arena.entry import main as entry
from arena.results.store import Store
from botmaker import write_bot

REPO = Path(__file__).resolve().parents[1]
RANDOM = str(REPO / "bots" / "random.py")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a file system needs root")


def arena(capsys, *args):
    with pytest.raises(SystemExit) as leaving:
        entry([str(a) for a in args])
    captured = capsys.readouterr()
    return leaving.value.code, captured.out, captured.err


@pytest.fixture
def mounted(tmp_path):
    folder = tmp_path / "disk"
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)], check=True)
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)


@needs_root
def test_a_full_disk_is_one_line_and_resume_finishes_when_space_returns(mounted, tmp_path, capsys):
    bots = [write_bot(tmp_path / "src", "a"), RANDOM]
    db = mounted / "arena.db"
    code, out, err = arena(capsys, "--db", db, "tournament", "run", "--game", "five-towers", "--bots", ",".join(bots),
                           "--rounds", "60", "--seed", "3", "--workers", "2")
    assert code == 1, (out, err)
    errors = [line for line in err.splitlines() if not line.startswith("tournament 1: ")]
    assert len(errors) == 1 and errors[0].startswith("Error: ") and "no space left" in errors[0], err
    assert "continue with: arena tournament resume 1" in out
    subprocess.run(["mount", "-o", "remount,size=200m", str(mounted)], check=True)
    with Store(db, readonly=True) as store:
        before = {m["id"]: m["ended_at"] for m in store.query("SELECT id, ended_at FROM matches WHERE status = 'finished'")}
        assert store.tournament(1)["status"] == "interrupted"
    code, out, err = arena(capsys, "--db", db, "tournament", "resume", "1")
    assert code == 0, err
    with Store(db, readonly=True) as store:
        after = {m["id"]: m["ended_at"] for m in store.query("SELECT id, ended_at FROM matches WHERE status = 'finished'")}
        assert len(after) == 120 and all(after[k] == v for k, v in before.items())
        assert store.one("SELECT COUNT(*) AS n FROM match_logs")["n"] == 120


@pytest.fixture
def played(tmp_path, capsys):
    bots = [write_bot(tmp_path / "src", "a"), write_bot(tmp_path / "src", "b", on_request='reply({"index": 1})')]
    db = tmp_path / "data" / "arena.db"
    db.parent.mkdir()
    code, _, err = arena(capsys, "--db", db, "tournament", "run", "--game", "toy", "--bots", ",".join(bots),
                         "--seed", "2", "--workers", "1")
    assert code == 0, err
    return db, bots


READS = (["leaderboard", "--game", "toy"], ["bots"], ["tournament", "list"], ["tournament", "show", "1"],
         ["show", "1"], ["failures"])


@needs_root
def test_an_immutable_database_can_be_read_and_writing_is_one_line(played, capsys):
    db, bots = played
    subprocess.run(["chattr", "+i", str(db)], check=True)
    try:
        for args in READS:
            code, out, err = arena(capsys, "--db", db, *args)
            assert code == 0, (args, err)
        code, out, err = arena(capsys, "--db", db, "submit", bots[0], "--game", "toy", "--name", "another")
        assert code == 1 and err.startswith("Error: ") and len(err.strip().splitlines()) == 1, err
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=True)


@needs_root
def test_a_read_only_file_system_can_be_read(played, tmp_path, capsys):
    db, _ = played
    view = tmp_path / "view"
    view.mkdir()
    subprocess.run(["mount", "--bind", str(db.parent), str(view)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(view)], check=True)
        listing = sorted(os.listdir(view))
        for args in READS:
            code, out, err = arena(capsys, "--db", view / "arena.db", *args)
            assert code == 0, (args, err)
        assert sorted(os.listdir(view)) == listing
        code, out, err = arena(capsys, "--db", view / "arena.db", "ratings", "recompute")
        assert code == 1 and "cannot be written" in err, err
    finally:
        subprocess.run(["umount", "-l", str(view)], check=False)


def test_a_truncated_database_is_named_as_damaged(played, capsys):
    db, _ = played
    size = db.stat().st_size
    with open(db, "r+b") as handle:
        handle.truncate(size // 3)
    for args in READS[:3]:
        code, out, err = arena(capsys, "--db", db, *args)
        assert code == 1, (args, out)
        assert err.startswith("Error: ") and ("corrupted" in err or "not an SQLite database" in err), err
        assert "Traceback" not in err


def test_garbage_in_the_middle_of_a_database_is_named_as_damaged(played, capsys):
    db, _ = played
    with open(db, "r+b") as handle:
        handle.seek(4096)
        handle.write(os.urandom(8192))
    code, out, err = arena(capsys, "--db", db, "leaderboard", "--game", "toy")
    assert code == 1 and err.startswith("Error: "), (out, err)
    assert len(err.strip().splitlines()) == 1
