"""`arena contest` from the command line: create, entrants from a CSV (links printed or as
CSV), bad rows named, upload, run, show, final, grades; and schema 3 upgraded to 4."""

from __future__ import annotations

import csv
import io
import sqlite3

from click.testing import CliRunner

from arena.cli import main
from arena.results.schema import SCHEMA_VERSION
from arena.results.store import Store
from contestkit import GOOD_BOT, run_until, submissions


def arena(db, *args):
    return CliRunner().invoke(main, ["--db", str(db), *map(str, args)], catch_exceptions=False)


def test_an_organisers_journey_from_the_command_line(tmp_path):
    db = tmp_path / "arena.db"
    created = arena(db, "contest", "create", "course", "--game", "toy", "--link-base", "https://contest.example.org/")
    assert created.exit_code == 0 and "https://contest.example.org/signin/" in created.output
    people = tmp_path / "people.csv"
    people.write_text("name,email\nada,ada@example.org\nbob,bob@example.org\n")
    added = arena(db, "contest", "entrants", "add", "course", people, "--csv", "-")
    links = list(csv.DictReader(io.StringIO(added.stdout)))
    assert [row["name"] for row in links] == ["ada", "bob"]
    assert all(row["link"].startswith("https://contest.example.org/signin/") for row in links)
    for name in ("ada", "bob"):
        bot = tmp_path / f"{name}.py"
        bot.write_bytes(GOOD_BOT + f"# {name}\n".encode())
        assert arena(db, "contest", "upload", "course", name, bot).exit_code == 0
    run_until(db, lambda s: len(submissions(s)) == 2)
    shown = arena(db, "contest", "show", "course")
    assert "entrants: 2 (2 with an accepted bot)" in shown.output
    assert arena(db, "contest", "final", "course").exit_code == 0
    run_until(db, lambda s: s.one("SELECT t.status FROM contests c JOIN tournaments t ON t.id = c.final_id")
              is not None and s.one("SELECT t.status FROM contests c JOIN tournaments t ON t.id = c.final_id")["status"]
              == "finished")
    grades = arena(db, "contest", "grades", "course")
    rows = list(csv.DictReader(io.StringIO(grades.stdout)))
    assert sorted(row["name"] for row in rows) == ["ada", "bob"] and {row["rank"] for row in rows} <= {"1", "2"}
    assert "rank band" in arena(db, "contest", "standings", "course").output


def test_a_bad_csv_names_each_bad_row_and_adds_nobody(tmp_path):
    db = tmp_path / "arena.db"
    arena(db, "contest", "create", "course", "--game", "toy")
    people = tmp_path / "people.csv"
    people.write_text("name,email\nada,ada@example.org\nbob,nope\n")
    result = arena(db, "contest", "entrants", "add", "course", people)
    assert result.exit_code == 1
    assert "line 3: not an e-mail address: 'nope'" in result.stderr and "nothing was added" in result.stderr
    assert "ada" not in arena(db, "contest", "entrants", "list", "course").output


def test_an_unknown_contest_is_one_line(tmp_path):
    db = tmp_path / "arena.db"
    arena(db, "contest", "create", "course", "--game", "toy")
    result = arena(db, "contest", "show", "nope")
    assert result.exit_code == 1 and result.stderr.strip() == "Error: no contest 'nope' (contests: course)"


def test_a_schema_3_database_is_upgraded_to_4_with_the_contest_tables(tmp_path):
    db = tmp_path / "arena.db"
    Store(db).close()
    connection = sqlite3.connect(db)
    for table in ("contest_test_matches", "contest_requests", "contest_submissions", "contest_entrants", "contests"):
        connection.execute(f"DROP TABLE {table}")
    connection.execute("PRAGMA user_version = 3")
    connection.commit()
    connection.close()
    assert arena(db, "contest", "create", "course", "--game", "toy").exit_code == 0
    with Store(db, readonly=True) as store:
        assert store.one("PRAGMA user_version")["user_version"] == SCHEMA_VERSION == 4


def test_a_bad_setting_in_the_contest_file_is_one_line_naming_it(tmp_path):
    db = tmp_path / "arena.db"
    settings = tmp_path / "contest.toml"
    for text, message in (('limits = "fast"\n', "Error: limits must be a table, not 'fast'"),
                          ("upload_bytes = 5\n", "Error: upload_bytes must be a whole number from 1024"),
                          ("colour = 1\n", "unknown key 'colour'"),
                          ('deadline = "soon"\n', "Error: deadline must be a date and time")):
        settings.write_text(text)
        result = arena(db, "contest", "create", "course", "--game", "toy", "--config", settings)
        assert result.exit_code == 1 and message in result.stderr and len(result.stderr.splitlines()) == 1
