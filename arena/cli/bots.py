"""`arena submit` and `arena bots`: submitting bots, listing, withdrawing and reinstating them."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli import ArenaGroup, UsageProblem, _printable, _store, main


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
            first, *rest = (outcome.error or "").splitlines() or [""]
            click.echo(f"refused: {_printable(str(outcome.source))}: {_printable(first)}")
            for line in rest:  # as `submit` of one bot prints them: the tail of its stderr, or of its build
                click.echo(f"    {_printable(line)}")
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
@click.option("--url", "base_url", metavar="BASE", default="http://127.0.0.1:8000", show_default=True,
              help="Where `arena serve` is reached: each bot's page is BASE/games/GAME/bots/NAME.")
@click.pass_context
def bots_command(ctx: click.Context, game: str | None, base_url: str) -> None:
    """List submitted bots and their versions, each with its page's link (and withdraw or
    reinstate them)."""
    from urllib.parse import quote

    from arena.games import get_game

    if ctx.invoked_subcommand is not None:
        return
    if game:
        get_game(game)
    from arena.contest.bot_links import bot_links

    with _store(ctx, readonly=True) as store:
        rows = store.bot_versions(game)
        links = bot_links(store)  # contest entrants' pages (LINK_BASE/bots/NAME)
    click.echo(f"{'game':<14} {'bot':<24} {'ver':>3}  {'language':<10} {'sha256':<12}  {'submitted':<23}  path")
    for row in rows:
        withdrawn = "  (withdrawn)" if row["bot_withdrawn"] or row["version_withdrawn"] else ""
        link = links.get((row["game"], row["name"])) or \
            f"{base_url.rstrip('/')}/games/{quote(row['game'], safe='')}/bots/{quote(row['name'], safe='')}"
        page = f"  {_printable(link)}"
        click.echo(f"{row['game']:<14} {_printable(row['name']):<24} {row['version']:>3}  {_printable(row['language'] or '-'):<10}"
                   f" {row['content_hash'][:12]:<12}  {row['submitted_at'][:23]:<23}  {_printable(row['path'])}{withdrawn}{page}")


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
