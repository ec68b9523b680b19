"""What counts as a bot on disk, and the one-line errors for what does not."""

import os
import sys

import pytest

from arena.runner.bots import BotError, resolve_bot


def test_python_file_runs_with_the_harness_python(tmp_path):
    bot = tmp_path / "b.py"
    bot.write_text("")
    command = resolve_bot(bot)
    assert command.argv == (os.path.realpath(sys.executable), str(bot))
    assert command.language == "python"


def test_javascript_file_runs_with_node(tmp_path):
    bot = tmp_path / "b.js"
    bot.write_text("")
    command = resolve_bot(bot)
    assert command.argv[0].endswith("node") and command.argv[1] == str(bot)
    assert command.language == "javascript"


def test_executable_file_runs_directly(tmp_path):
    bot = tmp_path / "b"
    bot.write_text("#!/bin/sh\n")
    bot.chmod(0o755)
    assert resolve_bot(bot).argv == (str(bot),)


def test_non_executable_unknown_file_is_refused(tmp_path):
    bot = tmp_path / "b.txt"
    bot.write_text("")
    with pytest.raises(BotError, match="not executable"):
        resolve_bot(bot)


def test_directory_with_bot_toml_names_its_command(tmp_path):
    (tmp_path / "main.js").write_text("")
    (tmp_path / "bot.toml").write_text('command = "node main.js --fast"\n')
    command = resolve_bot(tmp_path)
    assert command.argv[1:] == (str(tmp_path / "main.js"), "--fast")
    assert command.root == str(tmp_path)


def test_bot_toml_python_means_the_harness_python(tmp_path):
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "bot.toml").write_text('command = ["python3", "bot.py"]\n')
    assert resolve_bot(tmp_path).argv == (os.path.realpath(sys.executable), str(tmp_path / "bot.py"))


def test_directory_without_bot_toml_is_refused(tmp_path):
    with pytest.raises(BotError, match="without a bot.toml"):
        resolve_bot(tmp_path)


@pytest.mark.parametrize("content", ['command = 5\n', 'command = ""\n', 'command = [\n'])
def test_bad_bot_toml_is_refused(tmp_path, content):
    (tmp_path / "bot.toml").write_text(content)
    with pytest.raises(BotError, match="bot.toml"):
        resolve_bot(tmp_path)


def test_missing_path_is_refused(tmp_path):
    with pytest.raises(BotError, match="bot not found"):
        resolve_bot(tmp_path / "nope.py")
