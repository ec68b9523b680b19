"""Showing what bots wrote without letting it become markup or script.

Everything a bot controls — its name (a database may hold any text), debug strings, stderr,
error messages that quote its output, its actions — reaches a page only through

* Jinja2 with autoescape (HTML pages), after `visible` has made control, bidirectional and
  invisible characters readable (`arena.text.printable`, the same escaping as the terminal's);
* `json_for_script` when data is embedded in ``<script type="application/json">``: the
  characters that could end the script element or confuse a parser (``<``, ``>``, ``&``,
  U+2028, U+2029) are written as JSON escapes, so the embedded text is inert and still
  parses to the same value;
* the browser code, which puts text into the page with ``textContent`` only.
"""

from __future__ import annotations

import json
import re
from typing import Any

from arena.text import printable

_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_SCRIPT_UNSAFE = re.compile("[<>&\u2028\u2029]")


def visible(text: Any) -> str:
    """The text with control, bidirectional and invisible characters shown as ``\\x1b``-style
    escapes (tab and newline kept): `arena.text.printable`.

    Not HTML escaping: the result still goes through autoescape or ``textContent``.
    """
    if text is None:
        return ""
    return printable(str(text))


def json_for_script(value: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">`` (and parses the same)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return _SCRIPT_UNSAFE.sub(lambda m: _SCRIPT_ESCAPES[m.group(0)], text)


def tail(text: str | None, lines: int = 40, chars: int = 4000) -> str:
    """The end of a stderr text: at most ``lines`` lines and ``chars`` characters."""
    if not text:
        return ""
    kept = "\n".join(text.rstrip("\n").split("\n")[-lines:])
    return kept[-chars:]


def script_safe(json_text: str) -> str:
    """Already-serialised JSON made safe for ``<script type="application/json">`` (as
    `json_for_script` does)."""
    return _SCRIPT_UNSAFE.sub(lambda m: _SCRIPT_ESCAPES[m.group(0)], json_text)
