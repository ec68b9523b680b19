"""One bot or one match by hand: `arena match`, `arena check`, `arena doctor` (and the web
commands, registered here when the web extra is installed)."""

from __future__ import annotations

import click

from arena.cli import MAX_SEED, SEED, UsageProblem, _check_writable, _limits_given, _printable, limit_options, main

FAILED_STDERR_LINES = 20  # of a failed seat's stderr, printed under its error


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
    from arena.cli.console import console_lines

    shown = ", ".join(f"{k}={v}" for k, v in result.options.items()) or "-"
    click.echo(f"{result.game}  seed {seed}  options {shown}  sandbox {result.sandbox['mode']}")
    width = max([32] + [len(_printable(seat.bot)) for seat in result.seats])  # a path is never cut
    click.echo(f"{'seat':>4}  {'bot':<{width}} {'score':>7} {'rank':>4}  {'status':<8} {'time':>10}")
    for seat in result.seats:
        click.echo(f"{seat.seat:>4}  {_printable(seat.bot):<{width}} {seat.score:>7g} {seat.rank:>4}  {seat.status:<8} "
                   f"{seat.time_ms:>8.0f}ms")
        if seat.error:
            click.echo(f"{'':>6}{_printable(seat.error)}")
        if seat.status != "ok":
            for line in console_lines(seat.stderr, FAILED_STDERR_LINES, " " * 6, " of its stderr; --log FILE keeps all"):
                click.echo(line)


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
    games = list(dict.fromkeys(f.game for f in findings))
    passed = [g for g in games if all(f.ok for f in findings if f.game == g)]
    if game is None and passed and len(passed) < len(games):
        failing = ", ".join(g for g in games if g not in passed)
        click.echo(f"hint: it passes {', '.join(passed)} and fails {failing}: a bot for one game is checked with"
                   f" --game {passed[0]} (or name its games in a bot.toml: games = [\"{passed[0]}\"])", err=True)
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
