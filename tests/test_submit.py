"""Submitting bots: managed copies, content versions, the validation match, bad input."""

from __future__ import annotations

import os

import pytest

from arena.games import UnknownGame
from arena.results.store import Store
from arena.results.submit import SubmitError, content_hash, submit
from botmaker import write_bot


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "results" / "arena.db") as opened:
        yield opened


@pytest.fixture
def source(tmp_path):
    return tmp_path / "src"


def test_a_submitted_bot_is_copied_so_later_edits_do_not_change_what_plays(store, source):
    path = write_bot(source, "mybot")
    version = submit(store, path, "toy").version
    copy = store.bot_path(version)
    assert copy.parent.parent.parent.parent == store.root / "bots"
    original = copy.read_text()
    with open(path, "a") as handle:
        handle.write("# edited\n")
    assert copy.read_text() == original
    assert (version["name"], version["version"], version["language"]) == ("mybot", 1, "python")


def test_the_same_content_again_creates_no_new_version(store, source):
    path = write_bot(source, "mybot")
    first = submit(store, path, "toy")
    again = submit(store, path, "toy")
    assert first.created and not again.created
    assert again.version["id"] == first.version["id"]
    assert len(store.bot_versions("toy")) == 1


def test_changed_content_creates_the_next_version(store, source):
    path = write_bot(source, "mybot")
    submit(store, path, "toy")
    with open(path, "a") as handle:
        handle.write("# better\n")
    second = submit(store, path, "toy")
    assert second.created and second.version["version"] == 2
    assert [v["version"] for v in store.bot_versions("toy", "mybot")] == [1, 2]


def test_name_defaults_to_the_file_stem_and_can_be_given(store, source):
    path = write_bot(source, "mybot")
    assert submit(store, path, "toy", name="champion").version["name"] == "champion"
    assert submit(store, path, "toy").version["name"] == "mybot"


def test_a_directory_bot_is_copied_whole_and_hashed_by_its_files(store, source):
    folder = source / "dirbot"
    write_bot(folder, "main")
    (folder / "bot.toml").write_text('command = ["python", "main.py"]\n')
    os.chmod(folder / "bot.toml", 0o644)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "junk.pyc").write_bytes(b"cache")
    version = submit(store, folder, "toy").version
    copy = store.bot_path(version)
    assert sorted(p.name for p in copy.iterdir()) == ["bot.toml", "main.py"]
    (folder / "__pycache__" / "more.pyc").write_bytes(b"more cache")
    assert content_hash(folder) == version["content_hash"]


def test_a_bot_that_fails_its_validation_match_is_rejected_with_its_stderr(store, source):
    path = write_bot(source, "broken", on_request='print("thinking hard", file=sys.stderr)\nreply({"oops": 1})')
    with pytest.raises(SubmitError) as error:
        submit(store, path, "toy")
    message = str(error.value)
    assert message.startswith("rejected broken: ") and "status protocol" in message
    assert "thinking hard" in message
    assert store.bot_versions() == []
    assert not (store.root / "bots" / "toy").exists()


def test_a_missing_path_is_a_one_line_error(store, tmp_path):
    with pytest.raises(SubmitError, match="^no such file or directory: .*nothere.py$"):
        submit(store, tmp_path / "nothere.py", "toy")


def test_an_unknown_game_is_refused(store, source):
    with pytest.raises(UnknownGame, match="unknown game 'chess'"):
        submit(store, write_bot(source, "mybot"), "chess")


def test_a_file_that_is_no_bot_is_refused(store, source):
    source.mkdir(parents=True)
    (source / "notes.txt").write_text("hello")
    with pytest.raises(SubmitError, match="not a .py or .js file"):
        submit(store, source / "notes.txt", "toy")


def test_a_bad_name_is_refused(store, source):
    with pytest.raises(SubmitError, match="bad bot name 'My Bot'"):
        submit(store, write_bot(source, "mybot"), "toy", name="My Bot")
