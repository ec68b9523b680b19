"""Creating a tournament: check everything, resolve its bots, store it with its schedule.

Nothing is written before every check has passed: the game, player count, options, limits,
every bot entry (names must exist, paths must be bots), and the schedule's size. Then path
entries are registered as versions (like `arena submit`, without the validation match) and the
tournament is stored with every scheduled match pending, its deals keyed by its secret.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace
from pathlib import Path
from typing import Callable

from arena.games import game_names, get_game
from arena.results import keys, sprt
from arena.results.humans import is_human
from arena.results.store import Store
from arena.results.submit import SubmitError, check_name, check_source, default_name, register
from arena.runner import files
from arena.runner.bots import BotError, resolve_bot
from arena.tournament.config import MAX_MATCHES, MAX_SEED, TournamentConfig, TournamentError, as_stored, check_config
from arena.tournament.formats import roundrobin

ALL_BOTS = "*"


def is_path(entry: str) -> bool:
    return ("/" in entry or os.sep in entry or Path(entry).suffix in (".py", ".js", ".mjs")
            or (Path(entry).exists() and "@" not in entry))


def available(config: TournamentConfig) -> tuple[TournamentConfig | None, list[str]]:
    """With ``skip_unavailable``: the config without missing bot files, or None if the game
    is not registered or too few bots remain; plus notes saying what was left out."""
    if not config.skip_unavailable:
        return config, []
    if config.game not in game_names():
        return None, [f"skipping {config.game}: the game is not available (known: {', '.join(game_names())})"]
    notes, bots = [], []
    for entry in config.bots:
        path = entry.get("path") if isinstance(entry, dict) else entry
        if isinstance(path, str) and is_path(path):
            try:
                resolve_bot(path)
            except BotError as error:
                notes.append(f"{config.game}: leaving out {path} ({error})")
                continue
        bots.append(entry)
    players = config.players or min(get_game(config.game).player_counts)
    if len(bots) < players:
        return None, notes + [f"skipping {config.game}: {len(bots)} bots available, {players} needed"]
    return replace(config, bots=bots), notes


class _Entry:
    """One bot entry, checked: either an existing version (by name) or a path to register."""

    def __init__(self, raw, version: dict | None = None, source: Path | None = None, name: str | None = None,
                 digest: str | None = None, limits: dict | None = None):
        self.raw, self.version, self.source, self.name, self.digest = raw, version, source, name, digest
        self.limits = limits

    def label(self) -> str:
        return self.raw if isinstance(self.raw, str) else str(self.raw.get("path"))


def _parse_entries(store: Store, game: str, entries: list) -> list[_Entry]:
    parsed: list[_Entry] = []
    for raw in entries:
        if isinstance(raw, dict):
            parsed.append(_path_entry(raw, raw["path"], raw.get("name"), raw.get("limits")))
        elif raw == ALL_BOTS:
            versions = _latest_versions(store, game)
            if not versions:
                raise TournamentError(f"'{ALL_BOTS}' means every submitted {game} bot, but there is none yet")
            parsed.extend(_Entry(f"{v['name']}@{v['version']}", version=v) for v in versions)
        elif is_path(raw):
            parsed.append(_path_entry(raw, raw, None, None))
        else:
            parsed.append(_Entry(raw, version=_named_version(store, game, raw)))
    return parsed


def _path_entry(raw, path: str, name: str | None, limits: dict | None) -> _Entry:
    try:
        source = check_source(path)
        resolve_bot(source)
        digest = files.content_hash(source)
        if name is not None:
            name = check_name(name)
    except (SubmitError, BotError, files.BotFilesError) as error:
        raise TournamentError(str(error)) from None
    return _Entry(raw, source=source, name=name, digest=digest, limits=limits)


def _latest_versions(store: Store, game: str) -> list[dict]:
    latest: dict[str, dict] = {}
    for version in store.bot_versions(game, include_withdrawn=False):
        if not is_human(version):  # a person plays only by hand (`arena play`)
            latest[version["name"]] = version  # ordered by version: the last one wins
    return [latest[name] for name in sorted(latest)]


def split_version(entry: str) -> tuple[str, int | None]:
    """``name`` or ``name@2`` -> (name, version or None)."""
    name, at, version_text = entry.partition("@")
    if not at:
        return name, None
    try:
        version = int(version_text.lstrip("v"))
        if version < 1 or version > 1 << 62:
            raise ValueError
    except ValueError:
        raise TournamentError(f"bad version in {entry!r} (write name@2)") from None
    return name, version


def _named_version(store: Store, game: str, entry: str) -> dict:
    name, version = split_version(entry)
    found = store.find_version(game, name, version)
    if found is None:
        known = sorted({row["name"] for row in store.bot_versions(game) if not is_human(row)})
        if version is not None and name in known:
            what = f"bot {name!r} has no version {version}"
        elif Path(entry).suffix or "." in entry:
            what = f"no bot or file {entry!r}"
        else:
            what = f"unknown bot {name!r}"
        shown = ", ".join(known[:20]) + (f", ... ({len(known)} in all)" if len(known) > 20 else "")
        raise TournamentError(f"{what} for {game} (known: {shown or 'none; submit one or give a path'})")
    if is_human(found):
        raise TournamentError(f"{found['name']} is a person (who played with arena play), not a bot")
    if found["bot_withdrawn"] or (found["version_withdrawn"] and version is None):
        raise TournamentError(f"{found['name']} v{found['version']} is withdrawn (arena bots reinstate {found['name']})")
    return found


def _name_paths(store: Store, game: str, parsed: list[_Entry]) -> list[str]:
    """Default names for path entries: two different files never share one (both are told)."""
    notes = []
    taken = {e.version["name"] for e in parsed if e.version is not None} | {e.name for e in parsed if e.name}
    unnamed = [e for e in parsed if e.version is None and e.name is None]
    by_base: dict[str, set[str]] = {}
    for entry in unnamed:
        by_base.setdefault(_base(entry.source), set()).add(str(entry.source))
    for entry in unnamed:
        clash = len(by_base[_base(entry.source)]) > 1
        name, note = default_name(store, game, entry.source, taken | ({_base(entry.source)} if clash else set()))
        if clash:
            note = (f"{len(by_base[_base(entry.source)])} bots here are called {_base(entry.source)!r}:"
                    f" {entry.source} is {name!r}")
        entry.name = name
        taken.add(name)
        if note:
            notes.append(note)
    return notes


def _base(source: Path) -> str:
    from arena.results.submit import name_candidates

    return name_candidates(source)[0]


def create(store: Store, config: TournamentConfig, notes: list[str] | None = None,
           before_storing: Callable[[], None] | None = None) -> int:
    """Check the configuration, resolve the bots, store the tournament and its schedule.

    ``before_storing`` is called just before the tournament's row is written (the command line
    makes signals stop the run from there on, instead of ending the command)."""
    check_config(config)
    game = get_game(config.game)
    players = config.players or min(game.player_counts)
    options = game.validate(players, config.options)
    if not config.bots:
        raise TournamentError("a tournament needs bots (--bots or 'bots = [...]')")
    candidates = _parse_entries(store, config.game, config.candidates) if config.format == "gauntlet" else []
    field = _parse_entries(store, config.game, config.field) if config.format == "sprt" else []
    parsed = candidates + _parse_entries(store, config.game, config.bots) + field
    roles = (["candidate"] * len(candidates) + ["field"] * (len(parsed) - len(candidates)) if candidates else
             ["new", "old"] + ["field"] * len(field) if config.format == "sprt" else [None] * len(parsed))
    _refuse_twice(parsed)
    if len(parsed) < players:
        raise TournamentError(f"{players}-player matches need at least {players} bots, got {len(parsed)}")
    if config.finals and not players <= config.finals[-1][0] <= config.finals[0][0] <= len(parsed):
        raise TournamentError(f"finals of {config.finals[0][0]} down to {config.finals[-1][0]} finalists need at least"
                              f" {config.finals[0][0]} bots and {players} finalists a final ({len(parsed)} bots,"
                              f" {players}-player matches)")
    if config.format == "sprt" and players > 2 and len(field) < players - 1:
        raise TournamentError(f"an SPRT of {players}-player matches needs a field of at least {players - 1} bots"
                              f" (--field), got {len(field)}")
    seed = config.seed if config.seed is not None else random.SystemRandom().randrange(MAX_SEED)
    schedule = _first_schedule(config, len(parsed), len(candidates), players, seed)
    secret = keys.secret_for("tournament", seed)
    # Everything is checked: from here on the store is written.
    (notes if notes is not None else []).extend(_name_paths(store, config.game, parsed))
    versions = []
    for entry in parsed:
        if entry.version is None:
            try:
                entry.version = register(store, entry.source, config.game, entry.name, build=_builder(store)).version
            except SubmitError as error:
                raise TournamentError(str(error)) from None
        versions.append(entry.version)
    _refuse_same_version(parsed)
    schedule = [replace(match, seed=keys.deal_seed(secret, match.deal)) for match in schedule]
    stored = {**as_stored(config), "players": players, "seed": seed, "options": options,
              "bots": [e.raw for e in parsed],
              "entry_limits": {str(i): e.limits for i, e in enumerate(parsed) if e.limits}}
    if before_storing is not None:
        before_storing()
    tournament_id = store.create_tournament(name=config.name, game=config.game, players=players,
                                            rounds=config.rounds, seed=seed, options=options, config=stored,
                                            entries=[v["id"] for v in versions], schedule=schedule, secret=secret,
                                            format=config.format, roles=roles)
    if config.format == "sprt":
        from arena.tournament import plans

        sprt.save(store, tournament_id, plans.plan_for(store.tournament(tournament_id), len(versions))
                  .state(plans.look(store, tournament_id)))
    return tournament_id


def _first_schedule(config: TournamentConfig, entries: int, candidates: int, players: int, seed: int) -> list:
    """What a tournament of ``config``'s format plays first (all of it, for static formats)."""
    from arena.tournament import plans
    from arena.tournament.formats import gauntlet

    if config.format == "gauntlet":
        total = gauntlet.match_count(candidates, entries - candidates, players, config.rounds, config.duplicate)
    elif config.format == "round-robin":
        total = roundrobin.match_count(entries, players, config.rounds, config.duplicate)
    else:
        total = 0
    if total > MAX_MATCHES:
        raise TournamentError(f"that schedule has {total:,} matches; at most {MAX_MATCHES:,} fit one tournament"
                              " (fewer rounds or bots)")
    try:
        if config.format == "gauntlet":
            return gauntlet.gauntlet(list(range(candidates)), list(range(candidates, entries)), players,
                                     config.rounds, seed, config.duplicate)
        if config.format == "swiss":
            return plans.Swiss(players, config.rounds, config.duplicate, seed).first_round(entries)
        if config.format == "sprt":
            return plans.Sprt(players, seed, config.batch, config.max_matches, config.elo0, config.elo1,
                              config.alpha, config.beta, entries - 2).first_batch()
        if config.format == "ladder":
            if config.max_matches is None and not config.until_stable:
                raise TournamentError("a ladder needs a stopping rule: max_matches (--until N) or until_stable")
            return []  # planned batch by batch from the ratings, from the first run on
        return roundrobin.round_robin(entries, players, config.rounds, seed, duplicate=config.duplicate)
    except ValueError as error:
        raise TournamentError(str(error)) from None


def _builder(store: Store):
    """A path with a build step is built as `arena submit` builds it (in the sandbox)."""
    from arena.results.build import build_in_sandbox
    return build_in_sandbox(store)


def resolve_one(store: Store, game: str, entry: str) -> dict:
    """The bot version one entry names (a path is registered, as for a tournament)."""
    parsed = _parse_entries(store, game, [entry])
    if len(parsed) != 1:
        raise TournamentError(f"{entry!r} names {len(parsed)} bots; give one")
    found = parsed[0]
    if found.version is None:
        _name_paths(store, game, parsed)
        try:
            found.version = register(store, found.source, game, found.name, build=_builder(store)).version
        except SubmitError as error:
            raise TournamentError(str(error)) from None
    return found.version


def _refuse_twice(parsed: list[_Entry]) -> None:
    seen: dict = {}
    for entry in parsed:
        key = ("version", entry.version["id"]) if entry.version is not None else ("file", str(entry.source))
        if key in seen:
            raise TournamentError(f"{entry.label()} and {seen[key]} are the same bot; each may enter once")
        seen[key] = entry.label()


def _refuse_same_version(parsed: list[_Entry]) -> None:
    seen: dict[int, str] = {}
    for entry in parsed:
        version = entry.version
        if version["id"] in seen:
            raise TournamentError(f"{entry.label()} and {seen[version['id']]} are the same bot version "
                                  f"({version['name']} v{version['version']}); each may enter once")
        seen[version["id"]] = entry.label()


__all__ = ["ALL_BOTS", "available", "create", "is_path"]
