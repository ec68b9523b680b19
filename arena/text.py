"""Text someone else wrote (a bot, a user's file), made safe to show: in a terminal (`printable`,
used by every command that prints such text) and, through the web's ``visible``, on a page.

What is escaped, visibly (``\\x1b``, ``\\u202e``), so that nothing can move the cursor, clear a
terminal, fake a line of output, or make text read differently from what it is:

* control characters: C0 (ESC, CR, ...; tab and newline only when asked), DEL, C1;
* the line and paragraph separators U+2028 and U+2029, and lone surrogates;
* every format character (Unicode category Cf): the bidirectional controls (U+202A–U+202E,
  U+2066–U+2069, U+200E, U+200F, U+061C), the zero-width and invisible ones (U+200B–U+200D,
  U+2060–U+2064, U+FEFF, the soft hyphen U+00AD) and the rest of Cf (tags, interlinear
  annotation, ...).
"""

from __future__ import annotations

import re

# Category Cf as of Unicode 15.1 (a test checks it against the running Python's unicodedata).
_FORMAT = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
           "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
           "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{_FORMAT}]")


def printable(text: str | None, keep_newlines: bool = True) -> str:
    """``text`` with every character listed in the module docstring shown as an escape; with
    ``keep_newlines=False`` newlines and tabs too (one line of output)."""
    if text is None:
        return ""
    if not keep_newlines:
        text = text.replace("\n", "\\n").replace("\t", "\\t")
    return _UNSAFE.sub(_escape, text)


_NAMED = {"\r": "\\r", "\b": "\\b", "\f": "\\f", "\v": "\\v"}  # as Python writes them


def _escape(match: re.Match) -> str:
    if match.group() in _NAMED:
        return _NAMED[match.group()]
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
