"""A bot's stderr printed like a console: its last lines, each behind ``|``, escaped.

Shared by the commands that show what a bot wrote (`arena show`, `arena match`). Nothing a bot
wrote is printed unescaped (`arena.text.printable`): no line it writes can pass for arena's.
"""

from __future__ import annotations

from arena.text import printable


def console_lines(text: str | None, keep: int | None, indent: str = "    ", hint: str = "") -> list[str]:
    """The last ``keep`` lines of ``text`` (all with None), each as ``indent | line``; a first
    line says how many earlier lines were left out (followed by ``hint``, e.g. the option
    that shows them)."""
    lines = printable((text or "").rstrip("\n")).splitlines() if text and text.strip() else []
    if keep is not None and len(lines) > keep:
        left_out = len(lines) - keep
        lines = lines[left_out:] if keep else []
        head = [f"{indent}| ... {left_out} earlier line{'s' if left_out != 1 else ''}{hint}"]
        return head + [f"{indent}| {line}" for line in lines]
    return [f"{indent}| {line}" for line in lines]
