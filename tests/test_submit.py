"""Submitting bots: the database's own content-addressed copies, versions, names, safe copies,
the validation match, and bad input."""

from __future__ import annotations

import os

import pytest

from arena.games import UnknownGame
from arena.results.store import Store
from arena.results.submit import SubmitError, register, submit
from arena.runner.files import content_hash
from botmaker import write_bot


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "arena.db") as opened:
        yield opened


@pytest.fixture
def source(tmp_path):
    return tmp_path / "src"


def test_a_submitted_bot_is_copied_under_its_hash_so_later_edits_do_not_change_what_plays(store, source):
    path = write_bot(source, "mybot")
    version = submit(store, path, "toy").version
    copy = store.bot_path(version)
    assert copy == store.bot_store / version["content_hash"] / "mybot.py"
    assert store.bot_store == store.path.parent / "arena.db-bots"
    original = copy.read_text()
    with open(path, "a") as handle:
        handle.write("# edited\n")
    assert copy.read_text() == original
    assert (version["name"], version["version"], version["language"]) == ("mybot", 1, "python")


def test_the_stored_copy_is_read_only(store, source):
    copy = store.bot_path(submit(store, write_bot(source, "mybot"), "toy").version)
    assert os.stat(copy).st_mode & 0o222 == 0
    assert os.stat(copy.parent).st_mode & 0o222 == 0


def test_each_database_has_its_own_store(tmp_path, source):
    path = write_bot(source, "x")
    with Store(tmp_path / "a.db") as a, Store(tmp_path / "b.db") as b:
        first = submit(a, path, "toy").version
        with open(path, "a") as handle:
            handle.write("# b's version\n")
        submit(b, path, "toy")
        assert content_hash(a.bot_path(first)) == first["content_hash"]
        assert a.bot_store != b.bot_store


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
    assert register(store, write_bot(source / "other", "solo"), "toy").version["name"] == "solo"


def test_two_files_with_the_same_name_become_two_bots(store, tmp_path):
    alice = register(store, write_bot(tmp_path / "alice", "bot"), "toy")
    bob = register(store, write_bot(tmp_path / "bob", "bot", on_request='reply({"index": 1})'), "toy")
    assert alice.version["name"] == "bot"
    assert bob.version["name"] == "bob-bot" and bob.version["version"] == 1
    assert "already comes from another path" in bob.notes[0]


def test_a_path_keeps_its_name_for_later_versions(store, tmp_path):
    register(store, write_bot(tmp_path / "alice", "bot"), "toy")
    path = write_bot(tmp_path / "bob", "bot", on_request='reply({"index": 1})')
    register(store, path, "toy")
    with open(path, "a") as handle:
        handle.write("# v2\n")
    again = register(store, path, "toy")
    assert (again.version["name"], again.version["version"]) == ("bob-bot", 2)


def test_unicode_names_are_kept(store, source):
    assert register(store, write_bot(source, "ботик"), "toy").version["name"] == "ботик"


@pytest.mark.parametrize("name", ["", "   ", "a/b", "x@2", "a,b", "tab\there", "-dash", "x" * 65, "new\nline"])
def test_bad_names_are_refused(store, source, name):
    with pytest.raises(SubmitError, match="bot name"):
        submit(store, write_bot(source, "mybot"), "toy", name=name)


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


def dir_bot(folder):
    write_bot(folder, "main")
    (folder / "bot.toml").write_text('command = ["python", "main.py"]\n')
    os.chmod(folder / "bot.toml", 0o644)
    return folder


def test_a_symlink_leaving_the_bot_is_refused(store, source):
    folder = dir_bot(source / "linker")
    os.symlink("/etc/shadow", folder / "secret")
    with pytest.raises(SubmitError, match="secret is a symlink to /etc/shadow, outside the bot's folder"):
        submit(store, folder, "toy")
    assert store.bot_versions() == []


def test_a_symlink_inside_the_bot_is_kept_as_a_link(store, source):
    folder = dir_bot(source / "inner")
    os.symlink("main.py", folder / "alias.py")
    copy = store.bot_path(submit(store, folder, "toy").version)
    assert os.readlink(copy / "alias.py") == "main.py"


def test_a_device_file_or_fifo_is_refused(store, source):
    folder = dir_bot(source / "fifo")
    os.mkfifo(folder / "pipe")
    with pytest.raises(SubmitError, match="pipe .* is a FIFO"):
        submit(store, folder, "toy")


def test_a_hard_link_is_refused(store, source, tmp_path):
    folder = dir_bot(source / "hard")
    (tmp_path / "private").write_text("root only")
    os.chmod(tmp_path / "private", 0o600)
    os.link(tmp_path / "private", folder / "copy")
    with pytest.raises(SubmitError, match="copy is a hard link"):
        submit(store, folder, "toy")


def test_a_misspelt_bot_toml_key_is_named(store, source):
    folder = source / "typo"
    write_bot(folder, "main")
    (folder / "bot.toml").write_text('comand = "python main.py"\n')
    with pytest.raises(SubmitError, match="unknown key 'comand'"):
        submit(store, folder, "toy")


def test_a_bot_that_fails_its_validation_match_is_rejected_with_its_stderr_and_leaves_nothing(store, source):
    path = write_bot(source, "broken", on_request='print("thinking hard", file=sys.stderr)\nreply({"oops": 1})')
    with pytest.raises(SubmitError) as error:
        submit(store, path, "toy")
    message = str(error.value)
    assert message.startswith("rejected broken: ") and "status protocol" in message
    assert "thinking hard" in message
    assert store.bot_versions() == []
    assert [p.name for p in store.bot_store.iterdir()] == []


def test_a_rejected_bots_stderr_is_shown_escaped(store, source):
    path = write_bot(source, "liar", on_start='sys.stderr.write("\\x1b[2K\\raccepted: toy/liar v1\\n"); sys.exit(3)')
    with pytest.raises(SubmitError) as error:
        submit(store, path, "toy")
    assert "\x1b" not in str(error.value) and "\\x1b[2K\\raccepted" in str(error.value)


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
