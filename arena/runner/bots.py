"""What a bot is on disk, and the command that starts it.

A bot is one of:

* a ``.py`` file — run with the harness's own Python;
* a ``.js`` or ``.mjs`` file — run with ``node``;
* any other executable file — run directly (a script needs a shebang line; a compiled
  program is an ELF binary);
* a directory with a ``bot.toml`` that names its ``command`` (a string or a list). Each word of
  the command that names a file inside the directory is that file; the words ``python`` and
  ``python3`` mean the harness's Python, ``node`` means Node.js. It may also name a ``build``
  command (run once when the bot is submitted), its ``language``, and ``matches = "many"``
  when one process can play many matches in a row (protocol v2).

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

MANIFEST_KEYS = ("command", "language", "build", "matches", "games")
MATCHES_VALUES = ("one", "many")


class BotError(ValueError):
    """A path that is not a runnable bot; the message is one line, for a user."""


@dataclass(frozen=True)
class BotCommand:
    """How to start one bot: ``argv``, the language, and where its own files are."""

    path: str  # the file or directory the user named, absolute
    argv: tuple[str, ...]
    language: str  # python | javascript | executable | whatever bot.toml says
    root: str  # directory holding the bot's own files (read-only inside the sandbox)
    matches: str | None = None  # "many" / "one" from bot.toml; None: the ready answer says
    build: str | None = None  # bot.toml's build command, run at submission
    games: tuple[str, ...] | None = None  # the games bot.toml says it plays (None: any)


def _node() -> str:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise BotError("a JavaScript bot needs Node.js, but 'node' is not on PATH")
    return node


def python() -> str:
    """The Python that runs Python bots: the harness's base interpreter, by its real path,
    never the virtual environment arena may be installed in (whose packages and path a bot
    has no business seeing: the sandbox binds the interpreter's install folder, not the venv)."""
    return os.path.realpath(sys.executable)


def _interpreter(word: str) -> str | None:
    if word in ("python", "python3"):
        return python()
    if word in ("node", "nodejs"):
        return _node()
    return None


def read_manifest(directory: Path) -> dict:
    """The checked contents of ``directory/bot.toml``; `BotError` names the first problem."""
    manifest = directory / "bot.toml"
    try:
        config = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise BotError(f"{manifest}: bot.toml is not UTF-8 text") from None
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise BotError(f"{manifest}: cannot read bot.toml ({error})") from None
    unknown = sorted(set(config) - set(MANIFEST_KEYS))
    if unknown:
        raise BotError(f"{manifest}: unknown key {unknown[0]!r} (known: {', '.join(MANIFEST_KEYS)})")
    if "command" not in config:
        raise BotError(f"{manifest}: bot.toml needs a 'command' (e.g. command = \"python bot.py\")")
    command = config["command"]
    if isinstance(command, str):
        try:
            words = shlex.split(command)
        except ValueError as error:
            raise BotError(f"{manifest}: cannot split 'command' ({error})") from None
    elif isinstance(command, list) and all(isinstance(word, str) for word in command):
        words = list(command)
    else:
        raise BotError(f"{manifest}: 'command' must be a string or a list of strings")
    if not words or not words[0]:
        raise BotError(f"{manifest}: 'command' is empty")
    if any("\0" in word for word in words):
        raise BotError(f"{manifest}: 'command' contains a NUL character")
    for key in ("language", "build"):
        if key in config and not isinstance(config[key], str):
            raise BotError(f"{manifest}: '{key}' must be a string")
    if "build" in config and not config["build"].strip():
        raise BotError(f"{manifest}: 'build' is empty")
    if "matches" in config and config["matches"] not in MATCHES_VALUES:
        raise BotError(f"{manifest}: 'matches' must be \"one\" or \"many\", not {config['matches']!r}")
    games = config.get("games")
    if games is not None and (not isinstance(games, list) or not all(isinstance(g, str) for g in games) or not games):
        raise BotError(f"{manifest}: 'games' must be a list of game names, e.g. games = [\"five-towers\"]")
    return {**config, "words": words}


def _from_toml(directory: Path) -> BotCommand:
    config = read_manifest(directory)
    argv = []
    for word in config["words"]:
        local = directory / word
        interpreter = _interpreter(word)
        if interpreter is not None:
            argv.append(interpreter)
        elif not os.path.isabs(word) and _inside(directory, local) and local.exists():
            argv.append(os.path.normpath(str(directory / word)))
        else:
            argv.append(word)
    language = config.get("language")
    if not isinstance(language, str):
        language = _language_of(Path(argv[-1])) if len(argv) > 1 else "executable"
    return BotCommand(str(directory), tuple(argv), language, str(directory), config.get("matches"),
                      config.get("build"), tuple(config["games"]) if config.get("games") else None)


def require_built(command: BotCommand) -> None:
    """Refuse, with the fix, a bot whose program its own ``build`` step has not made yet (an
    unbuilt starter kit would otherwise fail at start-up with a bare "No such file")."""
    if command.build is None:
        return
    program = command.argv[0]
    if not os.path.isabs(program) and "/" in program:
        raise BotError(f"{command.path}: {program} does not exist yet: build the bot first (in its folder: "
                       f"{command.build}), or `arena submit` it, which runs the build")


def _inside(directory: Path, path: Path) -> bool:
    """Whether ``path`` names something in ``directory`` (``..`` never leaves it)."""
    normal = os.path.normpath(str(path))
    return normal == str(directory) or normal.startswith(str(directory) + os.sep)


def _language_of(path: Path) -> str:
    return {".py": "python", ".js": "javascript", ".mjs": "javascript"}.get(path.suffix, "executable")


def resolve_bot(path: str | os.PathLike) -> BotCommand:
    """The command for the bot at ``path``, or ``BotError`` saying why it cannot run."""
    text = os.fspath(path)
    if not text or "\0" in text:
        raise BotError(f"not a bot path: {text!r}")
    target = Path(text).expanduser()
    try:
        exists = target.exists()
    except OSError as error:
        raise BotError(f"cannot read {text}: {error.strerror}") from None
    if not exists:
        raise BotError(f"bot not found: {text}")
    target = target.resolve()
    if target.is_dir():
        if not (target / "bot.toml").is_file():
            raise BotError(f"{text} is a directory without a bot.toml (it must name the bot's command)")
        return _from_toml(target)
    if not target.is_file():
        raise BotError(f"{text} is not a regular file or a directory")
    language = _language_of(target)
    if language == "python":
        argv = (python(), str(target))
    elif language == "javascript":
        argv = (_node(), str(target))
    elif os.access(target, os.X_OK):
        argv = (str(target),)
    else:
        raise BotError(f"{text} is not a .py or .js file and not executable (chmod +x, with a shebang line)")
    return BotCommand(str(target), argv, language, str(target.parent))
