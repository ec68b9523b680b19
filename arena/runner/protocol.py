"""The bot protocol's messages: what the harness sends, and the checked reading of what a bot
answers. Every byte a bot writes is untrusted: parsing never raises anything but
`ReplyError`, whatever the line (deep nesting, huge numbers, NaN, lone surrogates).

Protocol version 2 adds one thing to version 1: a bot whose ``ready`` answer carries
``"matches": "many"`` may be sent a new ``start`` after ``end`` instead of ``quit``.
"""

from __future__ import annotations

import json
import math
import re

import orjson

from arena.text import printable  # noqa: F401  (the protocol's text is shown through it)

PROTOCOL_VERSION = 2
MAX_DEPTH = 64  # nesting of arrays and objects in one line from a bot
DEBUG_CHARS = 200
QUOTE_CHARS = 200
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # one line, UTF-8


class ReplyError(Exception):
    """A line from a bot that breaks the protocol; the message says how."""


def encode(message: dict) -> bytes:
    """One compact UTF-8 line. orjson on the hot path (a request is encoded per decision, in a
    tenth of the standard library's time); the standard library for what orjson refuses (an
    integer beyond 64 bits, a key that is not a string)."""
    try:
        return orjson.dumps(message) + b"\n"
    except (orjson.JSONEncodeError, TypeError):
        return _ENCODER.encode(message).encode() + b"\n"


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _too_deep(value, limit: int = MAX_DEPTH) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))
    return False


def decode_line(line: bytes, what: str) -> object:
    """One JSON value from a bot's line; `ReplyError` for anything that is not plain JSON.

    orjson reads the common line fast; it refuses what the standard library refuses (invalid
    UTF-8, NaN, trailing text), and more (a lone surrogate), and reads an integer beyond 64
    bits as a float. So anything orjson refuses, and any value holding a float, is read again
    by the standard library, whose reading (and error message) is the one that counts."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return _decode_exactly(line, what)
    if _too_deep_or_float(value):
        return _decode_exactly(line, what)
    return value


def _too_deep_or_float(value) -> bool:
    if isinstance(value, float):
        return True
    if not isinstance(value, (list, dict)):
        return False
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        for child in (item.values() if isinstance(item, dict) else item):
            if isinstance(child, float):
                return True
            if isinstance(child, (list, dict)):
                stack.append((child, depth + 1))
    return False


def _decode_exactly(line: bytes, what: str) -> object:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ReplyError(f"{what} is not UTF-8 ({error.reason} at byte {error.start})") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ReplyError(f"{what} is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:  # JSONDecodeError, NaN/Infinity, an integer too long
        raise ReplyError(f"{what} is not valid JSON ({error})") from None
    if _too_deep(value):
        raise ReplyError(f"{what} is nested deeper than {MAX_DEPTH} levels")
    if _has_lone_surrogate(value):
        raise ReplyError(f"{what} holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not text")
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_lone_surrogate(value) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def parse_ready(line: bytes) -> dict:
    """The ``ready`` answer to ``start`` (as a dict), or `ReplyError`."""
    reply = decode_line(line, "answer to start")
    if not isinstance(reply, dict) or reply.get("type") != "ready":
        raise ReplyError('answer to start must be {"type": "ready"}')
    if "matches" in reply and reply["matches"] not in ("one", "many"):
        raise ReplyError(f"'matches' in ready must be \"one\" or \"many\", got {quote(reply['matches'])}")
    return reply


def parse_reply(line: bytes, legal: list | None) -> tuple[object, str | None]:
    """The action a reply line names (the listed form, when it is listed) and its debug text."""
    reply = decode_line(line, "reply")
    if not isinstance(reply, dict):
        raise ReplyError(f"reply must be a JSON object, got {_json_type(reply)}")
    if reply.get("type", "action") != "action":
        raise ReplyError(f"reply type must be \"action\", got {quote(reply.get('type'))}")
    debug = reply.get("debug")
    if debug is not None and not isinstance(debug, str):
        raise ReplyError("'debug' must be a string")
    has_action, has_index = "action" in reply, "index" in reply
    if has_action == has_index:
        raise ReplyError("reply must have exactly one of 'action' and 'index'")
    if debug is not None:
        debug = debug[:DEBUG_CHARS]
    if has_action:
        return reply["action"], debug
    index = reply["index"]
    if legal is None:
        raise ReplyError("'index' is only allowed when the request lists legal actions")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(legal):
        raise ReplyError(f"'index' must be a whole number from 0 to {len(legal) - 1}, got {quote(index)}")
    return legal[index], debug


def same_json(a, b) -> bool:
    """Equal as JSON values: types must match too (``2`` is not ``2.0``, ``true`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return False
    return a == b


def listed(action, legal: list | None) -> object | None:
    """The entry of ``legal`` that ``action`` is (same JSON value), or None."""
    if legal is None:
        return None
    for candidate in legal:
        if candidate is action:  # an answer by index is the listed entry itself
            return candidate
    for candidate in legal:
        if same_json(action, candidate):
            return candidate
    return None


def _json_type(value) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
            float: "number", type(None): "null"}.get(type(value), type(value).__name__)


def quote(value, limit: int = QUOTE_CHARS) -> str:
    """A short, printable rendering of a value a bot sent, for error messages."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def quote_line(line: bytes, limit: int = QUOTE_CHARS) -> str:
    """The start of a raw line from a bot, printable (control characters escaped)."""
    return repr(line[:limit].decode("utf-8", "replace")) + ("..." if len(line) > limit else "")
