"""The viewer's static files carried inline — in the match page and in the replay file — and
their Content-Security-Policy hashes.

A replay's first board is drawn as soon as its one page has arrived: the page holds its style
and scripts, so no further request (each a round trip, and under load far more) stands
between the page and the board. The CSP allows exactly these texts, by their sha256, and no
other inline script or style.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache

from arena.web.boards import DRAWN
from arena.web.templating import STATIC


@lru_cache(maxsize=None)
def text(name: str) -> str:
    """A static file's text (read once per process: the files ship with arena)."""
    return (STATIC / name).read_text(encoding="utf-8")


def csp_hash(content: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(content.encode("utf-8")).digest()).decode() + "'"


def viewer_scripts(game: str) -> list[str]:
    """The scripts of the replay viewer for ``game``, in their order."""
    return ["arena.js", *([f"board-{game}.js"] if game in DRAWN else []), "replay.js", "match.js"]


@lru_cache(maxsize=None)
def viewer_script(game: str) -> str:
    """The viewer's scripts joined into one: the HTML parser may stop between two scripts to
    lay out and paint the page so far, which for the match page means a style and layout
    pass of the page without its board (tens of ms on a loaded machine, seen in a Chromium
    trace) before the board's own. One script draws the board before the first layout."""
    return "\n".join(text(name) for name in viewer_scripts(game))


def viewer(game: str) -> tuple[str, list[str]]:
    """``(style, scripts)``: the texts a page of ``game``'s replay viewer carries inline (one
    script, `viewer_script`)."""
    return text("style.css"), [viewer_script(game)]


def hashes(texts: list[str]) -> str:
    return " ".join(csp_hash(t) for t in texts)
