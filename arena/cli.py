"""The `arena` command line: parse, call the library, print. No logic lives here.

Every mistake is one line on stderr starting ``Error:``: exit code 1, or 2 for a mistake in
the command line itself or a malformed environment variable (`arena.settings`). Nothing a bot
wrote is printed unescaped.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import click

from arena import __version__

DEFAULT_DB = "results/arena.db"  # arena.results.store.DEFAULT_DB; not imported, to keep start-up quick
MAX_ID = (1 << 63) - 1
MAX_SEED = (1 << 63) - 1
ID = click.IntRange(1, MAX_ID)
SEED = click.IntRange(0, MAX_SEED)


def _user_errors() -> tuple:
    """The exceptions that are a user's or a machine's problem, not arena's: one line, exit 1."""
    from arena.games import GameError
    from arena.results.store import StoreError
    from arena.results.submit import SubmitError
    from arena.runner.bots import BotError
    from arena.runner.files import BotFilesError
    from arena.runner.sandbox import BotChanged, SandboxUnavailable
    from arena.tournament.config import TournamentError

    return (BotError, GameError, StoreError, SubmitError, TournamentError, SandboxUnavailable, BotFilesError,
            BotChanged)


class ArenaGroup(click.Group):
    """A group whose commands never end in a traceback."""

    def invoke(self, ctx: click.Context):
        from arena.settings import SettingError
        from arena.text import printable

        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except KeyboardInterrupt as stopped:
            from arena import early_signals

            line, code = early_signals.outcome(stopped)
            click.echo(line, err=True)
            raise SystemExit(code) from None
        except BrokenPipeError:
            # The reader of our output went away (`arena leaderboard | head`): nothing to say.
            with contextlib.suppress(OSError):
                sys.stdout = open(os.devnull, "w")
            raise SystemExit(1) from None
        except SettingError as error:  # a malformed setting met on the way (the machine key's file)
            raise UsageProblem(printable(str(error))) from None
        except _user_errors() as error:
            raise click.ClickException(printable(str(error))) from None
        except Exception as error:  # arena's own fault: still one line (ARENA_DEBUG=1 shows more)
            if os.environ.get("ARENA_DEBUG") == "1":  # checked to be 1 or 0 before any command runs
                raise
            import sqlite3

            if isinstance(error, (sqlite3.Error, OSError)):
                raise click.ClickException(f"{ctx.obj.get('db', '')}: {printable(str(error))}") from None
            raise click.ClickException(f"internal error: {type(error).__name__}: {printable(str(error))}"
                                       " (set ARENA_DEBUG=1 for details, and please report it)") from None


class UsageProblem(click.ClickException):
    """A mistake in what the user asked for: one line on stderr, exit code 2."""

    exit_code = 2


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
@click.option("--db", envvar="ARENA_DB", default=DEFAULT_DB, show_default=True, metavar="PATH",
              help="The SQLite results database (also the ARENA_DB variable).")
@click.option("--sandbox", type=click.Choice(["bubblewrap", "none"]),
              help="How bots are isolated; 'none' only for trusted bots (default: ARENA_SANDBOX, else bubblewrap).")
@click.pass_context
def main(ctx: click.Context, db: str, sandbox: str | None) -> None:
    """Tournament harness for bot competitions in Five Towers, Agent Avenue and Fifth Avenue."""
    from arena import early_signals, settings

    if early_signals.received() is not None:  # came while Python was importing, and was swallowed there
        raise KeyboardInterrupt

    try:
        settings.check_environment()  # every malformed variable is refused before anything runs
    except settings.SettingError as error:
        raise UsageProblem(str(error)) from None
    if not db or "\0" in db:
        raise click.UsageError("--db needs a file path")
    os.environ["ARENA_SANDBOX"] = sandbox or settings.sandbox_mode()  # worker processes inherit the choice
    source = ctx.get_parameter_source("db")
    ctx.obj = {"db": db, "default_db": source == click.core.ParameterSource.DEFAULT}


def _printable(text) -> str:
    from arena.text import printable

    return printable(text if isinstance(text, str) else str(text), keep_newlines=False)


@main.command("games")
def games_command() -> None:
    """List the games with their player counts and options."""
    from arena.games import all_games

    for game in all_games():
        counts = ", ".join(map(str, game.player_counts))
        click.echo(f"{game.name:<14} {game.title} — {game.description}")
        click.echo(f"{'':<14} players: {counts}")
        for option in game.options:
            click.echo(f"{'':<14} option {option.describe()}")


# ---- limits, shared by every command that plays -------------------------------------------------

LIMIT_OPTIONS = (
    ("start_ms", "--start-ms", click.IntRange(1, 600_000), "Start-up deadline (ms)."),
    ("decision_ms", "--decision-ms", click.IntRange(1, 600_000), "Per-decision allowance (ms)."),
    ("bank_ms", "--bank-ms", click.IntRange(0, 3_600_000), "Time bank per match (ms)."),
    ("memory_mb", "--memory-mb", click.IntRange(16, 65_536), "Memory per bot, all its processes (MiB)."),
    ("processes", "--processes", click.IntRange(1, 4096), "Processes and threads per bot."),
    ("cpu_seconds", "--cpu-seconds", click.IntRange(1, 86_400), "CPU time per bot (s; per process without cgroups)."),
    ("disk_mb", "--disk-mb", click.IntRange(1, 16_384), "A bot's home and /tmp, each (MiB)."),
    ("cpus", "--cpus", click.FloatRange(0.01, 256), "CPU cores per bot at most (cgroups)."),
    ("clock", "--clock", click.Choice(["cpu", "wall"]), "Charge bots CPU time or wall time (default: cpu with cgroups)."),
)


def limit_options(function):
    for name, flag, kind, text in reversed(LIMIT_OPTIONS):
        function = click.option(flag, name, type=kind, default=None, help=text)(function)
    return function


def _limits_given(values: dict) -> dict:
    return {name: values.pop(name) for name, *_ in LIMIT_OPTIONS if values.get(name) is not None}


# ---- results: bots, tournaments, ratings, leaderboards, stored matches ------------------------

def _store(ctx: click.Context, create: bool = True, readonly: bool = False):
    from arena.results.store import Store

    # Only the default results/ folder is made when missing; a folder named with --db must exist.
    return Store(ctx.obj["db"], create=create, readonly=readonly, make_folder=ctx.obj["default_db"])


@main.command("submit")
@click.argument("paths", nargs=-1, required=True)
@click.option("--game", required=True, help="The game the bot plays.")
@click.option("--name", help="The bot's name (default: from the file or directory name).")
@click.option("--jobs", type=click.IntRange(1, 64), help="Bots submitted at once (default: twice the cores).")
@click.pass_context
def submit_command(ctx: click.Context, paths: tuple, game: str, name: str | None, jobs: int | None) -> None:
    """Submit bots: copy, version, build and validate each against the random bot.

    Each PATH is a bot (a file, or a folder with a bot.toml) or a folder of bots (every file
    and folder in it is one, named after it). Many bots are submitted in parallel."""
    from arena.games import get_game
    from arena.results.submit import expand, submit, submit_many

    get_game(game)
    bots, _ = expand(list(paths))
    if name is not None and len(bots) != 1:
        raise UsageProblem("--name names one bot; give one bot's path with it")
    with _store(ctx) as store:
        if len(bots) == 1 and len(paths) == 1 and Path(paths[0]).resolve() == bots[0]:
            _print_submission(submit(store, paths[0], game, name))
            return
        outcomes, notes = submit_many(store, list(paths), game, jobs)
    for note in notes:
        click.echo(f"note: {_printable(note)}", err=True)
    failed = 0
    for outcome in outcomes:
        if outcome.error is not None:
            failed += 1
            first = outcome.error.splitlines()[0] if outcome.error else ""
            click.echo(f"refused: {_printable(str(outcome.source))}: {_printable(first)}")
        else:
            _print_submission(outcome.submission)
    click.echo(f"{len(outcomes) - failed} of {len(outcomes)} bots accepted or unchanged", err=True)
    if failed:
        raise SystemExit(1)


def _print_submission(outcome) -> None:
    for note in outcome.notes:
        click.echo(f"note: {_printable(note)}", err=True)
    version = outcome.version
    label = f"{version['game']}/{_printable(version['name'])} v{version['version']}"
    if not outcome.created:
        click.echo(f"unchanged: {label} already has this content (sha256 {version['content_hash'][:12]})")
        return
    seat = outcome.validation or {}
    click.echo(f"accepted: {label} ({_printable(version['language'])}, sha256 {version['content_hash'][:12]}),"
               f" validation match ok: {seat.get('decisions', 0)} decisions in {seat.get('time_ms', 0):.0f} ms")


@main.group("bots", cls=ArenaGroup, invoke_without_command=True)
@click.option("--game", help="Only this game's bots.")
@click.pass_context
def bots_command(ctx: click.Context, game: str | None) -> None:
    """List submitted bots and their versions (and withdraw or reinstate them)."""
    from arena.games import get_game

    if ctx.invoked_subcommand is not None:
        return
    if game:
        get_game(game)
    with _store(ctx, readonly=True) as store:
        rows = store.bot_versions(game)
    click.echo(f"{'game':<14} {'bot':<24} {'ver':>3}  {'language':<10} {'sha256':<12}  {'submitted':<23}  path")
    for row in rows:
        withdrawn = "  (withdrawn)" if row["bot_withdrawn"] or row["version_withdrawn"] else ""
        click.echo(f"{row['game']:<14} {_printable(row['name']):<24} {row['version']:>3}  {_printable(row['language'] or '-'):<10}"
                   f" {row['content_hash'][:12]:<12}  {row['submitted_at'][:23]:<23}  {_printable(row['path'])}{withdrawn}")


def _set_withdrawn(ctx: click.Context, bots: tuple, game: str, withdrawn: bool) -> None:
    from arena.games import get_game
    from arena.tournament.create import split_version

    get_game(game)
    with _store(ctx, create=False) as store:
        for bot in bots:
            name, version = split_version(bot)
            if store.find_version(game, name, version) is None:
                raise click.ClickException(f"no bot {_printable(bot)} in {game}")
            store.set_withdrawn(game, name, version, withdrawn)
            what = f"{name} v{version}" if version else name
            click.echo(f"{'withdrawn' if withdrawn else 'reinstated'}: {game}/{_printable(what)}")


@bots_command.command("withdraw")
@click.argument("bots", nargs=-1, required=True)
@click.option("--game", required=True, help="The bots' game.")
@click.pass_context
def bots_withdraw_command(ctx: click.Context, bots: tuple, game: str) -> None:
    """Leave bots (NAME) or versions (NAME@2) out of new schedules and the default leaderboard."""
    _set_withdrawn(ctx, bots, game, True)


@bots_command.command("reinstate")
@click.argument("bots", nargs=-1, required=True)
@click.option("--game", required=True, help="The bots' game.")
@click.pass_context
def bots_reinstate_command(ctx: click.Context, bots: tuple, game: str) -> None:
    """Undo a withdrawal."""
    _set_withdrawn(ctx, bots, game, False)


@main.group("tournament", cls=ArenaGroup)
def tournament_group() -> None:
    """Run, resume and inspect tournaments."""


class _ProgressPrinter:
    """A bar on a terminal; elsewhere (a log file, CI, nohup) a plain line at least every 10 s."""

    def __init__(self, tournament_id: int):
        self.tournament_id = tournament_id
        self.tty = sys.stderr.isatty()
        self.last_line = 0.0
        self.bar = None

    def __call__(self, progress) -> None:
        import time

        rate = progress.done / progress.elapsed if progress.elapsed > 0 else 0.0
        left = (progress.total - progress.done) / rate if rate > 0 else None
        eta = f"{left:.0f} s left" if left is not None else "-"
        if self.tty:
            if self.bar is None:
                self.bar = click.progressbar(length=progress.total, label=f"tournament {self.tournament_id}",
                                             show_pos=True, show_eta=True, file=sys.stderr,
                                             item_show_func=lambda text: text)
                self.bar.__enter__()
            self.bar.update(progress.done - self.bar.pos, f"{rate:.1f} matches/s" if rate else "")
            if progress.final:
                self.bar.__exit__(None, None, None)
            return
        now = time.monotonic()
        if progress.final or progress.done == 0 or now - self.last_line >= 10:
            click.echo(f"tournament {self.tournament_id}: {progress.done}/{progress.total} matches,"
                       f" {rate:.1f} matches/s, {eta}, {progress.errors} harness errors,"
                       f" {progress.failures} failed seats", err=True)
            self.last_line = now


def _run_with_progress(store, tournament_id: int, workers: int | None, keep_bots: int | None = None,
                       executor: str | None = None, scheduler: str | None = None, *, stop) -> None:
    from arena.tournament import run

    # ``stop`` (from `_stopping`) stays installed until the outcome is printed: a second
    # signal meanwhile only lands on its flag.
    summary = run(store, tournament_id, workers, progress=_ProgressPrinter(tournament_id), keep_bots=keep_bots,
                  executor_kind=executor, scheduler=scheduler, stop=stop,
                  notify=lambda line: click.echo(_printable(line), err=True))
    _report_run(summary, tournament_id)


# True when this interpreter is the `arena` command (arena.entry sets it): it exits after the
# command, so on a signal it ignores further ones instead of restoring the caller's handlers.
# In-process callers (tests, embedding programs) always get their handlers back.
EXITS_AFTER_COMMAND = False


@contextlib.contextmanager
def _stopping(held: bool):
    """SIGINT, SIGTERM and SIGHUP in a command that runs tournaments (arena.tournament.stopping).

    Until a tournament is about to be stored a signal ends the command in one line; from then
    on (at once with ``held``: the tournament exists) it stops the run, which marks the
    tournament interrupted and names the resume command."""
    from arena.tournament.stopping import Interrupted, Stop

    stop = Stop(hold=held).install()
    try:
        yield stop
    except Interrupted as stopped:
        click.echo(f"interrupted by {stopped.name} before a tournament was stored: nothing to resume", err=True)
        raise SystemExit(128 + stopped.signum) from None
    finally:
        stop.restore(handlers=not (stop.signal is not None and EXITS_AFTER_COMMAND))


def _report_run(summary, tournament_id: int) -> None:
    errors = f", {summary.errors} harness errors" if summary.errors else ""
    if summary.problem:
        click.echo(f"tournament {tournament_id} stopped: {summary.played} matches played{errors},"
                   f" {summary.remaining} left; continue with: arena tournament resume {tournament_id}")
        raise click.ClickException(_printable(summary.problem))
    if summary.interrupted:
        import signal

        if summary.signal and EXITS_AFTER_COMMAND:
            # We are on our way out: a second signal must not kill the interpreter as it exits.
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(signum, signal.SIG_IGN)
        name = signal.Signals(summary.signal).name if summary.signal else "a stop"
        click.echo(f"tournament {tournament_id} interrupted by {name}: {summary.played} matches played{errors},"
                   f" {summary.remaining} left; continue with: arena tournament resume {tournament_id}")
        raise SystemExit(128 + summary.signal if summary.signal else 130)
    click.echo(f"tournament {tournament_id} finished: {summary.played} matches played{errors}"
               f" in {summary.seconds:.1f} s")


@tournament_group.command("run")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--game", help="The game (flag form).")
@click.option("--bots", "bots", multiple=True, help="Bots: submitted names (name, name@2, * for all) or paths;"
                                                    " repeat or comma-separate.")
@click.option("--players", type=click.IntRange(1, 64), help="Players per match (default: the game's smallest count).")
@click.option("--rounds", type=click.IntRange(1, 2_000_000), help="How often the whole schedule is played (default 1).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="A game option (repeatable).")
@click.option("--seed", type=SEED, help="Tournament seed; the schedule and, with this machine's key, every deal"
                                        " derive from it (default: random).")
@click.option("--workers", type=click.IntRange(1, 256), help="Parallel matches (default: one per core).")
@click.option("--name", help="A name for the tournament.")
@click.option("--restart", type=click.Choice(["auto", "always"]), help="'always': a fresh bot process for every match.")
@click.option("--duplicate", is_flag=True, default=None, help="Play each deal in every seat rotation.")
@click.option("--keep-bots", type=click.IntRange(0, 1024), help="Live bot processes kept per worker (default 16).")
@click.option("--executor", type=click.Choice(["local", "dask"]), help="Where matches run (default: local workers).")
@click.option("--scheduler", metavar="ADDRESS", help="The Dask scheduler, e.g. tcp://10.0.0.5:8786.")
@click.option("--format", "fmt", type=click.Choice(["round-robin", "gauntlet", "swiss"]),
              help="round-robin (default), gauntlet (--candidates against --bots) or swiss (--rounds rounds).")
@click.option("--candidates", multiple=True, help="Gauntlet: the bots that play the field (--bots).")
@limit_options
@click.pass_context
def tournament_run_command(ctx: click.Context, file: str | None, game: str | None, bots: tuple, players: int | None,
                           rounds: int | None, options: tuple, seed: int | None, workers: int | None,
                           name: str | None, restart: str | None, duplicate: bool | None, keep_bots: int | None,
                           executor: str | None, scheduler: str | None, fmt: str | None, candidates: tuple,
                           **limits) -> None:
    """Create a tournament (from FILE.toml or flags) and play it."""
    overrides = {"format": fmt, "candidates": _entries(candidates) or None}
    _create_and_run(ctx, file, game, bots, players, rounds, options, seed, workers, name, restart, duplicate,
                    keep_bots, executor, scheduler, limits, overrides)


def _entries(values: tuple) -> list[str]:
    return [entry.strip() for value in values for entry in value.split(",") if entry.strip()]


def _create_and_run(ctx, *args) -> None:
    """Create the tournaments of FILE or of the flags, and play each (every format's command)."""
    with _stopping(held=False) as stop:
        _create_and_run_stoppable(stop, ctx, *args)


def _create_and_run_stoppable(stop, ctx, file, game, bots, players, rounds, options, seed, workers, name, restart,
                              duplicate, keep_bots, executor, scheduler, limits, more: dict) -> None:
    from arena.tournament import TournamentConfig, available, check_config, create, load_file, parse_options

    limit_overrides = _limits_given(limits)
    clock = limit_overrides.pop("clock", None)  # the tournament's key, not a limit (the same for every bot)
    bot_list = _entries(bots)
    if bots and not bot_list:
        raise UsageProblem("--bots names no bot")
    if file and game:
        raise UsageProblem("give a tournament FILE.toml or --game, not both (the file names its game)")
    if file:
        configs = load_file(file)
    elif game:
        if not bot_list:
            raise UsageProblem("--game needs --bots")
        configs = [TournamentConfig(game=game, bots=bot_list)]
    else:
        raise UsageProblem("give a tournament FILE.toml, or --game and --bots")
    overrides = {"players": players, "rounds": rounds, "seed": seed, "workers": workers, "name": name,
                 "bots": bot_list or None, "options": parse_options(list(options)) or None, "restart": restart,
                 "duplicate": duplicate, "keep_bots": keep_bots, "executor": executor, "scheduler": scheduler,
                 "clock": clock, **more}
    for config in configs:
        for key, value in overrides.items():
            if value is not None:
                setattr(config, key, value)
        if limit_overrides:
            config.limits = {**config.limits, **limit_overrides}
        check_config(config)
    from arena.runner.sandbox import detect

    if any(config.executor == "local" for config in configs):
        detect()  # before anything is written: bots cannot run here without a sandbox
    with _store(ctx) as store:
        ran = 0
        for config in configs:
            stop.release()  # no tournament in hand: a signal ends the command
            config, notes = available(config)
            for note in notes:
                click.echo(_printable(note), err=True)
            if config is None:
                continue
            notes = []
            tournament_id = create(store, config, notes, before_storing=stop.hold)
            for note in notes:
                click.echo(f"note: {_printable(note)}", err=True)
            tournament = store.tournament(tournament_id)
            from arena.results.describe import format_text

            click.echo(f"tournament {tournament_id}: {tournament['game']}, {tournament['entries']} bots,"
                       f" {tournament['players']} players, {format_text(tournament, tournament['entries'])},"
                       f" seed {tournament['seed']}")
            _run_with_progress(store, tournament_id, config.workers, config.keep_bots, stop=stop)  # config's executor
            if config.format == "sprt":
                _sprt_verdict(store, tournament_id)
            ran += 1
        if not ran:
            click.echo("no tournament could be run (see the notes above)", err=True)


@tournament_group.command("resume")
@click.argument("tournament_id", type=ID)
@click.option("--workers", type=click.IntRange(1, 256), help="Parallel matches (default: as configured, else one per core).")
@click.option("--executor", type=click.Choice(["local", "dask"]), help="Where matches run (default: as configured).")
@click.option("--scheduler", metavar="ADDRESS", help="The Dask scheduler (default: as configured).")
@click.pass_context
def tournament_resume_command(ctx: click.Context, tournament_id: int, workers: int | None, executor: str | None,
                              scheduler: str | None) -> None:
    """Play the matches of a tournament that have not finished yet (an SPRT: then its verdict)."""
    with _stopping(held=True) as stop, _store(ctx, create=False) as store:
        tournament = store.tournament(tournament_id)
        click.echo(f"tournament {tournament_id}: {tournament['matches_pending']} of"
                   f" {tournament['matches_total']} matches to play")
        _run_with_progress(store, tournament_id, workers, executor=executor, scheduler=scheduler, stop=stop)
        if tournament["format"] == "sprt":
            _sprt_verdict(store, tournament_id)


@tournament_group.command("retry")
@click.argument("tournament_id", type=ID)
@click.option("--workers", type=click.IntRange(1, 256), help="Parallel matches.")
@click.pass_context
def tournament_retry_command(ctx: click.Context, tournament_id: int, workers: int | None) -> None:
    """Play again the matches stored as harness errors (then anything else still pending)."""
    from arena.tournament import retry_errors

    with _stopping(held=True) as stop, _store(ctx, create=False) as store:
        count = retry_errors(store, tournament_id)
        click.echo(f"tournament {tournament_id}: {count} match(es) stored as harness errors to play again")
        _run_with_progress(store, tournament_id, workers, stop=stop)
        if store.tournament(tournament_id)["format"] == "sprt":
            _sprt_verdict(store, tournament_id)


@tournament_group.command("list")
@click.pass_context
def tournament_list_command(ctx: click.Context) -> None:
    """List tournaments with their format, progress and status."""
    from arena.results.describe import planned_matches

    with _store(ctx, readonly=True) as store:
        rows = store.tournaments()
    click.echo(f"{'id':>4}  {'name':<16} {'game':<14} {'format':<11} {'players':>7} {'bots':>4} {'done':>13}"
               f" {'errors':>6}  {'status':<11} created")
    for t in rows:
        total, exact = planned_matches(t, t["entries"])
        planned = "?" if total is None else f"{'' if exact else '≤'}{total}"
        done = f"{t['matches_finished'] + t['matches_error']}/{planned}"
        kind = t.get("format") or (t.get("config") or {}).get("format") or "round-robin"
        click.echo(f"{t['id']:>4}  {_printable(t['name'] or '-')[:16]:<16} {t['game']:<14} {kind:<11} {t['players']:>7}"
                   f" {t['entries']:>4} {done:>13} {t['matches_error']:>6}  {t['status']:<11} {t['created_at'][:19]}")


@tournament_group.command("plan")
@click.option("--bots", "bot_count", type=click.IntRange(2, 100_000), required=True, help="How many bots.")
@click.option("--players", type=click.IntRange(2, 64), default=2, show_default=True, help="Players per match.")
@click.option("--no-duplicate", is_flag=True, help="Count matches without duplicate deals.")
def tournament_plan_command(bot_count: int, players: int, no_duplicate: bool) -> None:
    """Before a run: the matches a round-robin of N bots costs, and a cheaper plan."""
    from arena.tournament.advice import plan_text

    click.echo(plan_text(bot_count, players, not no_duplicate))


@tournament_group.command("show")
@click.argument("tournament_id", type=ID)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def tournament_show_command(ctx: click.Context, tournament_id: int, as_json: bool) -> None:
    """Show a tournament: configuration, entries, progress, failures and standings."""
    import json

    from arena.results.leaderboard import render, tournament_leaderboard
    from arena.tournament import tournament_status
    from arena.results.describe import format_text

    with _store(ctx, readonly=True) as store:
        t = tournament_status(store, tournament_id)
        board = tournament_leaderboard(store, tournament_id)
        swiss_text = None
        if t.get("format") == "swiss":
            from arena.results import swiss

            swiss_text = swiss.text(store, tournament_id)
    if as_json:
        data = {key: t[key] for key in ("id", "name", "game", "players", "rounds", "seed", "options", "config",
                                        "status", "created_at", "started_at", "finished_at", "matches_total",
                                        "matches_finished", "matches_error", "matches_pending", "rated_through",
                                        "seat_statuses", "errors", "sprt")}
        data["format"] = format_text(t, len(t["entries_list"]))
        data["entries"] = [{k: e[k] for k in ("position", "bot", "version", "path")} for e in t["entries_list"]]
        data["leaderboard"] = json.loads(render([board], "json"))["entries"]
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"tournament {t['id']}{' (' + _printable(t['name']) + ')' if t['name'] else ''}: {t['status']}")
    click.echo(f"game {t['game']}, {t['players']} players, options {json.dumps(t['options'], sort_keys=True)},"
               f" seed {t['seed']}")
    click.echo(f"format: {format_text(t, len(t['entries_list']))}")
    click.echo(f"matches: {t['matches_finished']} finished, {t['matches_error']} errors,"
               f" {t['matches_pending']} pending, of {t['matches_total']}; rated through schedule index"
               f" {t['rated_through']}")
    click.echo(f"created {t['created_at']}, started {t['started_at'] or '-'}, finished {t['finished_at'] or '-'}")
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(t["seat_statuses"].items())) or "-"
    click.echo(f"seat statuses: {statuses}")
    if t["sprt"]:
        from arena.results.sprt import SprtState

        click.echo(SprtState(**t["sprt"]).describe())
    for error in t["errors"][:10]:
        click.echo(f"error in match {error['id']} (schedule index {error['schedule_index']}): {_printable(error['error'])}")
    click.echo("")
    click.echo(render([board], "table"))
    if swiss_text:
        click.echo("")
        click.echo(swiss_text)


def _format_command_options(function):
    """The options every format's command shares with `tournament run`."""
    for option in reversed([
            click.option("--game", help="The game."),
            click.option("--players", type=click.IntRange(1, 64), help="Players per match."),
            click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="A game option."),
            click.option("--seed", type=SEED, help="Seed of the schedule and (keyed) of every deal."),
            click.option("--workers", type=click.IntRange(1, 256), help="Parallel matches."),
            click.option("--name", help="A name for the tournament."),
            click.option("--restart", type=click.Choice(["auto", "always"]), help="'always': fresh bot processes."),
            click.option("--keep-bots", type=click.IntRange(0, 1024), help="Live bot processes per worker."),
            click.option("--executor", type=click.Choice(["local", "dask"]), help="Where matches run."),
            click.option("--scheduler", metavar="ADDRESS", help="The Dask scheduler."),
            click.option("--batch", type=click.IntRange(1, 10_000), help="Groups (pairs) planned per step."),
            click.option("--max-matches", type=click.IntRange(1, 2_000_000), help="Stop after this many matches.")]):
        function = option(function)
    return limit_options(function)


@main.command("sprt")
@click.option("--bots", "bots", help="new,old: the two versions to compare (names or paths).")
@click.option("--id", "test_id", type=ID, help="Go on with this SPRT test instead of starting one.")
@click.option("--field", multiple=True, help="With more than 2 players: the bots in the other seats.")
@click.option("--elo0", type=click.FloatRange(-2000, 2000), default=0.0, show_default=True, help="H0: new is at most this much better.")
@click.option("--elo1", type=click.FloatRange(-2000, 2000), default=10.0, show_default=True, help="H1: new is at least this much better.")
@click.option("--alpha", type=click.FloatRange(1e-6, 0.5), default=0.05, show_default=True, help="False-positive rate.")
@click.option("--beta", type=click.FloatRange(1e-6, 0.5), default=0.05, show_default=True, help="False-negative rate.")
@_format_command_options
@click.pass_context
def sprt_command(ctx: click.Context, bots: str | None, test_id: int | None, field: tuple, elo0: float, elo1: float,
                 alpha: float, beta: float, game: str, players, options, seed, workers, name, restart, keep_bots,
                 executor, scheduler, batch, max_matches, **limits) -> None:
    """A/B test two versions with a sequential probability ratio test on duplicate pairs.

    Both versions play the same deals in the same seats (against the same --field bots with
    more than 2 players); it stops as soon as H0 or H1 is accepted, printing the
    log-likelihood ratio as it goes. Exit code 0 when H1 (new is better) is accepted, 3 for H0,
    4 when --max-matches ran out first.

    --id N goes on with test N as it was created (after a kill, or with a larger --max-matches
    when its budget ran out), or just prints its verdict."""
    if test_id is not None:
        _continue_sprt(ctx, test_id, workers, keep_bots, executor, scheduler, max_matches)
        return
    if not game or not bots:
        raise UsageProblem("an SPRT needs --game and --bots new,old (or go on with one: --id ID)")
    more = {"format": "sprt", "field": _entries(field), "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta,
            "batch": batch, "max_matches": max_matches}
    _create_and_run(ctx, None, game, (bots,), players, None, options, seed, workers, name, restart, None, keep_bots,
                    executor, scheduler, limits, more)


# What `arena sprt --id` may change: how it runs and its budget, never what it tests.
_SPRT_CONTINUE_OPTIONS = ("test_id", "workers", "keep_bots", "executor", "scheduler", "max_matches")


def _continue_sprt(ctx: click.Context, test_id: int, workers, keep_bots, executor, scheduler,
                   max_matches) -> None:
    given = [name for name, value in ctx.params.items() if name not in _SPRT_CONTINUE_OPTIONS
             and ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)
             and value not in (None, ())]
    if given:
        flag = next(p.opts[0] for p in ctx.command.params if p.name == given[0])
        raise UsageProblem(f"{flag} cannot change an existing test; --id continues test {test_id} as it was"
                           " created (it takes --workers, --keep-bots, --executor, --scheduler, --max-matches)")
    with _stopping(held=True) as stop, _store(ctx, create=False) as store:
        tournament = store.tournament(test_id)
        if tournament["format"] != "sprt":
            raise click.ClickException(f"tournament {test_id} is not an SPRT test (it is a"
                                       f" {tournament['format']} tournament; continue it with:"
                                       f" arena tournament resume {test_id})")
        if max_matches is not None:
            store.set_tournament_config(test_id, {**tournament["config"], "max_matches": max_matches})
        click.echo(f"sprt {test_id}: {tournament['matches_finished'] + tournament['matches_error']} of"
                   f" {tournament['matches_total']} matches played so far")
        _run_with_progress(store, test_id, workers, keep_bots, executor=executor, scheduler=scheduler, stop=stop)
        _sprt_verdict(store, test_id)


def _sprt_verdict(store, tournament_id: int) -> None:
    """Print the test's verdict; exit code 0 for H1, 3 for H0, 4 for none (budget spent)."""
    from arena.results import sprt

    state = sprt.load(store, tournament_id)
    click.echo(state.verdict_line())
    if state.exit_code:
        raise SystemExit(state.exit_code)


@main.group("ladder", cls=ArenaGroup)
def ladder_group() -> None:
    """A long-running, rating-aware schedule that bots can join or leave while it runs."""


@ladder_group.command("run")
@click.option("--bots", "bots", multiple=True, help="The bots at the start (names, * or paths).")
@click.option("--id", "ladder_id", type=ID, help="Go on with this ladder instead of starting one.")
@click.option("--until", "until", type=click.IntRange(1, 2_000_000), help="Stop when it has this many matches.")
@click.option("--until-stable", is_flag=True, help="Stop when the top places are settled (see docs).")
@click.option("--top", type=click.IntRange(1, 1000), default=3, show_default=True, help="--until-stable: places that must hold.")
@click.option("--stable-batches", type=click.IntRange(1, 10_000), default=5, show_default=True,
              help="--until-stable: for this many batches in a row.")
@click.option("--sigma-bound", type=click.FloatRange(0.01, 100), default=1.5, show_default=True,
              help="--until-stable: and every sigma under this.")
@click.option("--duplicate", is_flag=True, default=None, help="Each group plays its seatings on one deal.")
@_format_command_options
@click.pass_context
def ladder_run_command(ctx: click.Context, bots: tuple, ladder_id: int | None, until: int | None, until_stable: bool,
                       top: int, stable_batches: int, sigma_bound: float, duplicate, game: str, players, options,
                       seed, workers, name, restart, keep_bots, executor, scheduler, batch, max_matches,
                       **limits) -> None:
    """Start a ladder (or go on with --id) and play it until its stopping rule holds.

    Stopping: --until N matches, or --until-stable: the first --top places keep their order
    for --stable-batches batches and every sigma is under --sigma-bound (at most
    --max-matches, default 100000, either way)."""
    if not (until or until_stable):
        raise UsageProblem("say when to stop: --until N or --until-stable")
    if ladder_id is None and not game:
        raise UsageProblem("a new ladder needs --game and --bots (or go on with one: --id ID)")
    if ladder_id is not None:
        with _stopping(held=True) as stop, _store(ctx, create=False) as store:
            tournament = store.tournament(ladder_id)
            if tournament["format"] != "ladder":
                raise click.ClickException(f"tournament {ladder_id} is not a ladder")
            config = dict(tournament["config"])
            config.update({"max_matches": until or max_matches or config.get("max_matches"),
                           "until_stable": until_stable or config.get("until_stable", False)})
            store.set_tournament_config(ladder_id, config)
            _run_with_progress(store, ladder_id, workers, stop=stop)
            click.echo(_plan_line(store, ladder_id))
        return
    more = {"format": "ladder", "max_matches": until or max_matches or (100_000 if until_stable else None),
            "until_stable": until_stable, "top": top, "stable_batches": stable_batches, "sigma_bound": sigma_bound,
            "batch": batch}
    _create_and_run(ctx, None, game, bots, players, None, options, seed, workers, name, restart, duplicate,
                    keep_bots, executor, scheduler, limits, more)


def _plan_line(store, tournament_id: int) -> str:
    from arena.tournament import plans

    return _printable(plans.report(store, tournament_id) or "")


@ladder_group.command("add")
@click.argument("ladder_id", type=ID)
@click.argument("bots", nargs=-1, required=True)
@click.pass_context
def ladder_add_command(ctx: click.Context, ladder_id: int, bots: tuple) -> None:
    """Add bots (names, name@2 or paths) to a ladder; it takes them from its next batch on."""
    from arena.tournament.create import resolve_one

    with _store(ctx, create=False) as store:
        tournament = store.tournament(ladder_id)
        if tournament["format"] != "ladder":
            raise click.ClickException(f"tournament {ladder_id} is not a ladder")
        for bot in bots:
            version = resolve_one(store, tournament["game"], bot)
            position = store.add_entry(ladder_id, version["id"])
            click.echo(f"ladder {ladder_id}: {_printable(version['name'])} v{version['version']} is entry {position}")


@ladder_group.command("withdraw")
@click.argument("ladder_id", type=ID)
@click.argument("bots", nargs=-1, required=True)
@click.pass_context
def ladder_withdraw_command(ctx: click.Context, ladder_id: int, bots: tuple) -> None:
    """Take bots (name or name@2) out of a ladder's next batches; their results stay."""
    from arena.tournament.create import split_version

    with _store(ctx, create=False) as store:
        if store.tournament(ladder_id)["format"] != "ladder":
            raise click.ClickException(f"tournament {ladder_id} is not a ladder")
        entries = {(e["bot"], e["version"]): e for e in store.tournament_entries(ladder_id)}
        for bot in bots:
            name, version = split_version(bot)
            matching = [e for (n, v), e in entries.items() if n == name and (version is None or v == version)]
            if not matching:
                raise click.ClickException(f"ladder {ladder_id} has no entry {_printable(bot)}")
            for entry in matching:
                store.withdraw_entry(ladder_id, entry["bot_version_id"])
                click.echo(f"ladder {ladder_id}: {_printable(entry['bot'])} v{entry['version']} withdrawn")


@tournament_group.command("stats")
@click.argument("tournament_id", type=ID)
@click.option("--samples", type=click.IntRange(10, 10_000), default=200, show_default=True,
              help="Bootstrap resamples for the rank confidence.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def tournament_stats_command(ctx: click.Context, tournament_id: int, samples: int, as_json: bool) -> None:
    """Standings with rank confidence, the head-to-head table, results per seat, duplicate sets."""
    import json

    from arena.results.report import tournament_report

    with _store(ctx, readonly=True) as store:
        report = tournament_report(store, tournament_id, samples)
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    from arena.results.report import render_report

    click.echo(render_report(report))


@main.command("export")
@click.option("--tournament", "tournament_id", type=ID, required=True, help="The tournament to export.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True,
              help="jsonl: one match a line, seats inside; csv: one row per seat.")
@click.option("--logs", is_flag=True, help="jsonl: include every match's full log.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to this file (default: stdout).")
@click.pass_context
def export_command(ctx: click.Context, tournament_id: int, fmt: str, logs: bool, output: str | None) -> None:
    """Export a tournament's matches and seats."""
    from arena.results.export import export

    if output:
        _check_writable(output)
    with _store(ctx, readonly=True) as store:
        if output:
            with open(output, "w", encoding="utf-8", newline="") as handle:
                count = export(store, tournament_id, fmt, handle, logs)
            click.echo(f"wrote {count} matches to {output}", err=True)
        else:
            export(store, tournament_id, fmt, sys.stdout, logs)


@main.group("ratings", cls=ArenaGroup)
def ratings_group() -> None:
    """Maintain the TrueSkill ratings."""


@ratings_group.command("recompute")
@click.option("--game", help="Only this game.")
@click.pass_context
def ratings_recompute_command(ctx: click.Context, game: str | None) -> None:
    """Rebuild the ratings from the stored matches, in the order they were rated."""
    from arena.games import get_game

    if game:
        get_game(game)
    with _store(ctx, create=False) as store:
        summary = store.recompute_ratings(game)
    click.echo(f"recomputed ratings from {summary['matches']} matches for {summary['bots']} bot versions"
               f"{' (' + game + ')' if game else ''}; largest change in mu or sigma: {summary['max_change']:.3g}")


@main.command("leaderboard")
@click.option("--game", help="The game.")
@click.option("--all-games", is_flag=True, help="Every game that has ratings.")
@click.option("--tournament", "tournament_id", type=ID, help="Only this tournament's entries and matches.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@click.option("--limit", type=click.IntRange(min=1, max=MAX_ID), help="At most this many rows (per game).")
@click.option("--all-versions", is_flag=True, help="Every rated version, not only each bot's latest (game leaderboards).")
@click.option("--confidence", is_flag=True, help="Add each rank's 90% bootstrap interval by mean points (a running tournament;"
              " a finished one's refit standings always show 95% intervals and bands).")
@click.pass_context
def leaderboard_command(ctx: click.Context, game: str | None, all_games: bool, tournament_id: int | None,
                        fmt: str, limit: int | None, all_versions: bool, confidence: bool) -> None:
    """Bots ordered by conservative skill (mu - 3 sigma); a finished tournament's by the refit
    of all its matches (rating, 95% intervals, tied bands)."""
    if confidence and tournament_id is None:
        raise UsageProblem("--confidence needs --tournament ID (it resamples that tournament's matches)")
    from arena.games import get_game
    from arena.results.leaderboard import game_leaderboard, rated_games, render, tournament_leaderboard

    if all_games and (game or tournament_id is not None):
        raise UsageProblem("--all-games lists every game: give it without --game and --tournament")
    if game:
        get_game(game)
    if not (game or all_games or tournament_id is not None):
        raise UsageProblem("give --game GAME, --tournament ID or --all-games")
    with _store(ctx, readonly=True) as store:
        versions = "all" if all_versions else "latest"
        if tournament_id is not None:
            board = tournament_leaderboard(store, tournament_id, limit)
            if game and board["game"] != game:
                raise click.ClickException(f"tournament {tournament_id} is a {board['game']} tournament")
            if confidence:
                from arena.results.report import add_rank_confidence

                add_rank_confidence(store, board)
            boards = [board]
        elif all_games:
            boards = [game_leaderboard(store, name, limit, versions) for name in rated_games(store)]
        else:
            boards = [game_leaderboard(store, game, limit, versions)]
    if not boards and fmt == "table":
        click.echo("no ratings yet")
        return
    click.echo(render(boards, fmt, single=not all_games))


@main.command("similar")
@click.option("--game", required=True, help="The game whose bots to compare (each bot's latest version).")
@click.option("--by", type=click.Choice(["behaviour", "source"]), default="behaviour", show_default=True,
              help="Compare decisions on one fixed set of requests (in the sandbox), or normalised source.")
@click.option("--threshold", type=click.FloatRange(0, 1),
              help="List pairs at least this similar (default: agreement 0.9; source 0.5).")
@click.option("--requests", "size", type=click.IntRange(1, 100_000), default=300, show_default=True,
              help="Recorded requests every bot answers (--by behaviour).")
@click.option("--seed", type=int, help="Seed of the recorded requests (default: a fixed one).")
@click.option("--workers", type=click.IntRange(1, 256), help="Bots replayed at once (default: one per core).")
@click.pass_context
def similar_command(ctx: click.Context, game: str, by: str, threshold: float | None, size: int, seed: int | None,
                    workers: int | None) -> None:
    """Near-copies among submitted bots: pairs that decide alike far more than the field does."""
    import os

    from arena.games import get_game
    from arena.results import similar

    get_game(game)
    if by == "source":
        threshold = similar.THRESHOLD if threshold is None else threshold
        with _store(ctx, readonly=True) as store:
            sources = similar.game_sources(store, game)
        pairs, baseline = similar.similar_pairs(sources, threshold)
        click.echo(f"{len(sources)} {game} bots; median similarity of a pair {baseline:.2f};"
                   f" {len(pairs)} pair(s) at {threshold:.2f} or more")
        for pair in pairs:
            click.echo(f"  {pair.similarity:.2f}  {_printable(pair.first)}  {_printable(pair.second)}")
        return
    threshold = similar.AGREEMENT if threshold is None else threshold

    def progress(done, total, label, replay):
        answered = sum(d is not None for d in replay.decisions)
        problem = f"; {len(replay.failures)} match(es) failed" if replay.failures else ""
        click.echo(f"  [{done}/{total}] {_printable(label)}: {answered}/{len(replay.decisions)} answered"
                   f"{problem} ({replay.seconds:.1f} s)", err=True)

    with _store(ctx, readonly=True) as store:
        replays = similar.replay_field(store, game, size, workers or os.cpu_count() or 1, seed, progress)
    found = similar.agreeing_pairs({label: r.decisions for label, r in replays.items()}, threshold)
    click.echo(f"{len(replays)} {game} bots, {size} recorded requests each; median agreement of a pair"
               f" {found.median:.2f} (95th percentile {found.p95:.2f}); {len(found.listed)} pair(s) at"
               f" {threshold:.2f} or more, far above the median")
    for pair in found.listed:
        click.echo(f"  {pair.rate:.3f}  {_printable(pair.first)}  {_printable(pair.second)}  ({pair.common} requests)")
    for label, replay in sorted(replays.items()):
        answered = sum(d is not None for d in replay.decisions)
        if replay.error or answered < similar.MIN_COMMON * size:
            why = replay.error or (replay.failures[0] if replay.failures else "")
            click.echo(f"not compared: {_printable(label)} answered {answered} of {size}: {_printable(why)}")


@main.command("show")
@click.argument("match_id", type=ID)
@click.option("--json", "as_json", is_flag=True, help="Print the stored match as JSON (log included).")
@click.pass_context
def show_command(ctx: click.Context, match_id: int, as_json: bool) -> None:
    """Show a stored match with every decision."""
    import json

    with _store(ctx, readonly=True) as store:
        match = store.match(match_id)
    if as_json:
        click.echo(json.dumps(match, indent=2))  # JSON escapes every control character
        return
    where = f"tournament {match['tournament_id']} #{match['schedule_index']}" if match["tournament_id"] else "no tournament"
    click.echo(f"match {match['id']} ({where}): {match['game']}, {match['players']} players, seed {match['seed']},"
               f" {match['status']}")
    click.echo(f"options {json.dumps(match['options'], sort_keys=True)}; {match['started_at'] or '-'} .."
               f" {match['ended_at'] or '-'}" + (f" ({match['duration_ms']:.0f} ms)" if match["duration_ms"] else ""))
    if match["error"]:
        click.echo(f"error: {_printable(match['error'])}")
    from arena.results import timings

    names = {s["seat"]: f"{_printable(s['bot'])} v{s['version']}" for s in match["seats"]}
    totals = timings.seat_totals(match["log"], match["players"])
    click.echo(f"clock {timings.clock_of(match)}: 'time ms' is what it charged; CPU and wall ms are the decisions' own")
    click.echo(f"{'seat':>4}  {'bot':<28} {'status':<9} {'score':>7} {'rank':>4} {'time ms':>9} {'CPU ms':>9}"
               f" {'wall ms':>9} {'decisions':>9}  error")
    for s in match["seats"]:
        score = "-" if s["score"] is None else f"{s['score']:g}"
        time_ms = "-" if s["time_ms"] is None else f"{s['time_ms']:.0f}"
        total = totals[s["seat"]] if s["seat"] < len(totals) else {"cpu_ms": None, "wall_ms": 0.0}
        cpu_ms = "-" if total["cpu_ms"] is None else f"{total['cpu_ms']:.0f}"
        click.echo(f"{s['seat']:>4}  {names[s['seat']][:28]:<28} {s['status'] or '-':<9} {score:>7}"
                   f" {s['rank'] if s['rank'] is not None else '-':>4} {time_ms:>9} {cpu_ms:>9} {total['wall_ms']:>9.0f}"
                   f" {s['decisions'] or 0:>9}  {_printable(s['error'] or '')}")
    decision_times = timings.decision_times(match["log"])
    for event in match["log"]:
        kind = event.get("event")
        if kind == "action":
            times = decision_times.get((event.get("seat"), event.get("step")))
            by = "" if event.get("by") == "bot" else f" ({event.get('by')})"
            timing = f"  [{timings.describe(times)}]" if times else ""
            debug = f"  # {_printable(event['debug'])}" if event.get("debug") else ""
            click.echo(f"step {event.get('step'):>4}  seat {event.get('seat')}{by}:"
                       f" {json.dumps(event.get('action'), sort_keys=True)}{timing}{debug}")
        elif kind == "failure":
            click.echo(f"step {event.get('step') if event.get('step') is not None else '-':>4}  seat {event.get('seat')}"
                       f" FAILED {event.get('status')}: {_printable(event.get('error'))}")
        elif kind == "end":
            click.echo(f"end: scores {event.get('scores')}, ranks {event.get('ranks')}, statuses {event.get('statuses')}")


@main.command("failures")
@click.option("--bot", help="Only this bot's failed seats.")
@click.option("--tournament", "tournament_id", type=ID, help="Only this tournament.")
@click.option("--game", help="Only this game.")
@click.option("--limit", type=click.IntRange(1, MAX_ID), default=50, show_default=True, help="At most this many.")
@click.option("--stderr-lines", type=click.IntRange(0, 1000), default=5, show_default=True,
              help="Lines of the bot's stderr shown with each failure.")
@click.pass_context
def failures_command(ctx: click.Context, bot: str | None, tournament_id: int | None, game: str | None,
                     limit: int, stderr_lines: int) -> None:
    """Failed seats and harness errors, newest first, each with its error and the end of the bot's stderr."""
    from arena.games import get_game
    from arena.text import printable

    if game:
        get_game(game)
    with _store(ctx, readonly=True) as store:
        if tournament_id is not None:
            store.tournament(tournament_id)
        rows = store.failures(game, bot, tournament_id, limit)
        if not rows:
            click.echo("no failures")
            return
        for row in rows:
            where = f"match {row['match_id']}" + (f" (tournament {row['tournament_id']} #{row['schedule_index']})"
                                                  if row["tournament_id"] else "")
            if row["match_status"] == "error":
                click.echo(f"{where}: harness error: {_printable(row['match_error'])}"
                           f"  (replay with: arena tournament retry {row['tournament_id']})")
                continue
            click.echo(f"{where}: seat {row['seat']} {_printable(row['bot'])} v{row['version']}:"
                       f" {row['status']}: {_printable(row['error'] or '')}")
            click.echo(f"    {_failure_times(store, row)}")
            if stderr_lines:
                tail = printable(store.stderr_of(row["match_id"], row["seat"])).rstrip().splitlines()[-stderr_lines:]
                for line in tail:
                    click.echo(f"    | {line}")


def _failure_times(store, row: dict) -> str:
    from arena.results import timings

    match = store.match(row["match_id"])
    return timings.failure_summary(match["log"], row["seat"], timings.clock_of(match))


# ---- single matches and the machine check ----------------------------------------------------

@main.command("match")
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@click.option("--seed", type=SEED, help="Match seed (default: random; printed so the match can be replayed).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="A game option (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (without the log).")
@click.option("--log", "log_file", type=click.Path(dir_okay=False),
              help="Write the full result, every request and reply included, to this JSON file.")
@limit_options
def match_command(game: str, bots: tuple[str, ...], seed: int | None, options: tuple[str, ...], as_json: bool,
                  log_file: str | None, **limits) -> None:
    """Play one match of GAME between BOTS (one per seat, in seat order) and print the result."""
    import json
    import random as stdlib_random

    from arena.games import GameError
    from arena.results import keys
    from arena.runner.bots import BotError
    from arena.runner.match import Limits, MatchSpec, play_match
    from arena.tournament.config import TournamentError, parse_options

    if log_file:
        _check_writable(log_file)
    if seed is None:
        seed = stdlib_random.SystemRandom().randrange(MAX_SEED)
    given = _limits_given(limits)
    try:
        secret = keys.secret_for("match", seed)
        spec = MatchSpec(game, list(bots), keys.deal_seed(secret, 0), parse_options(list(options)),
                         Limits(**given), bot_seeds=keys.bot_seeds(secret, 0, len(bots)))
        result = play_match(spec)
    except (GameError, BotError, TournamentError) as error:
        raise UsageProblem(_printable(str(error))) from None
    summary = result.to_dict()
    summary["engine_seed"], summary["seed"] = summary["seed"], seed
    if log_file:
        try:
            with open(log_file, "w", encoding="utf-8") as handle:
                json.dump(summary, handle, indent=1)
        except OSError as error:
            raise click.ClickException(f"cannot write {log_file}: {error.strerror}") from None
    del summary["log"]
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    shown = ", ".join(f"{k}={v}" for k, v in result.options.items()) or "-"
    click.echo(f"{result.game}  seed {seed}  options {shown}  sandbox {result.sandbox['mode']}")
    click.echo(f"{'seat':>4}  {'bot':<32} {'score':>7} {'rank':>4}  {'status':<8} {'time':>10}")
    for seat in result.seats:
        click.echo(f"{seat.seat:>4}  {_printable(seat.bot)[-32:]:<32} {seat.score:>7g} {seat.rank:>4}  {seat.status:<8} "
                   f"{seat.time_ms:>8.0f}ms")
        if seat.error:
            click.echo(f"{'':>6}{_printable(seat.error)}")


def _check_writable(path: str) -> None:
    """Refuse an output file that cannot be written, before anything is played."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageProblem(f"cannot write {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise UsageProblem(f"cannot write {path}: it is a folder")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageProblem(f"cannot write {path}: permission denied")


def _register_web_commands() -> None:
    from arena.web.commands import replay_command, serve_command

    main.add_command(serve_command)
    main.add_command(replay_command)


_register_web_commands()


@main.command("check")
@click.argument("bot")
@click.option("--game", help="Check this game only (default: the games its bot.toml names, else every game).")
@click.option("--seed", type=SEED, default=1, show_default=True, help="Seed of the check matches.")
def check_command(bot: str, game: str | None, seed: int) -> None:
    """Check that a bot follows the protocol: short real matches, one line per finding with its fix."""
    from arena.runner.check import check

    findings = check(bot, game, seed)
    for finding in findings:
        click.echo(_printable(finding.line()))
    failed = [f for f in findings if not f.ok]
    click.echo(f"{len(findings) - len(failed)} of {len(findings)} checks passed", err=True)
    if failed:
        raise SystemExit(1)


@main.command("doctor")
def doctor_command() -> None:
    """Print which sandbox protections are active on this machine."""
    from arena.runner import doctor

    lines, ok = doctor.report()
    for line in lines:
        click.echo(line)
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
