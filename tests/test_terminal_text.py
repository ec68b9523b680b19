"""What bots and users wrote reaches the terminal escaped: control characters, bidirectional
controls and invisible characters are shown as escapes by every command (`arena.text`)."""

from __future__ import annotations

import sqlite3
import sys
import unicodedata

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.text import printable
from botmaker import write_bot

# Right-to-left override, zero-width space, a terminal escape (clear screen), a bidi isolate,
# a zero-width no-break space, a C1 control.
EVIL = "A\u202eB\u200bC\x1b[2JD\u2066E\ufeffF\x9bG"
RAW = ("\u202e", "\u200b", "\x1b", "\u2066", "\ufeff", "\x9b")


def test_printable_escapes_controls_bidi_and_invisible_characters_visibly():
    assert printable(EVIL) == "A\\u202eB\\u200bC\\x1b[2JD\\u2066E\\ufeffF\\x9bG"
    for char in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u200b\u200c\u200d" \
                "\u2060\ufeff\u00ad\x00\x07\x7f\x85\u2028\u2029\U000e0041":
        assert char not in printable(f"x{char}y") and printable(f"x{char}y").startswith("x\\")
    assert printable("tab\tand\nnewline") == "tab\tand\nnewline"
    assert printable("tab\tand\nnewline", keep_newlines=False) == "tab\\tand\\nnewline"
    assert printable("ordinary text: é, 漢字, עברית, 🙂") == "ordinary text: é, 漢字, עברית, 🙂"


def test_every_format_character_of_this_python_is_escaped():
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if unicodedata.category(char) in ("Cc", "Cf") and char not in "\t\n":
            assert printable(char) != char, f"U+{code:04X} ({unicodedata.name(char, '?')}) is not escaped"


@pytest.fixture(scope="module")
def evil_db(tmp_path_factory):
    """A toy tournament in which one bot writes EVIL to stderr and in its debug, then crashes;
    and whose stored name is EVIL too (a database may hold any text)."""
    folder = tmp_path_factory.mktemp("evil")
    (folder / "results").mkdir()
    db = str(folder / "results" / "arena.db")
    liar = write_bot(folder / "src", "liar", on_start=f'sys.stderr.write({EVIL!r} + "\\n"); reply({{"type": "ready"}})',
                     on_request=f'''
        sys.stderr.write({EVIL!r} + "\\n")
        sys.stderr.flush()
        if requests > 1:
            sys.exit(3)
        reply({{"type": "action", "index": 0, "debug": {EVIL!r}}})''')
    honest = write_bot(folder / "src", "honest")
    out = CliRunner().invoke(main, ["--db", db, "tournament", "run", "--game", "toy", "--bots", f"{liar},{honest}",
                                    "--rounds", "1", "--seed", "3", "--workers", "1"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE bots SET name = ? WHERE name = 'liar'", [EVIL])
    return db, liar, honest


@pytest.mark.parametrize("command", ["failures", "show", "bots", "match", "leaderboard", "tournament stats"])
def test_every_command_prints_bot_text_escaped(evil_db, command):
    db, liar, honest = evil_db
    args = {"failures": ["failures", "--stderr-lines", "3"], "show": ["show", "1"], "bots": ["bots"],
            "match": ["match", "toy", liar, honest, "--seed", "3"],
            "leaderboard": ["leaderboard", "--tournament", "1"],
            "tournament stats": ["tournament", "stats", "1"]}[command]
    out = CliRunner().invoke(main, ["--db", db, *args], catch_exceptions=False)
    shown = out.stdout + out.stderr
    assert not [char for char in RAW if char in shown], shown
    assert "\\u202e" in shown, shown  # the text is there, visibly
