"""Submitting bots: names, the stored copy, versions, the build step and the validation match.

A submitted bot (a file, or a directory with a ``bot.toml``) is copied into the database's own
bot store under its content hash (`arena.results.botstore`), so later edits to the original
do not change what plays. Versions are per bot name and game: the same content again is the
same version; changed content is version n+1. A bot named from its path belongs to that path:
another file with the same name gets a longer name (its folder's name in front), with a note.

Before a version is accepted by `submit` its ``build`` step runs (if its ``bot.toml`` has one)
and it plays one validation match against the bundled random bot, which it must finish with
status ``ok``.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from arena import scratch
from arena.results import keys
from arena.results.botstore import store_copy
from arena.results.store import Store
from arena.runner.bots import BotError, resolve_bot
from arena.runner import cgroups, files
from arena.runner.files import BotFilesError, remove_tree
from arena.text import printable

MAX_NAME = 64
FORBIDDEN_IN_NAMES = set("/\\@,:;\"'`$<>|*?[]{}()=&#%!")
RANDOM_BOT = Path(__file__).resolve().parents[2] / "bots" / "random.py"
STDERR_TAIL_LINES = 20


class SubmitError(Exception):
    """A bot that cannot be submitted; the message is one line (plus a stderr tail)."""


@dataclass
class Submission:
    version: dict          # the bot_versions row (with game and name)
    created: bool          # False: this content was already that bot's version
    validation: dict | None = None  # the validation seat's result, when one was played
    notes: list[str] = field(default_factory=list)


def check_name(name: str) -> str:
    """``name`` if it can name a bot, else `SubmitError` saying why."""
    if not isinstance(name, str) or not name.strip():
        raise SubmitError("a bot name may not be empty")
    if len(name) > MAX_NAME:
        raise SubmitError(f"bad bot name {printable(name, False)[:80]!r}: at most {MAX_NAME} characters")
    for char in name:
        category = unicodedata.category(char)
        if category[0] in "CZ" or char in FORBIDDEN_IN_NAMES:
            raise SubmitError(f"bad bot name {printable(name, False)!r}: {printable(char, False)!r} is not allowed"
                              " (letters of any script, digits, '-', '_', '.' and '+' are)")
    if name.startswith(("-", ".")):
        raise SubmitError(f"bad bot name {name!r}: it may not start with '-' or '.'")
    return unicodedata.normalize("NFC", name)


def _base_name(path: Path) -> str:
    stem = path.stem if path.is_file() else path.name
    cleaned = "".join(c if c not in FORBIDDEN_IN_NAMES and unicodedata.category(c)[0] not in "CZ" else "-"
                      for c in unicodedata.normalize("NFC", stem)).strip("-. ")
    return cleaned[:MAX_NAME] or "bot"


def name_candidates(path: Path) -> list[str]:
    """Default names for the bot at ``path``, shortest first: ``bot``, ``alice-bot``, ..."""
    base = _base_name(path)
    names = [base]
    for parent in path.parents:
        if parent.name in ("", "/"):
            break
        prefix = _base_name(parent)
        names.append(f"{prefix}-{names[-1]}"[:MAX_NAME])
    return list(dict.fromkeys(names))


def default_name(store: Store, game: str, source: Path, taken: set[str] = frozenset()) -> tuple[str, str | None]:
    """The name a bot from ``source`` gets: its earlier name for this path, else the shortest
    candidate that no bot from another path has (and not in ``taken``); plus a note if longer."""
    earlier = store.names_by_source(game, str(source))
    if earlier:
        return earlier[0], None
    candidates = name_candidates(source)
    for candidate in candidates:
        if candidate in taken:
            continue
        others = store.sources_of(game, candidate)
        if not others or others == {str(source)}:
            note = None if candidate == candidates[0] else (
                f"a bot called {candidates[0]!r} already comes from another path; {source} is called"
                f" {candidate!r} (use --name to choose)")
            return candidate, note
    for number in range(2, 10_000):
        candidate = f"{candidates[0][:MAX_NAME - 6]}-{number}"
        if candidate not in taken and not store.sources_of(game, candidate):
            return candidate, f"{source} is called {candidate!r} (use --name to choose)"
    raise SubmitError(f"no free name for {source}; give one with --name")


def check_source(path: str | os.PathLike) -> Path:
    text = os.fspath(path)
    if not text or "\0" in text:
        raise SubmitError(f"not a path: {text!r}")
    source = Path(text).expanduser()
    try:
        if not source.exists():
            raise SubmitError(f"no such file or directory: {text}")
    except OSError as error:
        raise SubmitError(f"cannot read {text}: {error.strerror}") from None
    if not (source.is_file() or source.is_dir()):
        raise SubmitError(f"not a file or directory: {text}")
    return source.resolve()


def register(store: Store, path: str | os.PathLike, game: str, name: str | None = None,
             validate=None, build=None, taken: set[str] = frozenset()) -> Submission:
    """Copy the bot at ``path`` into the store as a version of ``name`` in ``game``.

    ``build(copy_path) -> (ok, log, (hash, relative))`` runs a ``bot.toml`` build step on a
    private copy (outside the store, removed afterwards: only the built copy is stored);
    ``validate(copy_path) -> (ok, seat_result)`` then plays its validation match; either
    failing raises ``SubmitError`` and records nothing. Without them (tournament entries given
    as paths) the version is recorded directly.
    """
    from arena.games import get_game

    get_game(game)  # UnknownGame for a bad name, before anything is copied
    source = check_source(path)
    notes: list[str] = []
    if name is not None:
        name = check_name(name)
    else:
        name, note = default_name(store, game, source, taken)
        if note:
            notes.append(note)
    try:
        command = resolve_bot(source)
    except BotError as error:
        raise SubmitError(str(error)) from None
    building = bool(command.build and build is not None)
    private = scratch.make(scratch.BUILD) if building else None
    try:
        return _register_copy(store, source, game, name, command, notes, validate, build, private)
    finally:
        if private is not None:
            remove_tree(private)


def _register_copy(store: Store, source: Path, game: str, name: str, command, notes: list[str], validate, build,
                   private: Path | None) -> Submission:
    """Copy, build (into ``private`` first: only the built copy is stored), validate, record."""
    try:
        if private is not None:  # a bot with a build is a folder (its bot.toml says so)
            copy = private / source.name
            digest = files.copy_bot(source, copy)
        else:
            digest, relative = store_copy(store.bot_store, source)
            copy = store.bot_store / relative
    except BotFilesError as error:
        raise SubmitError(str(error)) from None
    except OSError as error:
        raise SubmitError(f"cannot store a copy of {source} in {store.bot_store}: {error.strerror or error}") from None
    existing = store.find_version(game, name, content_hash=digest)
    if existing is not None:
        return Submission(existing, created=False, notes=notes)
    copies = [] if private is not None else [relative]
    try:
        stored_hash, build_log = digest, None
        if private is not None:
            ok, build_log, built = build(copy)
            if not ok:
                raise SubmitError(build_log)
            stored_hash, relative = built
            copies.append(relative)
            copy = store.bot_store / relative
        validation = None
        try:
            language = resolve_bot(copy).language
        except BotError as error:
            raise SubmitError(str(error)) from None
        if validate is not None:
            ok, validation = validate(copy)
            if not ok:
                raise SubmitError(rejection_message(name, validation))
        version, created = store.add_bot_version(game, name, language, digest, relative, str(source),
                                                 stored_hash=stored_hash, build_log=build_log)
    except BaseException:
        discard_unreferenced(store, copies)
        raise
    return Submission(version, created=created, validation=validation, notes=notes)


def sweep_leftovers(store: Store) -> None:
    """Remove what earlier commands killed with ``kill -9`` left: builds' and staged copies'
    folders, the cgroups of their bots and copies half-added to this store's bot store."""
    cgroups.remove_stale()
    scratch.sweep()
    scratch.sweep(store.bot_store, (scratch.INCOMING,))


def discard_unreferenced(store: Store, relatives: list[str]) -> None:
    """Remove stored copies no version refers to (a rejected submission leaves nothing).

    Done under the database's write lock, so a process recording the same copy at the same
    moment either sees it gone (and makes it again) or keeps it referenced."""
    from arena.runner.files import remove_tree

    try:
        with store.write():
            for relative in relatives:
                digest = relative.split("/", 1)[0]
                used = store.db.conn.execute("SELECT 1 FROM bot_versions WHERE path LIKE ? LIMIT 1",
                                             [f"{digest}/%"]).fetchone()
                if not used:
                    remove_tree(store.bot_store / digest)
    except Exception:
        pass  # leaving an unused copy behind is harmless


def rejection_message(name: str, seat: dict) -> str:
    message = (f"rejected {printable(name, False)}: its validation match against the random bot ended with"
               f" status {seat['status']}")
    if seat.get("error"):
        message += f" ({printable(seat['error'], False)})"
    tail = "\n".join(printable((seat.get("stderr") or "").rstrip()).splitlines()[-STDERR_TAIL_LINES:])
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
        secret = keys.secret_for("validation", seed)
        spec = MatchSpec(game=game, bots=[str(copy)] + [str(RANDOM_BOT)] * (players - 1),
                         seed=keys.deal_seed(secret, 0), bot_seeds=keys.bot_seeds(secret, 0, players))
        seat = play_match(spec).to_dict()["seats"][0]
        return seat["status"] == "ok", seat

    return validate


def submit(store: Store, path: str | os.PathLike, game: str, name: str | None = None) -> Submission:
    """`arena submit`: register with a build step (if any) and a validation match."""
    from arena.results.build import build_in_sandbox

    sweep_leftovers(store)
    return register(store, path, game, name, validate=validation_match(game), build=build_in_sandbox(store))


def expand(paths: list[str | os.PathLike]) -> tuple[list[Path], list[str]]:
    """The bots that ``paths`` name: a bot file or a folder with a ``bot.toml`` is one bot; any
    other folder holds bots (each file or folder in it is one). Returns (bots, notes)."""
    bots, notes = [], []
    for path in paths:
        source = check_source(path)
        if source.is_dir() and not (source / "bot.toml").is_file():
            children = sorted(p for p in source.iterdir() if not p.name.startswith("."))
            for child in children:
                if child.is_dir() and not (child / "bot.toml").is_file():
                    notes.append(f"skipping {child}: a folder without a bot.toml")
                    continue
                bots.append(child.resolve())
            if not children:
                notes.append(f"{source} holds no bot")
        else:
            bots.append(source)
    return bots, notes


@dataclass
class ManyOutcome:
    source: Path
    submission: Submission | None = None
    error: str | None = None


def submit_many(store: Store, paths: list, game: str, jobs: int | None = None) -> tuple[list[ManyOutcome], list[str]]:
    """Submit many bots at once, ``jobs`` at a time (each validation match runs in parallel).

    Names are given first, one after the other (so two bots never race for one name), then
    each bot is copied, built and validated with a store connection of its own."""
    from concurrent.futures import ThreadPoolExecutor

    from arena.games import get_game

    get_game(game)
    sources, notes = expand(paths)
    names, taken = [], set()
    for source in sources:
        name, note = default_name(store, game, source, taken)
        taken.add(name)
        names.append(name)
        if note:
            notes.append(note)

    def one(source: Path, name: str) -> ManyOutcome:
        try:
            with Store(store.path) as own:
                return ManyOutcome(source, submission=submit(own, source, game, name))
        except (SubmitError, ValueError, OSError) as error:
            return ManyOutcome(source, error=str(error))
        except Exception as error:  # one bad bot never stops the others
            return ManyOutcome(source, error=f"{type(error).__name__}: {error}")

    with ThreadPoolExecutor(max_workers=jobs or max(2, (os.cpu_count() or 1) * 2)) as pool:
        outcomes = list(pool.map(one, sources, names))
    return outcomes, notes
