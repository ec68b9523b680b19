"""The line quoted from a crashed bot's stderr: the runtime's error line, not a banner.

The samples in tests/stderr_samples/ are what each runtime printed here (paths changed to
/bot/), except go.txt, written after Go's documented panic output; a real Go bot's panic is
quoted end to end in tests/test_stderr_per_decision.py.
"""

from pathlib import Path

import pytest

from arena.runner.errorline import meaningful_line

SAMPLES = Path(__file__).parent / "stderr_samples"


@pytest.mark.parametrize("sample, expected", [
    ("python.txt", "ValueError: bad move 7"),
    ("python_chained.txt", "RuntimeError: while choosing"),
    ("node.txt", "TypeError: Cannot read properties of undefined (reading 'legal')"),
    ("node_json.txt", "SyntaxError: Expected property name or '}' in JSON at position 1"),
    ("node_throw_string.txt", "no legal moves"),
    ("java.txt", 'Exception in thread "main" java.lang.RuntimeException: wrapped (caused by'
                 " java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds for length 1)"),
    ("java_plain.txt", 'Exception in thread "main" java.lang.IllegalStateException: seat 3 unknown'),
    ("cpp.txt", "terminate called after throwing an instance of 'std::runtime_error': what(): no legal action"),
    ("rust.txt", "thread 'main' (9033) panicked at a.rs:1:65: index out of bounds: the len is 0 but the index is 3"),
    ("rust_expect.txt", "thread 'main' (12295) panicked at o.rs:1:40: no action chosen"),
    ("go.txt", "panic: runtime error: index out of range [3] with length 0"),
])
def test_each_runtime_s_crash_is_quoted_by_its_error_line(sample, expected):
    assert meaningful_line((SAMPLES / sample).read_text()) == expected


def test_a_crash_after_earlier_log_lines_quotes_the_crash_not_the_log():
    text = "panic: pretend, in a log line\n" + (SAMPLES / "python.txt").read_text()
    assert meaningful_line(text) == "ValueError: bad move 7"


def test_an_unknown_runtime_s_last_line_is_quoted():
    assert meaningful_line("reading\nDied at bot.pl line 3.\n\n") == "Died at bot.pl line 3."


def test_the_node_banner_alone_is_still_quoted_rather_than_nothing():
    assert meaningful_line("Node.js v20.20.2\n") == "Node.js v20.20.2"


def test_empty_stderr_quotes_nothing():
    assert meaningful_line("") == ""
