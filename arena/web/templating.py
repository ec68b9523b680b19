"""The Jinja2 environment of every page and of the replay file, and where the static files are.

Its own module, apart from `arena.web.app`, so that `arena replay` renders its file without
importing Starlette (or anything else the server needs): the command's start-up is part of
its speed (docs/web.md, *Speed*).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from arena.results.schema import FAILURE_KINDS, SEAT_STATUSES
from arena.web.safe import json_for_script, tail, visible

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"


def number(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _ms(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"


def _failures_text(failures: dict | None) -> str:
    if not failures:
        return "–"
    return " ".join(f"{kind} {count}" for kind, count in failures.items() if count) or "–"


def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update({
        "visible": visible, "num": number, "ms": _ms, "failures_text": _failures_text, "tail": tail,
        "json_script": lambda value: Markup(json_for_script(value)),
    })
    env.globals.update({"FAILURE_KINDS": FAILURE_KINDS, "SEAT_STATUSES": SEAT_STATUSES})
    return env


def client_match(summary: dict) -> dict:
    """The match as the viewer gets it: 63-bit seeds as strings (JavaScript numbers are doubles)."""
    return {**summary, "seed": str(summary["seed"])}
