"""`arena replay`: one match as a single self-contained HTML file.

The file holds the same viewer as the match page — its CSS, its scripts and every frame of
every view (the full view and each seat's) inline — so it opens from disk with no network
and no server. Its Content-Security-Policy (a meta tag) allows exactly the inline scripts
and styles it carries, by their sha256, and nothing else.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from arena.web import data
from arena.web.app import STATIC, _client_match, environment
from arena.web.boards import DRAWN
from arena.web.replay import Replay
from arena.web.safe import json_for_script


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def replay_html(store, match_id: int) -> tuple[str, dict]:
    """The file's text and facts about it (frames, views, verification)."""
    found = data.match(store, match_id)
    replay = Replay(data.match(store, match_id, with_log=True))
    summary = data.match_summary(found)
    views = [view for view in replay.views() if view != "snapshot"]
    chunks = {view: [replay.chunk(view, index) for index in range(replay.chunk_count(view))] for view in views}
    replay_summary = {**replay.summary(check=True), "views": views}
    viewer = {"match": _client_match(summary), "replay": replay_summary, "source": "inline",
              "drawn": found["game"] in DRAWN, "chunks": chunks}
    names = ["arena.js", *([f"board-{found['game']}.js"] if found["game"] in DRAWN else []), "replay.js", "match.js"]
    scripts = [(STATIC / name).read_text(encoding="utf-8") for name in names]
    style = (STATIC / "style.css").read_text(encoding="utf-8")
    csp = ("default-src 'none'; img-src data:; style-src " + _hash(style) + "; script-src "
           + " ".join(_hash(s) for s in scripts) + "; base-uri 'none'; form-action 'none'")
    html = environment().get_template("replay_file.html").render(
        match=summary, viewer_json=json_for_script(viewer), scripts=scripts, style=style, csp=csp,
        stderr={seat["seat"]: seat.get("stderr") or "" for seat in found["seats"]})
    facts = {"frames": replay.frame_count, "views": views, "verification": replay.verification}
    return html, facts


def write_replay(store, match_id: int, path: str | Path) -> dict:
    html, facts = replay_html(store, match_id)
    Path(path).write_text(html, encoding="utf-8")
    facts["bytes"] = len(html.encode("utf-8"))
    return facts
