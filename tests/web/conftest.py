"""The web tests' database: small real tournaments of every game, played by real bots.

Built once per session. Tournaments are created with `arena.tournament.create` and their
matches played with the match runner (`play_match`, real bot processes in the sandbox) and
committed with `Store.record_match` — the same steps `arena tournament run` takes, without
its process pool, so the tests can also commit matches one by one while a page watches.

Besides the bundled bots there is a hostile bot: its debug texts, stderr and reply lines are
markup and script, and its name is changed in the database to markup too (names that
`arena submit` would refuse may still reach a database). The ``tournaments`` table gets the
announced ``secret`` column (where the schema lacks it), filled in, so tests can check that it
is never served.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.results.store import Store
from arena.tournament import TournamentConfig, create
from arena.web.app import create_app
from botmaker import write_bot
from browsing import chromium, serving
from webfixtures import EVIL_NAME, EVIL_REQUEST, SECRET, play_pending


REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"
class WebDB:
    """The session database and the ids the tests look up."""

    def __init__(self, path: Path):
        self.path = path
        self.tournaments: dict[str, int] = {}

    def store(self) -> Store:
        return Store(self.path)

    def pending_match(self) -> int:
        with self.store() as store:
            return store.one("SELECT id FROM matches WHERE tournament_id = ? LIMIT 1",
                             [self.tournaments["pending"]])["id"]

    def match_ids(self, game: str) -> list[int]:
        with self.store() as store:
            return [r["id"] for r in store.query("SELECT id FROM matches WHERE game = ? AND status = 'finished'"
                                                  " ORDER BY id", [game])]

    def bot_id(self, game: str, name: str) -> int:
        with self.store() as store:
            return store.one("SELECT id FROM bots WHERE game = ? AND name = ?", [game, name])["id"]


@pytest.fixture(scope="session")
def web_db(tmp_path_factory) -> WebDB:
    root = tmp_path_factory.mktemp("webdb")
    os.chmod(root, 0o755)
    (root / "results").mkdir()
    db = WebDB(root / "results" / "arena.db")
    evil = write_bot(root / "src", "evil", on_request=EVIL_REQUEST)
    second = root / "src2"
    second.mkdir()
    os.chmod(second, 0o755)
    shutil.copy(BOTS / "random.py", second / "random.py")
    with open(second / "random.py", "a") as handle:
        handle.write("# version 2: the same moves, another content hash\n")
    os.chmod(second / "random.py", 0o644)
    plan = {
        "five-towers": TournamentConfig(game="five-towers", bots=[str(BOTS / "five_towers_heuristic.py"),
                                                                  str(BOTS / "random.py"), evil], seed=5),
        "five-towers-v2": TournamentConfig(game="five-towers",
                                           bots=["five_towers_heuristic",
                                                 {"path": str(second / "random.py"), "name": "random"}],
                                           seed=6, name="second round"),
        "agent-avenue": TournamentConfig(game="agent-avenue", bots=[str(BOTS / "agent_avenue_heuristic.py"),
                                                                    str(BOTS / "random.py")],
                                         options={"advanced": True}, seed=7),
    }
    # Three Fifth Avenue seats need three versions: a copy of the heuristic under another name.
    third = root / "src3"
    third.mkdir()
    os.chmod(third, 0o755)
    shutil.copy(BOTS / "fifth_avenue_heuristic.py", third / "tycoon.py")
    os.chmod(third / "tycoon.py", 0o644)
    plan["fifth-avenue"] = TournamentConfig(game="fifth-avenue", players=3, seed=8, bots=[
        str(BOTS / "fifth_avenue_heuristic.py"), str(BOTS / "random.py"), str(third / "tycoon.py")])
    with db.store() as store:
        for key, config in plan.items():
            db.tournaments[key] = create(store, config)
            play_pending(store, db.tournaments[key])
        # Not played: the live-progress test plays it while a page watches; "pending" never is.
        toys = [write_bot(root / "src", "first"),  # takes 1 point a turn; "greedy" takes 3
                write_bot(root / "src", "greedy", on_request='reply({"type": "action", "index": 2})')]
        db.tournaments["live"] = create(store, TournamentConfig(game="toy", bots=toys, rounds=2, seed=9, name="live"))
        db.tournaments["pending"] = create(store, TournamentConfig(game="toy", bots=toys, seed=10, name="pending"))
        store.db.execute("UPDATE bots SET name = ? WHERE name = 'evil'", [EVIL_NAME])
        if "secret" not in {row["name"] for row in store.query("PRAGMA table_info(tournaments)")}:
            store.db.execute("ALTER TABLE tournaments ADD COLUMN secret TEXT")  # the column to come
        store.db.execute("UPDATE tournaments SET secret = ? || id", [SECRET])
        store.db.conn.commit()
    return db


# ---- Chromium against `arena serve`'s app (tests/web/test_browser.py, test_layout.py) ------------



@pytest.fixture(scope="module")
def server(web_db):
    with serving(create_app(str(web_db.path))) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as instance:
        yield instance
