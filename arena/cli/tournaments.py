"""`arena tournament ...`: create and run, resume, retry, list, plan, show and stats; the
progress display and the stop signals of a command that runs a tournament."""

from __future__ import annotations

import contextlib
import sys

import click

import arena.cli as cli
from arena.cli import ID, SEED, ArenaGroup, UsageProblem, _limits_given, _printable, _store, limit_options, main


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
        stop.restore(handlers=not (stop.signal is not None and cli.EXITS_AFTER_COMMAND))


def _report_run(summary, tournament_id: int) -> None:
    errors = f", {summary.errors} harness errors" if summary.errors else ""
    if summary.problem:
        click.echo(f"tournament {tournament_id} stopped: {summary.played} matches played{errors},"
                   f" {summary.remaining} left; continue with: arena tournament resume {tournament_id}")
        raise click.ClickException(_printable(summary.problem))
    if summary.interrupted:
        import signal

        if summary.signal and cli.EXITS_AFTER_COMMAND:
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
@click.option("--finals", metavar="NxR,...", help="Swiss: after its rounds, a round-robin of the top N, R times, for each"
                                                  " NxR in turn (e.g. 30x1,16x6).")
@limit_options
@click.pass_context
def tournament_run_command(ctx: click.Context, file: str | None, game: str | None, bots: tuple, players: int | None,
                           rounds: int | None, options: tuple, seed: int | None, workers: int | None,
                           name: str | None, restart: str | None, duplicate: bool | None, keep_bots: int | None,
                           executor: str | None, scheduler: str | None, fmt: str | None, candidates: tuple,
                           finals: str | None, **limits) -> None:
    """Create a tournament (from FILE.toml or flags) and play it."""
    from arena.tournament.config import parse_finals

    overrides = {"format": fmt, "candidates": _entries(candidates) or None,
                 "finals": parse_finals(finals) if finals is not None else None}
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
                from arena.cli.formats import _sprt_verdict

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
            from arena.cli.formats import _sprt_verdict

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
            from arena.cli.formats import _sprt_verdict

            _sprt_verdict(store, tournament_id)


@tournament_group.command("list")
@click.pass_context
def tournament_list_command(ctx: click.Context) -> None:
    """List tournaments with their format, progress and status."""
    from arena.results.describe import planned_matches

    with _store(ctx, readonly=True) as store:
        rows = store.tournaments()
    click.echo(f"{'id':>4}  {'name':<16} {'game':<14} {'format':<12} {'players':>7} {'bots':>4} {'done':>13}"
               f" {'errors':>6}  {'status':<11} created")
    for t in rows:
        total, exact = planned_matches(t, t["entries"])
        planned = "?" if total is None else f"{'' if exact else '≤'}{total}"
        done = f"{t['matches_finished'] + t['matches_error']}/{planned}"
        kind = t.get("format") or (t.get("config") or {}).get("format") or "round-robin"
        kind += "+finals" if (t.get("config") or {}).get("finals") else ""
        click.echo(f"{t['id']:>4}  {_printable(t['name'] or '-')[:16]:<16} {t['game']:<14} {kind:<12} {t['players']:>7}"
                   f" {t['entries']:>4} {done:>13} {t['matches_error']:>6}  {t['status']:<11} {t['created_at'][:19]}")


@tournament_group.command("plan")
@click.option("--bots", "bot_count", type=click.IntRange(2, 100_000), required=True, help="How many bots.")
@click.option("--players", type=click.IntRange(2, 64), default=2, show_default=True, help="Players per match.")
@click.option("--no-duplicate", is_flag=True, help="Count matches without duplicate deals.")
@click.option("--game", help="The game: its measured figures only, and its name in the advised command.")
def tournament_plan_command(bot_count: int, players: int, no_duplicate: bool, game: str | None) -> None:
    """Before a run: the matches a round-robin of N bots costs, and a cheaper plan."""
    from arena.games import get_game
    from arena.tournament.advice import plan_text

    if game is not None:
        get_game(game)  # an unknown game: one line naming the known ones
    click.echo(plan_text(bot_count, players, not no_duplicate, game))


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
