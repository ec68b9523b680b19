"""What a bot is on disk, and the command that starts it.

A bot is one of:

* a ``.py`` file — run with the harness's own Python;
* a ``.js`` or ``.mjs`` file — run with ``node``;
* any other executable file — run directly (it needs a shebang line);
* a directory with a ``bot.toml`` that names its ``command`` (a string or a list). Each word of
  the command that names a file inside the directory is made absolute; the words ``python``
  and ``python3`` mean the harness's Python, ``node`` means Node.js.

Knows nothing of games or processes.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


class BotError(ValueError):
    """A path that is not a runnable bot; the message is one line, for a user."""


@dataclass(frozen=True)
class BotCommand:
    """How to start one bot: ``argv``, the language, and the files it needs to read."""

    path: str  # the file or directory the user named, absolute
    argv: tuple[str, ...]
    language: str  # python | javascript | executable | whatever bot.toml says
    root: str  # directory holding the bot's own files (read-only inside the sandbox)


def _node() -> str:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise BotError("a JavaScript bot needs Node.js, but 'node' is not on PATH")
    return node


def _interpreter(word: str) -> str | None:
    if word in ("python", "python3"):
        return os.path.abspath(sys.executable)
    if word in ("node", "nodejs"):
        return _node()
    return None


def _from_toml(directory: Path) -> BotCommand:
    manifest = directory / "bot.toml"
    try:
        config = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise BotError(f"{manifest}: cannot read bot.toml ({error})") from None
    command = config.get("command")
    if isinstance(command, str):
        words = shlex.split(command)
    elif isinstance(command, list) and all(isinstance(word, str) for word in command):
        words = list(command)
    else:
        raise BotError(f"{manifest}: 'command' must be a string or a list of strings")
    if not words:
        raise BotError(f"{manifest}: 'command' is empty")
    argv = []
    for word in words:
        local = directory / word
        if _interpreter(word) is not None:
            argv.append(_interpreter(word))
        elif not os.path.isabs(word) and local.exists():
            argv.append(str(local.resolve()))
        else:
            argv.append(word)
    language = config.get("language")
    if not isinstance(language, str):
        language = _language_of(Path(argv[-1])) if len(argv) > 1 else "executable"
    return BotCommand(str(directory), tuple(argv), language, str(directory))


def _language_of(path: Path) -> str:
    return {".py": "python", ".js": "javascript", ".mjs": "javascript"}.get(path.suffix, "executable")


def resolve_bot(path: str | os.PathLike) -> BotCommand:
    """The command for the bot at ``path``, or ``BotError`` saying why it cannot run."""
    target = Path(path).expanduser()
    if not target.exists():
        raise BotError(f"bot not found: {path}")
    target = target.resolve()
    if target.is_dir():
        if not (target / "bot.toml").is_file():
            raise BotError(f"{path} is a directory without a bot.toml (it must name the bot's command)")
        return _from_toml(target)
    language = _language_of(target)
    if language == "python":
        argv = (os.path.abspath(sys.executable), str(target))
    elif language == "javascript":
        argv = (_node(), str(target))
    elif os.access(target, os.X_OK):
        argv = (str(target),)
    else:
        raise BotError(f"{path} is not a .py or .js file and not executable (chmod +x, with a shebang line)")
    return BotCommand(str(target), argv, language, str(target.parent))
