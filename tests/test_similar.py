"""Near-copy detection: a renamed and reformatted copy and a lightly edited copy of a bot are
found among different bots; the normalisation ignores names, comments, spacing and constants."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from arena.entry import main as entry
from botmaker import write_bot
from arena.results.similar import fingerprints, similar_pairs, similarity, tokens

REPO = Path(__file__).resolve().parents[1]
HEURISTIC = (REPO / "bots" / "five_towers_heuristic.py").read_text()


def renamed_and_reformatted(source: str) -> str:
    """Every function and variable renamed, comments rewritten, indentation doubled."""
    names = sorted(set(re.findall(r"^\s*def (\w+)", source, re.M)) | set(re.findall(r"^\s*(\w+) =", source, re.M)))
    names = [name for name in names if f'"{name}"' not in source]  # protocol words stay
    for number, name in enumerate(names):
        source = re.sub(rf"\b{name}\b", f"thing_{number}", source)
    source = re.sub(r"#[^\n]*", "# written by me", source)
    return "\n".join(re.sub(r"^( +)", lambda m: m.group(1) * 2, line) for line in source.splitlines()) + "\n"


def lightly_edited(source: str) -> str:
    """A helper function and an import added, a comment, constants changed."""
    lines = source.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("def "))
    lines[at:at] = ["def clamp(value, low, high):", "    if value < low:", "        return low",
                    "    return min(value, high)", "", ""]
    lines.insert(3, "import math  # tuned by carol")
    return re.sub(r"\b\d+\b", lambda m: str(int(m.group(0)) + 1), "\n".join(lines)) + "\n"


def test_names_comments_spacing_and_constants_do_not_change_the_tokens():
    assert tokens("x = foo(1)  # hi\n") == tokens("total   =  bar(42)\n") == ["V", "=", "V", "(", "N", ")"]
    assert tokens('if a: return "text"') == ["if", "V", ":", "return", "S"]


def test_a_renamed_and_reformatted_copy_scores_near_one_and_different_bots_low():
    others = {p.name: p.read_text() for p in (REPO / "bots").glob("*.py") if p.name != "five_towers_heuristic.py"}
    sources = {"original": HEURISTIC, "renamed": renamed_and_reformatted(HEURISTIC),
               "edited": lightly_edited(HEURISTIC), **others}
    pairs, baseline = similar_pairs(sources, threshold=0.5)
    assert {(p.first, p.second) for p in pairs} == {("original", "renamed"), ("edited", "original"),
                                                    ("edited", "renamed")}
    assert similarity(fingerprints(HEURISTIC), fingerprints(sources["renamed"])) > 0.95
    assert baseline < 0.15


@pytest.mark.slow
def test_arena_similar_lists_the_copies_of_a_submitted_bot_and_not_the_others(tmp_path, capsys):
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(REPO / "bots" / "five_towers_heuristic.py", folder / "alice.py")
    (folder / "bob.py").write_text(renamed_and_reformatted(HEURISTIC))
    (folder / "carol.py").write_text(lightly_edited(HEURISTIC))
    write_bot(folder, "dave")
    shutil.copy(REPO / "bots" / "random.py", folder / "erin.py")
    for path in folder.iterdir():
        path.chmod(0o644)
    folder.chmod(0o755)
    db = tmp_path / "arena.db"
    for args in (["submit", str(folder), "--game", "five-towers"], ["similar", "--game", "five-towers"]):
        with pytest.raises(SystemExit) as leaving:
            entry(["--db", str(db), *args])
        assert leaving.value.code == 0
    out = capsys.readouterr().out
    listed = [line.split()[1:] for line in out.splitlines() if line.startswith("  ")]
    assert sorted(tuple(sorted((a, c))) for a, _, c, _ in listed) == [("alice", "bob"), ("alice", "carol"),
                                                                       ("bob", "carol")]
    assert "5 five-towers bots" in out
