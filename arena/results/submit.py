"""Submitting bots: content hashing, the managed copy, versions, and the validation match.

A submitted bot (a file, or a directory with a ``bot.toml``) is copied to
``bots/<game>/<name>/v<n>/`` next to the database, so later edits to the original do not
change what plays. Versions are per bot name and game: the same content again is the same
version; changed content is version n+1. Before a version is accepted by `submit` it plays one
validation match against the bundled random bot and must finish it with status ``ok``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from arena.results.store import Store

# Files that are not part of a bot's content (caches and version control).
IGNORED = ("__pycache__", "*.pyc", ".git", ".DS_Store", "node_modules/.cache")
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
RANDOM_BOT = Path(__file__).resolve().parents[2] / "bots" / "random.py"
STDERR_TAIL_LINES = 20


class SubmitError(Exception):
    """A bot that cannot be submitted; the message is one line (plus a stderr tail)."""


@dataclass
class Submission:
    version: dict          # the bot_versions row (with game and name)
    created: bool          # False: this content was already that bot's version
    validation: dict | None = None  # the validation seat's result, when one was played


def _ignored(name: str) -> bool:
    return any(Path(name).match(pattern) for pattern in IGNORED)


def bot_files(path: Path) -> list[Path]:
    """The files that make up a bot, relative to ``path`` (a directory) — sorted, caches left out."""
    files = []
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not _ignored(d))
        for name in sorted(names):
            if not _ignored(name):
                files.append((Path(root) / name).relative_to(path))
    return sorted(files)


def content_hash(path: str | os.PathLike) -> str:
    """sha256 over the bot's file names, executable bits and contents."""
    target = Path(path)
    digest = hashlib.sha256()
    entries = [(Path(target.name), target)] if target.is_file() else [(rel, target / rel) for rel in bot_files(target)]
    for relative, full in entries:
        executable = "x" if os.access(full, os.X_OK) else "-"
        digest.update(f"{relative.as_posix()}\0{executable}\0{full.stat().st_size}\0".encode())
        with open(full, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 16), b""):
                digest.update(chunk)
    return digest.hexdigest()


def default_name(path: Path) -> str:
    """A bot's name from its path: the file stem or directory name, lower-cased."""
    stem = path.stem if path.is_file() else path.name
    name = re.sub(r"[^a-z0-9_.-]+", "-", stem.lower()).strip("-.") or "bot"
    return name[:64]


def check_source(path: str | os.PathLike) -> Path:
    source = Path(path).expanduser()
    if not source.exists():
        raise SubmitError(f"no such file or directory: {path}")
    if not (source.is_file() or source.is_dir()):
        raise SubmitError(f"not a file or directory: {path}")
    return source.resolve()


def register(store: Store, path: str | os.PathLike, game: str, name: str | None = None,
             validate=None) -> Submission:
    """Copy the bot at ``path`` into the store as a version of ``name`` in ``game``.

    ``validate(copy_path) -> (ok, seat_result)`` runs before a new version is recorded; a
    failure removes the copy and raises ``SubmitError``. Without it (tournament entries
    given as paths) the version is recorded directly.
    """
    from arena.runner.bots import BotError, resolve_bot
    from arena.games import get_game

    get_game(game)  # UnknownGame for a bad name, before anything is copied
    source = check_source(path)
    name = name or default_name(source)
    if not NAME_PATTERN.match(name):
        raise SubmitError(f"bad bot name {name!r}: use lower-case letters, digits, '-', '_' or '.' (at most 64)")
    try:
        resolve_bot(source)
    except BotError as error:
        raise SubmitError(str(error)) from None
    digest = content_hash(source)
    existing = store.find_version(game, name, content_hash=digest)
    if existing is not None:
        return Submission(existing, created=False)
    number = store.next_version_number(game, name)
    relative = Path("bots") / game / name / f"v{number}" / source.name
    copy = store.root / relative
    if copy.parent.exists():
        shutil.rmtree(copy.parent)  # left over from a copy that was never recorded
    copy.parent.mkdir(parents=True)
    if source.is_dir():
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(*IGNORED), symlinks=False)
    else:
        shutil.copy2(source, copy)
    _make_readable(store.root / "bots", copy)
    validation = None
    try:
        language = resolve_bot(copy).language
        if validate is not None:
            ok, validation = validate(copy)
            if not ok:
                raise SubmitError(rejection_message(name, validation))
        version = store.add_bot_version(game, name, language, digest, relative.as_posix(), str(source))
    except BaseException:
        shutil.rmtree(copy.parent, ignore_errors=True)
        for folder in (copy.parent.parent, copy.parent.parent.parent):  # the bot's and game's, if now empty
            if folder.exists() and not any(folder.iterdir()):
                folder.rmdir()
        raise
    return Submission(version, created=True, validation=validation)


def _make_readable(top: Path, copy: Path) -> None:
    """World-readable copy and folders: as root, the sandbox runs bots as an unprivileged user."""
    folder = copy.parent
    while folder != top.parent and top in (folder, *folder.parents):
        folder.chmod(0o755)
        folder = folder.parent
    walk = [(str(copy.parent), [], [copy.name])] if copy.is_file() else os.walk(copy)
    for root, dirs, names in walk:
        Path(root).chmod(0o755)
        for name in names:
            path = Path(root) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.stat().st_mode & 0o100 else 0))


def rejection_message(name: str, seat: dict) -> str:
    message = f"rejected {name}: its validation match against the random bot ended with status {seat['status']}"
    if seat.get("error"):
        message += f" ({seat['error']})"
    tail = "\n".join((seat.get("stderr") or "").rstrip().splitlines()[-STDERR_TAIL_LINES:])
    if tail:
        message += f"\n--- last lines of its stderr ---\n{tail}"
    return message


def validation_match(game: str, seed: int = 1):
    """The validator `submit` uses: the bot in seat 0 against the random bot, fewest players."""
    from arena.games import get_game
    from arena.runner.match import MatchSpec, play_match

    players = min(get_game(game).player_counts)

    def validate(copy: Path) -> tuple[bool, dict]:
        if not RANDOM_BOT.exists():
            raise SubmitError(f"the random bot {RANDOM_BOT} is missing; cannot validate")
        spec = MatchSpec(game=game, bots=[str(copy)] + [str(RANDOM_BOT)] * (players - 1), seed=seed)
        seat = play_match(spec).to_dict()["seats"][0]
        return seat["status"] == "ok", seat

    return validate


def submit(store: Store, path: str | os.PathLike, game: str, name: str | None = None) -> Submission:
    """`arena submit`: register with a validation match."""
    return register(store, path, game, name, validate=validation_match(game))
