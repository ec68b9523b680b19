"""Near-copy detection: a renamed and reformatted copy and a lightly edited copy of a bot are
found among different bots; the normalisation ignores names, comments, spacing and constants."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from arena.entry import main as entry
from botmaker import write_bot
from arena.results.similar import agreeing_pairs, fingerprints, similar_pairs, similarity, tokens
from arena.runner.replayset import replay, replay_set

REPO = Path(__file__).resolve().parents[1]
HEURISTIC = (REPO / "bots" / "five_towers_heuristic.py").read_text()


def renamed_and_reformatted(source: str) -> str:
    """Every function and variable renamed, comments rewritten, indentation doubled."""
    names = sorted(set(re.findall(r"^\s*def (\w+)", source, re.M)) | set(re.findall(r"^\s*(\w+) =", source, re.M)))
    names = [name for name in names if f'"{name}"' not in source and not name.startswith("__")]  # protocol words stay
    for number, name in enumerate(names):
        source = re.sub(rf"\b{name}\b", f"thing_{number}", source)
    source = re.sub(r"#[^\n]*", "# written by me", source)
    return "\n".join(re.sub(r"^( +)", lambda m: m.group(1) * 2, line) for line in source.splitlines()) + "\n"


def lightly_edited(source: str) -> str:
    """A helper function and an import added, a comment, constants changed (not 0 and 1, which
    index the legal actions: the copy must stay a working bot)."""
    lines = source.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("def "))
    lines[at:at] = ["def clamp(value, low, high):", "    if value < low:", "        return low",
                    "    return min(value, high)", "", ""]
    lines.insert(3, "import math  # tuned by carol")
    return re.sub(r"\b([2-9]|\d\d+)\b", lambda m: str(int(m.group(0)) + 1), "\n".join(lines)) + "\n"


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
    for args in (["submit", str(folder), "--game", "five-towers"], ["similar", "--game", "five-towers", "--by", "source"]):
        with pytest.raises(SystemExit) as leaving:
            entry(["--db", str(db), *args])
        assert leaving.value.code == 0
    out = capsys.readouterr().out
    listed = [line.split()[1:] for line in out.splitlines() if line.startswith("  ")]
    assert sorted(tuple(sorted((a, c))) for a, _, c, _ in listed) == [("alice", "bob"), ("alice", "carol"),
                                                                       ("bob", "carol")]
    assert "5 five-towers bots" in out


# ---- by behaviour: every bot answers the same recorded requests in the sandbox --------------

def renamed(source: str) -> str:
    """A faithful rename: functions, a class and a constant renamed, every comment rewritten.
    (`renamed_and_reformatted` above also renames ``amount``-like names that double as
    attributes, which changes what the copy does: fine for tokens, not for behaviour.)"""
    for old, new in (("choose_bid", "pick_bid"), ("choose_build", "pick_build"), ("Planner", "Strategist"),
                     ("can_place", "fits_on"), ("ROOM_WEIGHT", "SPACE_VALUE"), ("planner", "brain")):
        source = re.sub(rf"\b{old}\b", new, source)
    return re.sub(r"  # [^\n]*", "  # mine", source)


def edited_a_little(source: str) -> str:
    """Comments and a few names changed, a constant nudged, a rarely-hit fallback changed."""
    source = source.replace("planner", "plan").replace("gains", "profit").replace("# a bug here", "# just in case")
    source = source.replace("CAP_CHANCE = 0.5 ", "CAP_CHANCE = 0.52 ")
    fallback = '    return {"type": "action", "index": 0}\n\n\ndef choose_build'
    assert fallback in source
    return source.replace(fallback, '    return {"type": "action", "index": len(legal) - 1}\n\n\ndef choose_build')


def class_of_five_towers(folder: Path) -> None:
    folder.mkdir()
    shutil.copy(REPO / "bots" / "five_towers_heuristic.py", folder / "alice.py")
    (folder / "bob.py").write_text(renamed(HEURISTIC))
    (folder / "carol.py").write_text(edited_a_little(HEURISTIC))
    write_bot(folder, "dave")  # the first legal action
    write_bot(folder, "frank", on_request='reply({"type": "action", "index": len(message["legal"]) - 1})')
    shutil.copy(REPO / "bots" / "random.py", folder / "erin.py")
    for path in folder.iterdir():
        path.chmod(0o644)
    folder.chmod(0o755)


def test_agreement_counts_only_requests_both_answered_and_lists_pairs_far_above_the_median():
    field = agreeing_pairs({"a": ["x", "y", "z", None], "b": ["x", "y", "z", "w"], "c": ["y", "x", "q", "w"],
                            "d": ["q", "q", "q", "q"]})
    rates = {(p.first, p.second): (p.rate, p.common) for p in field.pairs}
    assert rates[("a", "b")] == (1.0, 3) and rates[("b", "c")] == (0.25, 4) and rates[("a", "d")] == (0.0, 3)
    assert [(p.first, p.second) for p in field.listed] == [("a", "b")]
    assert field.median == 0.125
    # A field of look-alikes (most pairs agree 0.9): 0.95 is not far above it.
    same = {name: ["x"] * 18 + [name, name] for name in "abcde"}
    same["f"] = ["x"] * 19 + ["a"]
    look_alikes = agreeing_pairs(same)
    assert look_alikes.median == 0.9 and max(p.rate for p in look_alikes.pairs) == 0.95
    assert look_alikes.listed == []


def test_a_replay_set_is_fixed_and_made_of_real_requests_with_a_choice():
    first, again = replay_set("five-towers", 50), replay_set("five-towers", 50)
    assert len(first) == 50
    assert [(g.deal, g.seat, [r.step for r in g.requests]) for g in first.groups] == \
        [(g.deal, g.seat, [r.step for r in g.requests]) for g in again.groups]
    assert {g.players for g in first.groups} == {2, 3, 4, 5}
    assert all(len(r.legal) > 1 for g in first.groups for r in g.requests)


@pytest.mark.slow
def test_arena_similar_by_behaviour_finds_a_renamed_and_an_edited_copy_among_different_bots(tmp_path, capsys):
    class_of_five_towers(tmp_path / "class")
    db = tmp_path / "arena.db"
    for args in (["submit", str(tmp_path / "class"), "--game", "five-towers"],
                 ["similar", "--game", "five-towers", "--requests", "120", "--workers", "2"]):
        with pytest.raises(SystemExit) as leaving:
            entry(["--db", str(db), *args])
        assert leaving.value.code == 0
    captured = capsys.readouterr()
    print(captured.out)
    listed = [line.split() for line in captured.out.splitlines() if line.startswith("  ")]
    found = {tuple(sorted((row[1], row[3]))): float(row[0]) for row in listed}
    assert set(found) == {("alice", "bob"), ("alice", "carol"), ("bob", "carol")}
    assert found[("alice", "bob")] == 1.0 and 0.9 <= found[("alice", "carol")] <= 1.0
    assert "6 five-towers bots, 120 recorded requests each" in captured.out
    assert "not compared" not in captured.out
    assert "[6/6]" in captured.err


def test_a_bot_that_fails_on_some_requests_leaves_only_those_of_its_short_matches_undecided(tmp_path):
    crashing = write_bot(tmp_path / "bots", "crashing",
                         on_request='if message["step"] % 7 == 3:\n    sys.exit(1)\nreply({"type": "action", "index": 0})')
    requests = replay_set("five-towers", 40)
    result = replay(crashing, requests)
    answered = [d for d in result.decisions if d is not None]
    assert result.error is None and len(result.decisions) == 40
    assert result.failures and all("crash" in line for line in result.failures)
    assert 0 < len(answered) < 40
    assert replay(str(tmp_path / "missing.py"), requests).error.startswith("bot not found")
