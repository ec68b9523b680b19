"""Tournaments: configuration (flags or a TOML file), creation, and running on a process pool.

Creating a tournament stores every scheduled match as 'pending'. Running it plays the pending
matches on a `multiprocess` pool and commits each one as soon as it finishes (so ``kill -9``
loses at most the matches that were running); `arena.results.store` applies ratings in schedule order.
Resuming is running again: exactly the matches still pending are played.

Ctrl-C (or SIGTERM) stops cleanly: no new match starts, the running ones finish and are
stored; a second one abandons them (they stay pending and are played on resume).
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from arena.games import get_game, game_names
from arena.tournament.formats.roundrobin import round_robin
from arena.results.store import Store, StoreError, pack_result_logs
from arena.results.submit import SubmitError, register

CONFIG_KEYS = {"name", "game", "bots", "players", "rounds", "options", "seed", "workers", "limits",
               "skip_unavailable"}
POLL_SECONDS = 0.02


class TournamentError(Exception):
    """A bad tournament configuration or request; the message is one line."""


@dataclass
class TournamentConfig:
    game: str
    bots: list                      # entries: bot names ("name" or "name@2") or paths
    players: int | None = None      # default: the game's smallest player count
    rounds: int = 1
    options: dict = field(default_factory=dict)
    seed: int | None = None         # default: a random seed, stored and printed
    name: str | None = None
    workers: int | None = None      # default: one per core
    limits: dict = field(default_factory=dict)   # overrides of arena.runner.match.Limits fields
    skip_unavailable: bool = False  # leave out missing games and bot files (the demo uses it)


def load_file(path: str | os.PathLike) -> list[TournamentConfig]:
    """The tournaments a TOML file describes, in file order.

    Top-level keys configure one tournament; with ``[[tournament]]`` tables, each table is a
    tournament and the top-level keys are defaults for all of them. Relative bot paths are
    relative to the current directory (run from the project root).
    """
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise TournamentError(f"no such file: {path}") from None
    except tomllib.TOMLDecodeError as error:
        raise TournamentError(f"{path}: not valid TOML ({error})") from None
    tables = data.pop("tournament", None)
    if tables is None:
        tables = [{}]
    elif not isinstance(tables, list):
        raise TournamentError(f"{path}: 'tournament' must be an array of tables ([[tournament]])")
    configs = []
    for number, table in enumerate(tables, 1):
        merged = {**data, **table}
        unknown = sorted(set(merged) - CONFIG_KEYS)
        if unknown:
            raise TournamentError(f"{path}: unknown key {unknown[0]!r} (known: {', '.join(sorted(CONFIG_KEYS))})")
        if "game" not in merged or "bots" not in merged:
            raise TournamentError(f"{path}: tournament {number} needs 'game' and 'bots'")
        configs.append(TournamentConfig(**merged))
    return configs


def parse_options(pairs: list[str]) -> dict:
    """``key=value`` strings from the command line (values are typed by the game)."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise TournamentError(f"option {pair!r} must look like key=value")
        options[key.strip()] = value.strip()
    return options


def _is_path(entry: str) -> bool:
    return "/" in entry or os.sep in entry or Path(entry).suffix in (".py", ".js", ".mjs") or Path(entry).exists()


def resolve_entry(store: Store, game: str, entry) -> dict:
    """A bot version for a tournament entry: a submitted bot's name (``name`` = latest,
    ``name@3``) or a path (registered as a version without a validation match)."""
    if isinstance(entry, dict):
        if "path" not in entry:
            raise TournamentError(f"bot entry {entry!r} needs a 'path'")
        return register(store, entry["path"], game, entry.get("name")).version
    entry = str(entry)
    if _is_path(entry):
        return register(store, entry, game).version
    name, _, version_text = entry.partition("@")
    version = None
    if version_text:
        try:
            version = int(version_text.lstrip("v"))
        except ValueError:
            raise TournamentError(f"bad version in {entry!r} (write name@2)") from None
    found = store.find_version(game, name, version)
    if found is None:
        known = sorted({row["name"] for row in store.bot_versions(game)})
        what = f"bot {name!r} has no version {version}" if version and known.count(name) else f"unknown bot {name!r}"
        raise TournamentError(f"{what} for {game} (known: {', '.join(known) or 'none; submit one or give a path'})")
    return found


def available(config: TournamentConfig) -> tuple[TournamentConfig | None, list[str]]:
    """With ``skip_unavailable``: the config without missing bot files, or None if the game
    is not registered or too few bots remain; plus notes saying what was left out."""
    if not config.skip_unavailable:
        return config, []
    if config.game not in game_names():
        return None, [f"skipping {config.game}: the game is not available (known: {', '.join(game_names())})"]
    from arena.runner.bots import BotError, resolve_bot

    notes, bots = [], []
    for entry in config.bots:
        path = entry.get("path") if isinstance(entry, dict) else entry
        if isinstance(path, str) and _is_path(path):
            try:
                resolve_bot(path)
            except BotError as error:
                notes.append(f"{config.game}: leaving out {path} ({error})")
                continue
        bots.append(entry)
    players = config.players or min(get_game(config.game).player_counts)
    if len(bots) < players:
        return None, notes + [f"skipping {config.game}: {len(bots)} bots available, {players} needed"]
    return TournamentConfig(**{**asdict(config), "bots": bots}), notes


def create(store: Store, config: TournamentConfig) -> int:
    """Validate the configuration, resolve the bots, store the tournament and its schedule."""
    game = get_game(config.game)
    players = config.players or min(game.player_counts)
    options = game.validate(players, config.options)
    _check_limits(config.limits)
    if not config.bots:
        raise TournamentError("a tournament needs bots (--bots or 'bots = [...]')")
    try:
        versions = [resolve_entry(store, config.game, entry) for entry in config.bots]
    except SubmitError as error:
        raise TournamentError(str(error)) from None
    seen: dict[int, str] = {}
    for entry, version in zip(config.bots, versions):
        if version["id"] in seen:
            raise TournamentError(f"{entry} and {seen[version['id']]} are the same bot version "
                                  f"({version['name']} v{version['version']}); each may enter once")
        seen[version["id"]] = str(entry)
    seed = config.seed if config.seed is not None else random.SystemRandom().randrange(1 << 31)
    try:
        schedule = round_robin(len(versions), players, config.rounds, seed)
    except ValueError as error:
        raise TournamentError(str(error)) from None
    stored_config = {**asdict(config), "players": players, "seed": seed, "options": options,
                     "bots": [str(entry) if not isinstance(entry, dict) else entry for entry in config.bots]}
    stored_config.pop("skip_unavailable")
    return store.create_tournament(name=config.name, game=config.game, players=players, rounds=config.rounds,
                                   seed=seed, options=options, config=stored_config,
                                   entries=[v["id"] for v in versions], schedule=schedule)


def _check_limits(limits: dict) -> None:
    from dataclasses import fields

    from arena.runner.match import Limits

    known = {f.name for f in fields(Limits)}
    unknown = sorted(set(limits) - known)
    if unknown:
        raise TournamentError(f"unknown limit {unknown[0]!r} (known: {', '.join(sorted(known))})")


# ---- running --------------------------------------------------------------------------------

_started = None  # in a pool worker: the queue on which it says which match it is playing
_playing = False  # in a pool worker: inside a match right now


def _on_sigterm(signum, frame) -> None:
    """SIGTERM (the pool ending, or the coordinator dying) in a pool worker.

    Inside a match, unwind it so its bots are stopped and their scratch directories removed
    (``play_job`` then leaves at once). Anywhere else, leave at once: the pool's own locks may
    be held, and running its exit machinery could wait forever.
    """
    if _playing:
        raise SystemExit(128 + signum)
    os._exit(128 + signum)


def _worker_init(started=None) -> None:
    global _started
    _started = started
    # Ctrl-C is the coordinator's business: it lets running matches finish, then stops them.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:  # Linux: die with the coordinator, so `kill -9` of it leaves no worker behind
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def play_job(match_id: int, spec: dict, play: Callable | None = None) -> tuple[int, dict | None, str | None]:
    """Run in a pool worker: play one match; returns (match id, packed result, harness error)."""
    global _playing
    if _started is not None:
        _started.put((match_id, os.getpid()))
    _playing = True
    try:
        from arena.runner.match import Limits, MatchSpec

        if play is None:
            from arena.runner.match import play_match as play
        match_spec = MatchSpec(game=spec["game"], bots=spec["bots"], seed=spec["seed"],
                               options=spec["options"], limits=Limits(**spec["limits"]))
        return match_id, pack_result_logs(play(match_spec).to_dict()), None
    except SystemExit as stop:  # SIGTERM: the match has been unwound, now leave at once
        os._exit(stop.code if isinstance(stop.code, int) else 1)
    except Exception as error:  # the harness could not play it; stored as the match's error
        return match_id, None, f"{type(error).__name__}: {error}"
    finally:
        _playing = False


@dataclass
class RunSummary:
    tournament_id: int
    played: int = 0          # matches finished and stored by this run
    errors: int = 0          # matches the harness could not play
    remaining: int = 0       # still pending (interrupted)
    interrupted: bool = False
    seconds: float = 0.0


def run(store: Store, tournament_id: int, workers: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        notify: Callable[[str], None] | None = None, play: Callable | None = None) -> RunSummary:
    """Play the tournament's pending matches on ``workers`` processes and store each one."""
    import multiprocess

    tournament = store.tournament(tournament_id)
    if tournament["status"] == "running" and tournament["runner_pid"] != os.getpid():
        raise TournamentError(f"tournament {tournament_id} is being run by process {tournament['runner_pid']}")
    limits = tournament["config"].get("limits") or {}
    pending = store.pending_matches(tournament_id)
    missing = sorted({bot for match in pending for bot in match["bots"] if not Path(bot).exists()})
    if missing:  # playing now would store every match as an error; better to stop and say why
        raise TournamentError(f"the stored copy of a bot is missing: {missing[0]}")
    summary = RunSummary(tournament_id)
    started = time.monotonic()
    if not pending:
        store.set_tournament_status(tournament_id, "finished")
        return summary
    workers = max(1, min(workers or tournament["config"].get("workers") or os.cpu_count() or 1, len(pending) or 1))
    store.set_tournament_status(tournament_id, "running", os.getpid())
    jobs = iter(pending)
    in_flight: dict[int, object] = {}
    stopping = False
    # Workers come from a fork server (or are spawned), never forked from this process: the
    # pool's own threads could hold a lock at that moment and leave a new worker stuck forever.
    context = multiprocess.get_context("forkserver" if hasattr(os, "fork") else "spawn")
    started_queue = context.SimpleQueue()  # put() writes at once: a worker may die right after
    worker_of: dict[int, int] = {}  # match id -> pid of the worker playing it
    retried: set[int] = set()
    pool = context.Pool(workers, initializer=_worker_init, initargs=(started_queue,))
    restore_sigterm = _sigterm_as_ctrl_c()
    try:
        if progress:
            progress(0, len(pending))
        while True:
            try:
                while not stopping and len(in_flight) < workers:
                    match = next(jobs, None)
                    if match is None:
                        break
                    spec = {key: match[key] for key in ("game", "bots", "seed", "options")}
                    spec["limits"] = limits
                    in_flight[match["id"]] = pool.apply_async(play_job, (match["id"], spec, play))
                if not in_flight:
                    break
                ready = [match_id for match_id, job in in_flight.items() if job.ready()]
                for match_id in _lost_jobs(in_flight, ready, started_queue, worker_of):
                    # Its worker died (e.g. the kernel's OOM killer): the pool never answers
                    # for that job, so play it again once, then give up on it as an error.
                    job_match = next(m for m in pending if m["id"] == match_id)
                    del in_flight[match_id]
                    if match_id in retried:
                        _store_result(store, (match_id, None, "its worker process died twice"), summary)
                    else:
                        retried.add(match_id)
                        del worker_of[match_id]
                        jobs = itertools.chain([job_match], jobs)
                if not ready:
                    time.sleep(POLL_SECONDS)
                    continue
                for match_id in ready:
                    try:
                        outcome = in_flight[match_id].get()
                    except Exception as error:  # e.g. a result that could not be sent back
                        outcome = (match_id, None, f"{type(error).__name__}: {error}")
                    _store_result(store, outcome, summary)
                    del in_flight[match_id]
                    if progress:
                        progress(summary.played + summary.errors, len(pending))
            except KeyboardInterrupt:
                if stopping or not in_flight:
                    pool.terminate()
                    stopping = True
                    break
                stopping = True
                if notify:
                    notify(f"stopping: waiting for {len(in_flight)} running match(es) to finish"
                           " (Ctrl-C again to abandon them)")
    finally:
        restore_sigterm()
        pool.terminate()
        pool.join()
        summary.seconds = time.monotonic() - started
        summary.remaining = len(store.pending_matches(tournament_id))
        summary.interrupted = summary.remaining > 0
        store.set_tournament_status(tournament_id, "interrupted" if summary.interrupted else "finished")
    return summary


def _lost_jobs(in_flight: dict, ready: list, started_queue, worker_of: dict) -> list[int]:
    """Matches in flight whose worker process has died without answering."""
    while not started_queue.empty():
        match_id, pid = started_queue.get()
        worker_of[match_id] = pid
    return [match_id for match_id in in_flight
            if match_id not in ready and match_id in worker_of and not _alive(worker_of[match_id])]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _sigterm_as_ctrl_c() -> Callable[[], None]:
    """While running, SIGTERM (a service manager's stop) means what Ctrl-C means."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    return lambda: signal.signal(signal.SIGTERM, previous)


def _store_result(store: Store, outcome: tuple, summary: RunSummary) -> None:
    match_id, result, error = outcome
    try:
        if result is not None:
            store.record_match(match_id, result)
            summary.played += 1
        else:
            store.record_error(match_id, error)
            summary.errors += 1
    except StoreError as problem:
        if "already" not in str(problem):  # stored just before a Ctrl-C landed: nothing to do
            raise


def tournament_status(store: Store, tournament_id: int) -> dict:
    """Everything `arena tournament show` reports."""
    tournament = store.tournament(tournament_id)
    tournament["entries_list"] = store.tournament_entries(tournament_id)
    tournament["errors"] = store.query(
        "SELECT id, schedule_index, error FROM matches WHERE tournament_id = ? AND status = 'error'"
        " ORDER BY schedule_index", [tournament_id])
    tournament["seat_statuses"] = {row["status"]: row["n"] for row in store.query(
        "SELECT s.status, COUNT(*) AS n FROM match_seats s JOIN matches m ON m.id = s.match_id"
        " WHERE m.tournament_id = ? AND s.status IS NOT NULL GROUP BY s.status", [tournament_id])}
    return tournament
