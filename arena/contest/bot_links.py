"""Where each contest bot's page is: ``LINK_BASE/bots/NAME``, for `arena bots`.

A contest's ``link_base`` is the address its entrants open (the sign-in links use it too), so
it is the served address of the contest's pages; a bot that is no contest's entrant has no
link. A database from before contests (no ``contests`` table) has none.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from arena.results.store import Store


def bot_links(store: Store) -> dict[tuple[str, str], str]:
    """``{(game, bot name): link}`` for every entrant of every contest in the database."""
    if not store.one("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'contests'"):
        return {}
    links = {}
    for row in store.query("SELECT c.game, c.config, e.name FROM contest_entrants e"
                           " JOIN contests c ON c.id = e.contest_id ORDER BY c.id"):
        base = (json.loads(row["config"]).get("link_base") or "").rstrip("/")
        if base:
            links.setdefault((row["game"], row["name"]), f"{base}/bots/{quote(row['name'], safe='')}")
    return links
