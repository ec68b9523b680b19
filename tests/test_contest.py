"""A course's contest from the command line: many bots submitted at once, withdrawals, the
latest-version leaderboard, rank confidence, statistics, SPRT exit codes and exports."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from arena.entry import main as entry
from botmaker import write_bot

REPO = Path(__file__).resolve().parents[1]


def arena(capsys, *args):
    with pytest.raises(SystemExit) as leaving:
        entry([str(a) for a in args])
    captured = capsys.readouterr()
    return leaving.value.code, captured.out, captured.err


@pytest.fixture
def class_folder(tmp_path):
    """A folder of students' bots: files and folders with a bot.toml, and one that is broken."""
    folder = tmp_path / "submissions"
    for number in range(5):
        write_bot(folder, f"student{number}", on_request=f'reply({{"index": {number % 3}}})')
    team = folder / "team-x"
    write_bot(team, "main")
    (team / "bot.toml").write_text('command = "python main.py"\n')
    team.chmod(0o755)
    write_bot(folder, "broken", on_start="sys.exit(2)")
    (folder / "notes").mkdir()  # a folder without a bot.toml: skipped with a note
    return folder


def test_a_folder_of_bots_is_submitted_at_once_with_a_line_each(tmp_path, capsys, class_folder):
    code, out, err = arena(capsys, "--db", tmp_path / "arena.db", "submit", class_folder, "--game", "toy")
    assert code == 1  # one bot was refused
    lines = out.strip().splitlines()
    assert len(lines) == 7
    assert sum(line.startswith("accepted: toy/") for line in lines) == 6
    assert any(line.startswith("refused: ") and "broken" in line for line in lines)
    assert "skipping" in err and "notes" in err and "6 of 7 bots accepted or unchanged" in err
    code, out, _ = arena(capsys, "--db", tmp_path / "arena.db", "bots", "--game", "toy")
    assert {line.split()[1] for line in out.splitlines()[1:]} == {f"student{n}" for n in range(5)} | {"team-x"}


def test_withdrawn_bots_leave_new_schedules_and_the_default_leaderboard(tmp_path, capsys, class_folder):
    db = tmp_path / "arena.db"
    shutil.rmtree(class_folder / "broken.py", ignore_errors=True)
    (class_folder / "broken.py").unlink()
    arena(capsys, "--db", db, "submit", class_folder, "--game", "toy")
    arena(capsys, "--db", db, "tournament", "run", "--game", "toy", "--bots", "*", "--seed", "1")
    code, out, _ = arena(capsys, "--db", db, "bots", "withdraw", "student0", "--game", "toy")
    assert code == 0 and "withdrawn: toy/student0" in out
    code, out, _ = arena(capsys, "--db", db, "leaderboard", "--game", "toy", "--format", "json")
    assert "student0" not in {e["bot"] for e in json.loads(out)["entries"]}
    code, out, _ = arena(capsys, "--db", db, "leaderboard", "--game", "toy", "--format", "json", "--all-versions")
    assert "student0" in {e["bot"] for e in json.loads(out)["entries"]}
    code, out, err = arena(capsys, "--db", db, "tournament", "run", "--game", "toy", "--bots", "*", "--seed", "2")
    assert code == 0 and "5 bots" in out
    code, out, err = arena(capsys, "--db", db, "tournament", "run", "--game", "toy", "--bots", "student0,student1")
    assert code == 1 and "withdrawn" in err
    arena(capsys, "--db", db, "bots", "reinstate", "student0", "--game", "toy")
    code, out, _ = arena(capsys, "--db", db, "leaderboard", "--game", "toy", "--format", "json")
    assert "student0" in {e["bot"] for e in json.loads(out)["entries"]}


def test_only_each_bots_latest_version_is_on_the_default_leaderboard(tmp_path, capsys):
    db = tmp_path / "arena.db"
    path = write_bot(tmp_path / "src", "evolving")
    other = write_bot(tmp_path / "src", "other", on_request='reply({"index": 2})')
    arena(capsys, "--db", db, "tournament", "run", "--game", "toy", "--bots", f"{path},{other}", "--seed", "1")
    with open(path, "a") as handle:
        handle.write("# v2\n")
    arena(capsys, "--db", db, "tournament", "run", "--game", "toy", "--bots", f"{path},{other}", "--seed", "2")
    _, out, _ = arena(capsys, "--db", db, "leaderboard", "--game", "toy", "--format", "json")
    assert sorted((e["bot"], e["version"]) for e in json.loads(out)["entries"]) == [("evolving", 2), ("other", 1)]
    _, out, _ = arena(capsys, "--db", db, "leaderboard", "--game", "toy", "--format", "json", "--all-versions")
    assert len(json.loads(out)["entries"]) == 3


def test_stats_and_rank_confidence_of_a_tournament(tmp_path, capsys):
    db = tmp_path / "arena.db"
    bots = [str(REPO / "tests" / "bots" / "greedy.py"), write_bot(tmp_path / "src", "meek"),
            write_bot(tmp_path / "src", "middle", on_request='reply({"index": 1})')]
    arena(capsys, "--db", db, "tournament", "run", "--game", "toy", "--bots", ",".join(bots), "--rounds", "3",
          "--seed", "1")
    code, out, _ = arena(capsys, "--db", db, "leaderboard", "--tournament", "1", "--confidence")
    assert code == 0 and "rank 95%" in out.splitlines()[1]  # finished: the refit's intervals
    code, out, _ = arena(capsys, "--db", db, "tournament", "stats", "1", "--json")
    report = json.loads(out)
    assert report["leaderboard"][0]["bot"] == "greedy" and report["leaderboard"][0]["rank_interval"] == [1, 1]
    cell = next(c for c in report["head_to_head"] if c["bot"] == "greedy v1" and c["opponent"] == "meek v1")
    assert cell["wins"] == cell["matches"] == 6 and cell["rank_difference"] == 1.0
    assert [s["seat"] for s in report["seats"]] == [0, 1]
    code, out, _ = arena(capsys, "--db", db, "tournament", "stats", "1")
    assert "head to head" in out and "6-0-0 +1.00" in out and "mean points" in out


def test_sprt_exit_codes_say_which_hypothesis_won(tmp_path, capsys):
    db = tmp_path / "arena.db"
    strong, weak = str(REPO / "tests" / "bots" / "greedy.py"), write_bot(tmp_path / "src", "weak")
    code, out, err = arena(capsys, "--db", db, "sprt", "--game", "toy", "--bots", f"{strong},{weak}", "--elo1", "50",
                           "--seed", "1")
    assert code == 0 and "H1 accepted" in out and "LLR" in err
    code, out, err = arena(capsys, "--db", db, "sprt", "--game", "toy", "--bots", f"{weak},{strong}", "--elo1", "50",
                           "--seed", "2")
    assert code == 3 and "H0 accepted" in out


def test_export_writes_matches_as_json_lines_and_seats_as_csv(tmp_path, capsys):
    db = tmp_path / "arena.db"
    bots = [write_bot(tmp_path / "src", "a"), write_bot(tmp_path / "src", "b", on_request='reply({"index": 1})')]
    arena(capsys, "--db", db, "tournament", "run", "--game", "toy", "--bots", ",".join(bots), "--seed", "1")
    code, out, _ = arena(capsys, "--db", db, "export", "--tournament", "1", "--format", "jsonl")
    matches = [json.loads(line) for line in out.splitlines()]
    assert len(matches) == 2 and {s["bot"] for s in matches[0]["seats"]} == {"a", "b"}
    target = tmp_path / "seats.csv"
    code, out, err = arena(capsys, "--db", db, "export", "--tournament", "1", "--format", "csv", "-o", target)
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert code == 0 and len(rows) == 4 and {"match_id", "bot", "rank", "seat_status"} <= set(rows[0])
