"""The one line of a crashed bot's stderr that says why it crashed.

The last line of stderr is often not it: Node.js ends with its version banner, Rust with a
note about ``RUST_BACKTRACE``, Java with the last frame of a stack trace, C++ with the
``what()`` under ``terminate called``. `meaningful_line` knows how the runtimes of the starter
kits (and Go) report an uncaught error and quotes that line (joined with the line that
completes it, where the runtime splits it in two); for anything else, the last line that is
not a known banner. Pure text in, text out: no processes.
"""

from __future__ import annotations

import re

# Lines a runtime prints after the error itself, which explain nothing.
BANNERS = (
    re.compile(r"^Node\.js v\d"),                                  # Node's version, after every crash
    re.compile(r"^\(Use `node --trace-"),                          # Node, after a thrown non-Error
    re.compile(r"^note: run with `RUST_BACKTRACE="),               # Rust, after a panic
    re.compile(r"^exit status \d+$"),                              # `go run`
)
STACK_FRAME = re.compile(r"^(\s+at |\tat )")                       # Node ("    at f (...)"), Java ("\tat A.main")
RUST_PANIC = re.compile(r"^thread '[^']*'(?: \(\d+\))? panicked at ")
CPP_TERMINATE = re.compile(r"^terminate called ")
CPP_WHAT = re.compile(r"^\s+what\(\):\s*(.*)$")
JAVA_UNCAUGHT = re.compile(r'^Exception in thread "')
JAVA_CAUSE = re.compile(r"^Caused by: (.*)$")
GO_PANIC = re.compile(r"^(panic: |fatal error: )")
PYTHON_TRACEBACK = "Traceback (most recent call last):"


def meaningful_line(text: str) -> str:
    """The line that explains a crash, stripped ("" when stderr holds nothing)."""
    lines = text.splitlines()
    found = [hit for hit in (find(lines) for find in SPECIFIC) if hit is not None]
    if found:
        return max(found)[1].strip()
    frame = _before_stack(lines)
    if frame is not None:
        return frame[1].strip()
    for line in reversed(lines):
        if line.strip() and not any(banner.match(line) for banner in BANNERS):
            return line.strip()
    return next((line.strip() for line in reversed(lines) if line.strip()), "")


def _python(lines: list[str]):
    """The exception line of the last traceback: its first line that is not indented."""
    starts = [i for i, line in enumerate(lines) if line.startswith(PYTHON_TRACEBACK)]
    if not starts:
        return None
    for index in range(starts[-1] + 1, len(lines)):
        if lines[index].strip() and not lines[index][0].isspace():
            return index, lines[index]
    return None


def _java(lines: list[str]):
    """``Exception in thread "main" X: m`` of the last uncaught exception, with its root cause."""
    starts = [i for i, line in enumerate(lines) if JAVA_UNCAUGHT.match(line)]
    if not starts:
        return None
    first = starts[-1]
    causes = [(i, JAVA_CAUSE.match(lines[i]).group(1)) for i in range(first + 1, len(lines)) if JAVA_CAUSE.match(lines[i])]
    if not causes:
        return first, lines[first]
    index, cause = causes[-1]
    return index, f"{lines[first].strip()} (caused by {cause.strip()})"


def _cpp(lines: list[str]):
    """``terminate called after throwing an instance of 'T'`` and the ``what()`` below it."""
    starts = [i for i, line in enumerate(lines) if CPP_TERMINATE.match(line)]
    if not starts:
        return None
    index = starts[-1]
    what = CPP_WHAT.match(lines[index + 1]) if index + 1 < len(lines) else None
    if what:
        return index + 1, f"{lines[index].strip()}: what(): {what.group(1).strip()}"
    return index, lines[index]


def _rust(lines: list[str]):
    """``thread 'main' panicked at src/main.rs:3:5:`` and, since Rust 1.73, the message on the next line."""
    starts = [i for i, line in enumerate(lines) if RUST_PANIC.match(line)]
    if not starts:
        return None
    index = starts[-1]
    line = lines[index].rstrip()
    if line.endswith(":") and index + 1 < len(lines) and lines[index + 1].strip():
        return index + 1, f"{line} {lines[index + 1].strip()}"
    return index, line


def _go(lines: list[str]):
    """Go's ``panic: ...`` (or ``fatal error: ...``): the first of the last block of them."""
    hits = [i for i, line in enumerate(lines) if GO_PANIC.match(line)]
    if not hits:
        return None
    index = hits[-1]
    while index - 1 in hits:
        index -= 1
    return hits[-1], lines[index]


SPECIFIC = (_python, _java, _cpp, _rust, _go)


def _before_stack(lines: list[str]):
    """The line just above the last stack trace (Node's ``TypeError: ...``; any runtime that
    prints frames as ``at ...``)."""
    for index in range(len(lines) - 1, 0, -1):
        if STACK_FRAME.match(lines[index]) and not STACK_FRAME.match(lines[index - 1]):
            above = index - 1
            while above >= 0 and not lines[above].strip():
                above -= 1
            if above >= 0:
                return above, lines[above]
            return None
    return None
