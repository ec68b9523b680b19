"""The `arena` command line: parse, call the library, print. No logic lives here.

This module holds the command group and what every command shares; each group of commands
lives in a module of its own (bots, tournaments, formats, results, play, human), imported at the end
so that they register.

Every mistake is one line on stderr starting ``Error:``: exit code 1, or 2 for a mistake in
the command line itself or a malformed environment variable (`arena.settings`). Nothing a bot
wrote is printed unescaped.
"""

from __future__ import annotations

import contextlib
import os
import sys

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


def _check_writable(path: str) -> None:
    """Refuse an output file that cannot be written, before anything is played."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageProblem(f"cannot write {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise UsageProblem(f"cannot write {path}: it is a folder")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageProblem(f"cannot write {path}: permission denied")


# True when this interpreter is the `arena` command (arena.entry sets it): it exits after the
# command, so on a signal it ignores further ones instead of restoring the caller's handlers.
# In-process callers (tests, embedding programs) always get their handlers back.
EXITS_AFTER_COMMAND = False


from arena.cli import bots, contest, debug, formats, human, play, results, tournaments  # noqa: E402,F401  (they register their commands)
