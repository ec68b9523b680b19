"""Text someone else wrote (a bot, a user's file), made safe to show: no control characters."""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def printable(text: str | None, keep_newlines: bool = True) -> str:
    """``text`` with control characters (ESC, CR, ...) and lone surrogates shown as escapes, so
    nothing in it can move the cursor, clear a terminal or fake a line of output."""
    if text is None:
        return ""
    if not keep_newlines:
        text = text.replace("\n", "\\n").replace("\t", "\\t")
    return _CONTROL.sub(_escape, text)


def _escape(match: re.Match) -> str:
    char = match.group()
    if "\ud800" <= char <= "\udfff":
        return f"\\u{ord(char):04x}"
    return char.encode("unicode_escape", "backslashreplace").decode("ascii")
