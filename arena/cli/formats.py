"""`arena sprt` and `arena ladder ...`: the formats that plan as they go."""

from __future__ import annotations

import click

from arena.cli import ID, ArenaGroup, UsageProblem, _printable, _store, main
from arena.cli.tournaments import _create_and_run, _entries, _format_command_options, _run_with_progress, _stopping


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
