"""The click commands of the web viewer: ``arena serve`` and ``arena replay``.

`serve_command` and `replay_command` are plain `click.Command` objects; the CLI registers
them with ``main.add_command``. Like the other commands they take the database from
``ctx.obj["db"]`` (the global ``--db`` / ``ARENA_DB``); ``serve`` also accepts its own
``--db``. Both only read the database, except the matches people play at ``/play`` (served
on a loopback address, or with ``--play``: `arena.tournament.humanplay` stores them).
"""

from __future__ import annotations

from pathlib import Path

import click

DEFAULT_DB = "results/arena.db"


def _db(ctx: click.Context, given: str | None) -> str:
    if given:
        return given
    obj = ctx.obj or {}
    return obj.get("db") or DEFAULT_DB


def is_loopback(host: str) -> bool:
    """Whether ``host`` is only reachable from this machine."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@click.command("serve")
@click.option("--db", "db", metavar="PATH", help="The results database (default: the global --db).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--play/--no-play", "play", default=None,
              help="Let visitors play bots at /play (default: only when HOST is a loopback address).")
@click.option("--think-seconds", type=click.FloatRange(1, 86_400), default=120, show_default=True,
              help="A person's time per decision at /play (wall clock).")
@click.option("--bank-seconds", type=click.FloatRange(0, 86_400), default=600, show_default=True,
              help="A person's time bank on top at /play.")
@click.option("--contest", metavar="NAME", help="Serve this contest (sign-in, uploads, the organiser's page) and"
              " run its runner.")
@click.option("--https-cookies", is_flag=True, help="With --contest: mark the session cookie Secure (behind an"
              " HTTPS reverse proxy).")
@click.pass_context
def serve_command(ctx: click.Context, db: str | None, host: str, port: int, play: bool | None,
                  think_seconds: float, bank_seconds: float, contest: str | None, https_cookies: bool) -> None:
    """Serve leaderboards, bots, tournaments and match replays on the web (read-only); on a
    loopback address (or with --play) also a page where people play bots, which stores those
    matches; or, with --contest, a contest's server and its runner."""
    import uvicorn

    from arena.web.app import create_app
    from arena.web.data import StoreError

    path = _db(ctx, db)
    if contest is not None:
        if play:
            raise click.UsageError("--play does not go with --contest (a contest's server has no /play)")
        _serve_contest(path, contest, host, port, https_cookies)
        return
    if https_cookies:
        raise click.UsageError("--https-cookies goes with --contest (the plain viewer has no cookies)")
    if play is None:
        play = is_loopback(host)
    host_of_play = None
    if play:
        from arena.tournament.humanplay import PlayHost

        host_of_play = PlayHost(path, think_seconds, bank_seconds)
    try:
        app = create_app(path, play=host_of_play)
    except StoreError as error:
        raise click.ClickException(str(error)) from None
    what = "read-only; people play bots at /play, and those matches are stored" if play else "read-only"
    click.echo(f"serving {path} ({what}) on http://{host}:{port}/  (Ctrl-C to stop)")
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _serve_contest(path: str, contest: str, host: str, port: int, https_cookies: bool) -> None:
    from arena.contest.config import ContestError
    from arena.web.contest.serve import serve_contest
    from arena.web.data import StoreError

    try:
        serve_contest(path, contest, host, port, https_cookies, click.echo)
    except (StoreError, ContestError) as error:
        raise click.ClickException(str(error)) from None


@click.command("replay")
@click.argument("match_id", type=int)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="The HTML file to write (default: match-ID.html).")
@click.pass_context
def replay_command(ctx: click.Context, match_id: int, output: str | None) -> None:
    """Write one match's replay viewer as a self-contained HTML file (no network needed)."""
    from arena.web.data import NotFound, StoreError
    from arena.web.export import write_replay
    from arena.web.replay import ReplayUnavailable

    path = Path(output or f"match-{match_id}.html")
    try:
        facts = write_replay(_db(ctx, None), match_id, path)
    except (StoreError, NotFound, ReplayUnavailable) as error:
        raise click.ClickException(str(error)) from None
    check = facts["verification"] or {}
    note = "replay matches the log" if check.get("ok") else "WARNING: the replay differs from the log"
    click.echo(f"wrote {path}: match {match_id}, {facts['frames']} frames, {len(facts['views'])} views,"
               f" {facts['bytes'] / 1024:.0f} KiB; {note}")
