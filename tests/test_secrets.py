"""No hidden information through seeds: a bot that carries arena's whole code (its engine is
importable in the sandbox), knows the tournament's published seed and reads its own `start`
message cannot find its deal — while the same bot finds it at once when deals and bot seeds
are derived from the public seed alone, as they once were."""

from __future__ import annotations

import hashlib
import os
import textwrap
from pathlib import Path

import pytest

from arena.results.store import Store, StoreError
from arena.runner.match import MatchSpec, derive_seed, play_match
from arena.tournament import TournamentConfig, create, run

REPO = Path(__file__).resolve().parents[1]
PUBLISHED_SEED = 2026

CHEATER = textwrap.dedent('''
    import hashlib, json, sys
    from arena.games import get_game

    PUBLISHED = %d

    def public_match_seed(tournament_seed, index):  # how match seeds once came from the tournament seed
        digest = hashlib.sha256(f"arena-match:{tournament_seed}:{index}".encode()).digest()
        return int.from_bytes(digest[:8], "big") >> 1

    def public_bot_seed(seed, seat):
        text = ":".join(map(str, (seed, "bot", seat))).encode()
        return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1

    start = None
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            start = message
            found = None
            for index in range(400):
                for candidate in (public_match_seed(PUBLISHED, index), index, PUBLISHED + index):
                    if public_bot_seed(candidate, message["seat"]) == message["seed"]:
                        found = candidate
            sys.stderr.write("DEAL %%s\\n" %% ("FOUND " + str(found) if found is not None else "NOT FOUND"))
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "request":
            if message["step"] == 0:
                game = get_game(start["game"])
                hits = [index for index in range(400) for candidate in (public_match_seed(PUBLISHED, index),)
                        if game.create_state(start["players"], candidate, start["options"]).observation(start["seat"])
                        == message["observation"]]
                sys.stderr.write("OBSERVATION %%s\\n" %% ("FOUND" if hits else "NOT FOUND"))
            print(json.dumps({"index": 0}), flush=True)
        elif message["type"] == "quit":
            break
''' % PUBLISHED_SEED)


def write_cheater(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o755)
    path = folder / "cheater.py"
    path.write_text(CHEATER)
    os.chmod(path, 0o644)
    return str(path)


def public_match_seed(tournament_seed: int, index: int) -> int:
    digest = hashlib.sha256(f"arena-match:{tournament_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def test_with_public_seeds_the_cheater_finds_its_deal(tmp_path):
    """The control: the attack works where deals follow from the published seed alone."""
    seed = public_match_seed(PUBLISHED_SEED, 5)
    spec = MatchSpec("five-towers", [write_cheater(tmp_path), str(REPO / "bots" / "random.py")], seed=seed,
                     bot_seeds=[derive_seed(seed, "bot", 0), derive_seed(seed, "bot", 1)])
    stderr = play_match(spec).seats[0].stderr
    assert f"DEAL FOUND {seed}" in stderr


def test_in_a_tournament_with_a_published_seed_the_cheater_finds_nothing(tmp_path):
    with Store(tmp_path / "arena.db") as store:
        bots = [write_cheater(tmp_path / "cheat"), str(REPO / "bots" / "random.py")]
        tournament_id = create(store, TournamentConfig(game="five-towers", bots=bots, players=2, rounds=2,
                                                       seed=PUBLISHED_SEED))
        assert run(store, tournament_id, workers=2).played == 4
        for row in store.query("SELECT id FROM matches WHERE tournament_id = ?", [tournament_id]):
            match = store.match(row["id"])
            cheater = next(s for s in match["seats"] if s["bot"] == "cheater")
            assert "DEAL NOT FOUND" in cheater["stderr"]
            assert "FOUND" not in cheater["stderr"].replace("NOT FOUND", "")


def test_bot_seeds_and_deals_follow_from_the_secret_not_the_published_seed(tmp_path):
    with Store(tmp_path / "arena.db") as store:
        bots = [str(REPO / "bots" / "random.py"), str(REPO / "tests" / "bots" / "greedy.py")]
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, seed=PUBLISHED_SEED))
        stored = [m["seed"] for m in store.pending_matches(tournament_id)]
        assert not set(stored) & {public_match_seed(PUBLISHED_SEED, i) for i in range(10)}
        assert store.tournament_secret(tournament_id) not in str(store.tournament(tournament_id))


# ---- the secret is not in the database (Datasette, sqlite3 and copies show no secret) --------------

def everything_in(database: Path) -> str:
    """Every value of every table and view, as a read-only viewer (Datasette) would list them,
    and the raw bytes of the file and its WAL (free pages included)."""
    import sqlite3

    shown = []
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
        for name in names:
            for row in connection.execute(f'SELECT * FROM "{name}"'):
                shown.append(repr(row))
    for path in (database, Path(str(database) + "-wal")):
        if path.exists():
            shown.append(path.read_bytes().decode("latin-1"))
    return "\n".join(shown)


def test_a_new_database_holds_no_secret_anywhere_and_its_key_file_is_private(tmp_path):
    database = tmp_path / "arena.db"
    with Store(database) as store:
        bots = [str(REPO / "bots" / "random.py"), str(REPO / "tests" / "bots" / "greedy.py")]
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, seed=PUBLISHED_SEED))
        assert run(store, tournament_id, workers=1).played == 2
        secret = store.tournament_secret(tournament_id)
    assert len(secret) == 64 and secret not in everything_in(database)
    key_file = Path(str(database) + "-secrets")
    assert secret in key_file.read_text() and (os.stat(key_file).st_mode & 0o777) == 0o600


def _as_schema_2(database: Path) -> None:
    """Turn a database back into schema 2: the secret in the tournaments table, no key file."""
    import json
    import sqlite3

    key_file = Path(str(database) + "-secrets")
    secrets = json.loads(key_file.read_text())["secrets"]
    with sqlite3.connect(database) as connection:
        connection.execute("ALTER TABLE tournaments ADD COLUMN secret TEXT")
        connection.executemany("UPDATE tournaments SET secret = ? WHERE id = ?",
                               [(secret, int(tournament_id)) for tournament_id, secret in secrets.items()])
        connection.execute("ALTER TABLE tournaments DROP COLUMN secret_sha256")
        connection.execute("PRAGMA user_version = 2")
    key_file.unlink()


def test_an_old_database_is_migrated_without_a_trace_of_its_secrets_and_deals_the_same(tmp_path):
    database = tmp_path / "arena.db"
    bots = [str(REPO / "bots" / "random.py"), str(REPO / "tests" / "bots" / "greedy.py")]
    with Store(database) as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, rounds=2, seed=PUBLISHED_SEED))
        third = write_cheater(tmp_path / "third")  # any third bot: a Swiss needs more than two
        swiss_id = create(store, TournamentConfig(game="toy", bots=bots + [third], players=2, format="swiss",
                                                  seed=PUBLISHED_SEED + 1, rounds=2))
        secrets = {t: store.tournament_secret(t) for t in (tournament_id, swiss_id)}
        seeds = [m["seed"] for m in store.pending_matches(tournament_id)]
    _as_schema_2(database)
    assert all(secret in everything_in(database) for secret in secrets.values())  # the old state: shown to all
    with Store(database) as store:  # the upgrade
        assert {t: store.tournament_secret(t) for t in secrets} == secrets
        assert [m["seed"] for m in store.pending_matches(tournament_id)] == seeds
        assert run(store, tournament_id, workers=1).played == 4  # a resume: the same deals, from the key file
        assert run(store, swiss_id, workers=1).played > 0        # a format that plans as it goes
    shown = everything_in(database)
    assert not [t for t, secret in secrets.items() if secret in shown]


def test_a_database_without_its_key_file_says_so_instead_of_dealing_other_cards(tmp_path):
    database = tmp_path / "arena.db"
    bots = [str(REPO / "bots" / "random.py"), str(REPO / "tests" / "bots" / "greedy.py")]
    with Store(database) as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, seed=PUBLISHED_SEED))
    key_file = Path(str(database) + "-secrets")
    original = key_file.read_text()
    key_file.unlink()
    with Store(database) as store:
        with pytest.raises(StoreError, match=r"the secret of tournament 1 is not in .*arena.db-secrets: keep that file"):
            store.tournament_secret(tournament_id)
    key_file.write_text(original.replace(original.split('"1": "')[1][:8], "00000000"))
    with Store(database) as store:
        with pytest.raises(StoreError, match="does not belong to this database"):
            store.tournament_secret(tournament_id)
