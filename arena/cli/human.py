"""`arena play`: a person plays bots in the browser, on a page served on this machine only."""

from __future__ import annotations

import click

from arena.cli import SEED, UsageProblem, _limits_given, _printable, _store, limit_options, main


@main.command("play")
@click.argument("game")
@click.option("--vs", "opponents", required=True, metavar="BOT[,BOT...]",
              help="The bots to play: names of submitted bots (name or name@2) or paths, comma-separated, one per seat.")
@click.option("--seat", type=click.IntRange(0, 63), help="Your seat, from 0 (default: a random one).")
@click.option("--seed", type=SEED, help="Tournament seed of the match (default: random).")
@click.option("--name", help="Your name: you are stored as a bot of language 'human' (default: your login name).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port of the page on 127.0.0.1 (0: any free one).")
@click.option("--think-seconds", type=click.FloatRange(1, 86_400), default=120, show_default=True,
              help="Your time per decision (wall clock).")
@click.option("--bank-seconds", type=click.FloatRange(0, 86_400), default=600, show_default=True,
              help="Your time bank on top, for the decisions that take longer.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="A game option (repeatable).")
@click.option("--no-browser", is_flag=True, help="Only print the page's address; do not open a browser.")
@limit_options
@click.pass_context
def play_command(ctx: click.Context, game: str, opponents: str, seat: int | None, seed: int | None, name: str | None,
                 port: int, think_seconds: float, bank_seconds: float, options: tuple[str, ...], no_browser: bool,
                 **limits) -> None:
    """Play GAME yourself against bots, in your browser. The match is stored and rated like
    any other (you as a bot of language 'human'); the command ends when the match does."""
    import getpass
    import threading
    import webbrowser

    import uvicorn

    from arena.tournament.config import parse_options
    from arena.tournament.humanplay import PlayHost, prepare
    from arena.web.app import create_app

    entries = [entry.strip() for entry in opponents.split(",") if entry.strip()]
    if not entries:
        raise UsageProblem("--vs needs at least one bot")
    name = name or getpass.getuser()
    with _store(ctx) as store:
        match = prepare(store, game, entries, name, seat, seed, parse_options(list(options)), think_seconds,
                        bank_seconds, _limits_given(limits))
    host = PlayHost(match.db_path, think_seconds, bank_seconds)
    host.add(match.start())
    config = uvicorn.Config(create_app(match.db_path, play=host), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)

    def announce_and_watch() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if server.should_exit:
            return
        bound = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{bound}/play/{match.token}"
        click.echo(f"{name} in seat {match.seat} of {game} against {', '.join(entries)}: match {match.match_id}")
        click.echo(f"play at {url}  (Ctrl-C to leave; your seat is then played by random moves)")
        if not no_browser:
            webbrowser.open(url)
        match.thread.join()
        match.end_seen.wait(10.0)  # let the page show the stored end first
        server.should_exit = True

    threading.Thread(target=announce_and_watch, daemon=True).start()
    server.run()  # ends with the match, or on Ctrl-C (then the person leaves: see create_app's shutdown)
    match.leave()
    match.thread.join()
    if match.human.problem:
        raise click.ClickException(_printable(match.human.problem))
    result = match.result or {}
    click.echo(f"match {match.match_id} stored and rated")
    for number, seat_result in enumerate(result.get("seats", [])):
        who = match.names[number] + (" (you)" if number == match.seat else "")
        click.echo(f"{number:>4}  {_printable(who)[-32:]:<32} {seat_result['score']:>7g} {seat_result['rank']:>4}"
                   f"  {seat_result['status']:<8}")
        if seat_result.get("error"):
            click.echo(f"{'':>6}{_printable(seat_result['error'])}")
