"""`arena replay`: one match as a single self-contained HTML file.

The file holds the same viewer as the match page — its CSS, its scripts and every frame of
every view (the full view and each seat's) inline — so it opens from disk with no network
and no server. Its Content-Security-Policy (a meta tag) allows exactly the inline scripts
and styles it carries, by their sha256, and nothing else.
"""

from __future__ import annotations

from pathlib import Path

from arena.web import assets, data
from arena.web.templating import client_match, environment
from arena.web.boards import DRAWN
from arena.web.replay import Replay
from arena.web.safe import json_for_script, script_safe


def _with_chunks(viewer_json: str, chunks: dict[str, list[bytes]]) -> str:
    """The viewer's JSON with its ``"chunks": null`` replaced by the chunks as they were
    encoded (spliced in as text: not decoded and encoded again)."""
    inline = "{" + ",".join(json_for_script(view) + ":[" + ",".join(script_safe(c.decode()) for c in parts) + "]"
                            for view, parts in chunks.items()) + "}"
    head, tail = viewer_json.rsplit('"chunks":null', 1)
    return head + '"chunks":' + inline + tail


def replay_html(found: dict) -> tuple[str, dict]:
    """The file's text and facts about it (frames, views, verification), from a match read
    with its log (`data.match_for_file`, or `data.match` with ``with_log``)."""
    replay = Replay(found)
    summary = data.match_summary(found)
    views = [view for view in replay.views() if view != "snapshot"]
    chunks = replay.all_chunks(views)  # one engine pass for every view, the log checked to the end
    replay_summary = {**replay.summary(), "views": views}
    viewer = {"match": client_match(summary), "replay": replay_summary, "source": "inline",
              "drawn": found["game"] in DRAWN, "chunks": None}
    style, scripts = assets.viewer(found["game"])
    csp = ("default-src 'none'; img-src data:; style-src " + assets.csp_hash(style) + "; script-src "
           + assets.hashes(scripts) + "; base-uri 'none'; form-action 'none'")
    html = environment().get_template("replay_file.html").render(
        match=summary, viewer_json=_with_chunks(json_for_script(viewer), chunks), scripts=scripts, style=style, csp=csp,
        stderr={seat["seat"]: seat.get("stderr") or "" for seat in found["seats"]})
    facts = {"frames": replay.frame_count, "views": views, "verification": replay.verification}
    return html, facts


def write_replay(db_path: str | Path, match_id: int, path: str | Path) -> dict:
    """Write match ``match_id`` of the database at ``db_path`` as a replay file at ``path``."""
    html, facts = replay_html(data.match_for_file(db_path, match_id))
    Path(path).write_text(html, encoding="utf-8")
    facts["bytes"] = len(html.encode("utf-8"))
    return facts
