"""What the sandbox stands on: removing any tree a bot can make, bot uids that never collide
between harness processes, and a database that moves with its bot store."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.results.store import Store
from arena.runner import uids
from arena.runner.files import remove_tree
from arena.tournament import TournamentConfig, create, run
from botmaker import write_bot

REPO = Path(__file__).resolve().parents[1]


def test_remove_tree_takes_a_tree_deeper_than_any_recursion_limit(tmp_path):
    top = tmp_path / "deep"
    os.mkdir(top)
    fd = os.open(top, os.O_RDONLY)
    for _ in range(1500):  # deeper than Python's recursion limit, where shutil.rmtree gives up
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)
    remove_tree(top)
    assert not top.exists()


def test_remove_tree_never_follows_a_link_out_and_opens_locked_folders(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious").write_text("keep me")
    tree = tmp_path / "tree"
    (tree / "locked" / "inner").mkdir(parents=True)
    (tree / "locked" / "inner" / "file").write_text("x")
    (tree / "odd\nname \udcff").mkdir() if sys.platform != "win32" else None
    os.symlink(outside, tree / "link-to-outside")
    os.symlink(outside / "precious", tree / "locked" / "file-link")
    os.chmod(tree / "locked" / "inner", 0o000)
    os.chmod(tree / "locked", 0o500)
    remove_tree(tree)
    assert not tree.exists()
    assert (outside / "precious").read_text() == "keep me"


def test_remove_tree_of_a_missing_path_is_fine(tmp_path):
    remove_tree(tmp_path / "nothing")


HOLD = """
import sys, time
sys.path.insert(0, {repo!r})
from arena.runner import uids
held = [uids.BotUid() for _ in range(40)]
print(" ".join(str(h.uid) for h in held), flush=True)
time.sleep(30)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="bot uids are handed out only when the harness is root")
def test_bot_uids_never_collide_between_harness_processes(tmp_path):
    others = [subprocess.Popen([sys.executable, "-c", HOLD.format(repo=str(REPO))], stdout=subprocess.PIPE, text=True)
              for _ in range(2)]
    try:
        taken = [set(map(int, other.stdout.readline().split())) for other in others]
        mine = [uids.BotUid() for _ in range(40)]
        ours = {h.uid for h in mine}
        assert len(ours) == 40 and all(len(t) == 40 for t in taken)
        assert not ours & taken[0] and not ours & taken[1] and not taken[0] & taken[1]
        for held in mine:
            held.release()
    finally:
        for other in others:
            other.kill()
            other.wait()


def test_a_database_moved_with_its_bot_store_keeps_working(tmp_path):
    bots = [write_bot(tmp_path / "src", "a"), str(REPO / "bots" / "random.py")]
    first = tmp_path / "first"
    first.mkdir()
    with Store(first / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, rounds=2, seed=1))
    moved = tmp_path / "elsewhere"
    shutil.move(str(first), str(moved))
    with Store(moved / "arena.db") as store:
        assert run(store, tournament_id, workers=1).played == 4
        assert store.bot_path(store.bot_versions()[0]).is_relative_to(moved)
