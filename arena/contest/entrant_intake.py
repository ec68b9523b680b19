"""Entrants the organiser adds on the web page: the inbox action that carries them and the
runner's handling of it (until the core runner handles ``"entrants"`` itself).

The web process makes each entrant's token, shows the link once to the organiser, and puts
only the tokens' SHA-256 digests into the inbox (``{"do": "entrants", "rows": [{"name",
"email", "token_sha256"}]}``): the runner, the one writer of the results database, adds the
entrants with those digests. No token is ever stored, in the inbox or the database.
"""

from __future__ import annotations

import json
import re

from arena.contest.entrants import check_email
from arena.contest.inbox import Inbox, Received
from arena.contest.runner import ContestRunner
from arena.results.store import Store, now
from arena.results.submit import SubmitError, check_name

DIGEST = re.compile(r"^[0-9a-f]{64}$")


def send_entrants(inbox: Inbox, rows: list[dict]) -> Received:
    """Put an ``entrants`` action into the inbox (``rows``: name, email, token_sha256)."""
    with inbox._write():
        received = now()
        row_id = inbox.conn.execute(
            "INSERT INTO inbox (kind, payload, received_at) VALUES ('action', ?, ?)",
            [json.dumps({"do": "entrants", "rows": rows}), received]).lastrowid
    return Received(row_id, received)


def add_entrants(store: Store, contest_id: int, rows: list) -> str:
    """Add the entrants of an ``entrants`` action (all, or none: the outcome says why)."""
    if not isinstance(rows, list) or not rows:
        return "not done: no entrants given"
    taken = {r["name"] for r in store.query("SELECT name FROM contest_entrants WHERE contest_id = ?", [contest_id])}
    checked = []
    for row in rows:
        try:
            name, email, digest = check_name(str(row["name"])), check_email(str(row["email"])), str(row["token_sha256"])
        except (KeyError, TypeError, SubmitError, ValueError) as error:
            return f"not done: {error}"
        if name in taken or not DIGEST.match(digest):
            return f"not done: {name!r} is already an entrant" if name in taken else "not done: a bad token digest"
        taken.add(name)
        checked.append((name, email, digest))
    with store.write():
        store.db.conn.executemany(
            "INSERT INTO contest_entrants (contest_id, name, email, token_sha256, created_at) VALUES (?, ?, ?, ?, ?)",
            [(contest_id, name, email, digest, now()) for name, email, digest in checked])
    return f"{len(checked)} entrant(s) added: {', '.join(name for name, _, _ in checked)}"


class WebContestRunner(ContestRunner):
    """The contest runner, also taking the web page's ``entrants`` action."""

    def _apply_action(self, payload: dict, row: dict) -> str:
        if payload.get("do") == "entrants":
            return add_entrants(self.store, self.contest["id"], payload.get("rows"))
        return super()._apply_action(payload, row)


