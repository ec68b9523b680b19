"""The contest tables of the results database (schema 4): reads and writes.

Writers: the set-up commands (`arena contest create`, `entrants add`, `links`) and the
contest runner; never the web process (it writes the inbox, `arena.contest.inbox`). Every
write is one transaction, so a runner killed with ``kill -9`` leaves each row whole.
"""

from __future__ import annotations

import json
import random

from arena.contest import tokens
from arena.contest.config import ContestConfig, ContestError, as_json, check, from_json
from arena.results import keys
from arena.results.store import Store, now
from arena.tournament.config import MAX_MATCHES, MAX_SEED, TournamentConfig, as_stored


def create_contest(store: Store, name: str, config: ContestConfig) -> tuple[dict, str]:
    """Store a new contest and its (empty) running ladder; returns (contest, organiser token).

    The organiser's token is shown once: only its digest is kept."""
    from arena.results.submit import SubmitError, check_name

    try:
        name = check_name(name)
    except SubmitError as error:
        raise ContestError(str(error).replace("bot name", "contest name")) from None
    config = check(config)
    if store.one("SELECT 1 AS x FROM contests WHERE name = ?", [name]):
        raise ContestError(f"there is already a contest called {name!r}")
    seed = random.SystemRandom().randrange(MAX_SEED)
    ladder = TournamentConfig(game=config.game, bots=[], players=config.players, options=config.options,
                              format="ladder", max_matches=MAX_MATCHES, batch=config.ladder_batch,
                              duplicate=config.duplicate, limits=config.limits, name=f"{name} (ladder)", seed=seed)
    stored = {**as_stored(ladder), "players": config.players, "seed": seed, "options": config.options,
              "entry_limits": {}}
    ladder_id = store.create_tournament(name=ladder.name, game=config.game, players=config.players, rounds=1,
                                        seed=seed, options=config.options, config=stored, entries=[], schedule=[],
                                        secret=keys.secret_for("tournament", seed), format="ladder")
    token, digest = tokens.new_token()
    with store.write():
        store.db.conn.execute(
            "INSERT INTO contests (name, game, players, config, ladder_id, organiser_sha256, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [name, config.game, config.players, json.dumps(as_json(config), sort_keys=True), ladder_id, digest, now()])
    return contest(store, name), token


def contest(store: Store, name_or_id: str | int) -> dict:
    """The contest (a dict with its ``config`` as a `ContestConfig`), or `ContestError`."""
    column = "id" if isinstance(name_or_id, int) else "name"
    row = store.one(f"SELECT * FROM contests WHERE {column} = ?", [name_or_id])
    if row is None:
        known = ", ".join(r["name"] for r in store.query("SELECT name FROM contests ORDER BY id")) or "none yet"
        raise ContestError(f"no contest {name_or_id!r} (contests: {known})")
    row["config"] = from_json(json.loads(row["config"]))
    return row


def contests(store: Store) -> list[dict]:
    return store.query(
        "SELECT c.id, c.name, c.game, c.players, c.closed_at, c.created_at, c.final_id,"
        " (SELECT COUNT(*) FROM contest_entrants e WHERE e.contest_id = c.id) AS entrants,"
        " (SELECT COUNT(*) FROM contest_submissions s WHERE s.contest_id = c.id) AS submissions"
        " FROM contests c ORDER BY c.id")


def set_config(store: Store, contest_id: int, config: ContestConfig) -> None:
    config = check(config)
    with store.write():
        store.db.conn.execute("UPDATE contests SET config = ? WHERE id = ?",
                              [json.dumps(as_json(config), sort_keys=True), contest_id])


# ---- entrants and their links -----------------------------------------------------------------

def add_entrants(store: Store, contest_id: int, rows) -> list[dict]:
    """Add entrants (``rows`` of `arena.contest.entrants.EntrantRow`), each with a fresh
    token; returns ``[{"name", "email", "token"}]`` — the only time the tokens are seen."""
    issued = []
    with store.write():
        for row in rows:
            token, digest = tokens.new_token()
            store.db.conn.execute(
                "INSERT INTO contest_entrants (contest_id, name, email, token_sha256, created_at) VALUES (?, ?, ?, ?, ?)",
                [contest_id, row.name, row.email, digest, now()])
            issued.append({"name": row.name, "email": row.email, "token": token})
    return issued


def add_entrants_with_digests(store: Store, contest_id: int, rows) -> str:
    """Add entrants whose tokens were made elsewhere (the web page): ``rows`` of name, email,
    token_sha256. All or none; returns what was done, or ``"not done: why"``."""
    import re

    from arena.contest.entrants import EntrantsError, parse

    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        return "not done: no entrants given"
    digests = [str(r.get("token_sha256", "")) for r in rows]
    if not all(re.fullmatch(r"[0-9a-f]{64}", d) for d in digests):
        return "not done: a token digest is not 64 hexadecimal digits"
    text = _csv_text([(str(r.get("name", "")), str(r.get("email", ""))) for r in rows])
    try:
        parsed = parse(text, entrant_names(store, contest_id))
    except EntrantsError as error:
        return "not done: " + "; ".join(error.problems)
    with store.write():
        store.db.conn.executemany(
            "INSERT INTO contest_entrants (contest_id, name, email, token_sha256, created_at) VALUES (?, ?, ?, ?, ?)",
            [(contest_id, row.name, row.email, digest, now()) for row, digest in zip(parsed, digests)])
    return f"{len(parsed)} entrant(s) added: {', '.join(row.name for row in parsed)}"


def _csv_text(pairs: list[tuple[str, str]]) -> str:
    """``name,email`` CSV text of ``pairs`` (for `arena.contest.entrants.parse`)."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("name", "email"))
    writer.writerows(pairs)
    return out.getvalue()


def entrant_names(store: Store, contest_id: int) -> set[str]:
    return {r["name"] for r in store.query("SELECT name FROM contest_entrants WHERE contest_id = ?", [contest_id])}


def reissue_tokens(store: Store, contest_id: int, names: list[str] | None = None) -> list[dict]:
    """New tokens for the named entrants (all without ``names``); their old links stop working."""
    entrants = store.query("SELECT id, name, email FROM contest_entrants WHERE contest_id = ? ORDER BY id",
                           [contest_id])
    if names:
        wanted = set(names)
        missing = sorted(wanted - {e["name"] for e in entrants})
        if missing:
            raise ContestError(f"no entrant called {missing[0]!r} in this contest")
        entrants = [e for e in entrants if e["name"] in wanted]
    issued = []
    with store.write():
        for entrant in entrants:
            token, digest = tokens.new_token()
            store.db.conn.execute("UPDATE contest_entrants SET token_sha256 = ? WHERE id = ?", [digest, entrant["id"]])
            issued.append({"name": entrant["name"], "email": entrant["email"], "token": token})
    return issued


def reissue_organiser_token(store: Store, contest_id: int) -> str:
    token, digest = tokens.new_token()
    with store.write():
        store.db.conn.execute("UPDATE contests SET organiser_sha256 = ? WHERE id = ?", [digest, contest_id])
    return token


def entrant_for_token(store: Store, contest_id: int, token: str | None) -> dict | None:
    """The entrant whose link carries ``token``, or None. The lookup is by the token's digest
    (an index); the digest found is then compared in constant time."""
    if not token or len(token) > tokens.MAX_TOKEN_CHARS:
        return None
    row = store.one("SELECT id, name, email, withdrawn, token_sha256 FROM contest_entrants"
                    " WHERE contest_id = ? AND token_sha256 = ?", [contest_id, tokens.digest(token)])
    if row is None or not tokens.matches(token, row.pop("token_sha256")):
        return None
    return row


def is_organiser(store: Store, contest_id: int, token: str | None) -> bool:
    row = store.one("SELECT organiser_sha256 FROM contests WHERE id = ?", [contest_id])
    return bool(row) and tokens.matches(token, row["organiser_sha256"])


def entrant(store: Store, contest_id: int, name: str) -> dict:
    row = store.one("SELECT id, name, email, withdrawn, bot_version_id FROM contest_entrants"
                    " WHERE contest_id = ? AND name = ?", [contest_id, name])
    if row is None:
        raise ContestError(f"no entrant called {name!r} in this contest")
    return row
