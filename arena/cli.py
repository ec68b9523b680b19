"""The `arena` command line: parse, call the library, print. No logic lives here."""

from __future__ import annotations

import contextlib

import click

from arena import __version__
from arena.games import all_games, get_game

DEFAULT_DB = "results/arena.db"  # arena.results.store.DEFAULT_DB; not imported, to keep start-up quick


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
@click.option("--db", envvar="ARENA_DB", default=DEFAULT_DB, show_default=True, metavar="PATH",
              help="The SQLite results database (also the ARENA_DB variable).")
@click.pass_context
def main(ctx: click.Context, db: str) -> None:
    """Tournament harness for bot competitions in Five Towers, Agent Avenue and Fifth Avenue."""
    ctx.obj = {"db": db}


@main.command("games")
def games_command() -> None:
    """List the games with their player counts and options."""
    for game in all_games():
        counts = ", ".join(map(str, game.player_counts))
        click.echo(f"{game.name:<14} {game.title} — {game.description}")
        click.echo(f"{'':<14} players: {counts}")
        for option in game.options:
            click.echo(f"{'':<14} option {option.describe()}")


# ---- results: bots, tournaments, ratings, leaderboards, stored matches ------------------------
# (the library lives in arena.results.store, arena.results.submit, arena.tournament and arena.results.leaderboard)

def _store(ctx: click.Context, create: bool = True):
    from arena.results.store import Store, StoreError

    try:
        return Store(ctx.obj["db"], create=create)
    except StoreError as error:
        raise click.ClickException(str(error)) from None


def _user_errors():
    """The exceptions that are the user's mistake: shown as one line, exit code 1."""
    from arena.runner.bots import BotError
    from arena.games import GameError
    from arena.results.store import StoreError
    from arena.results.submit import SubmitError
    from arena.tournament import TournamentError

    return (BotError, GameError, StoreError, SubmitError, TournamentError)


@contextlib.contextmanager
def _one_line_errors():
    try:
        yield
    except _user_errors() as error:
        raise click.ClickException(str(error)) from None


@main.command("submit")
@click.argument("path")
@click.option("--game", required=True, help="The game the bot plays.")
@click.option("--name", help="The bot's name (default: the file or directory name).")
@click.pass_context
def submit_command(ctx: click.Context, path: str, game: str, name: str | None) -> None:
    """Submit a bot (file or directory): copy it, version it, validate it against the random bot."""
    from arena.results.submit import submit

    with _one_line_errors():
        with _store(ctx) as store:
            outcome = submit(store, path, game, name)
    version = outcome.version
    label = f"{version['game']}/{version['name']} v{version['version']}"
    if not outcome.created:
        click.echo(f"unchanged: {label} already has this content (sha256 {version['content_hash'][:12]})")
        return
    seat = outcome.validation or {}
    click.echo(f"accepted: {label} ({version['language']}, sha256 {version['content_hash'][:12]}),"
               f" validation match ok: {seat.get('decisions', 0)} decisions in {seat.get('time_ms', 0):.0f} ms")


@main.command("bots")
@click.option("--game", help="Only this game's bots.")
@click.pass_context
def bots_command(ctx: click.Context, game: str | None) -> None:
    """List submitted bots and their versions."""
    with _one_line_errors():
        if game:
            get_game(game)
        with _store(ctx, create=False) as store:
            rows = store.bot_versions(game)
    click.echo(f"{'game':<14} {'bot':<24} {'ver':>3}  {'language':<10} {'sha256':<12}  {'submitted':<23}  path")
    for row in rows:
        click.echo(f"{row['game']:<14} {row['name']:<24} {row['version']:>3}  {row['language'] or '-':<10}"
                   f" {row['content_hash'][:12]:<12}  {row['submitted_at'][:23]:<23}  {row['path']}")


@main.group("tournament")
def tournament_group() -> None:
    """Run, resume and inspect round-robin tournaments."""


def _run_with_progress(store, tournament_id: int, workers: int | None) -> None:
    import sys
    import time

    from arena.tournament import run

    pending = store.tournament(tournament_id)["matches_pending"]
    started = time.monotonic()
    with click.progressbar(length=pending, label=f"tournament {tournament_id}", show_pos=True, show_eta=True,
                           item_show_func=lambda text: text, file=sys.stderr) as bar:
        def progress(done: int, total: int) -> None:
            elapsed = time.monotonic() - started
            rate = f"{done / elapsed:.1f} matches/s" if done and elapsed > 0 else ""
            bar.update(done - bar.pos, rate)

        summary = run(store, tournament_id, workers, progress=progress,
                      notify=lambda message: click.echo(f"\n{message}", err=True))
    errors = f", {summary.errors} harness errors" if summary.errors else ""
    if summary.interrupted:
        click.echo(f"tournament {tournament_id} interrupted: {summary.played} matches played{errors},"
                   f" {summary.remaining} left; continue with: arena tournament resume {tournament_id}")
        raise SystemExit(130)
    click.echo(f"tournament {tournament_id} finished: {summary.played} matches played{errors}"
               f" in {summary.seconds:.1f} s")


@tournament_group.command("run")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--game", help="The game (flag form).")
@click.option("--bots", "bots", multiple=True, help="Bots: submitted names (name, name@2) or paths; repeat or comma-separate.")
@click.option("--players", type=int, help="Players per match (default: the game's smallest count).")
@click.option("--rounds", type=int, help="How often the whole round-robin is played (default 1).")
@click.option("--option", "options", multiple=True, help="A game option, key=value (repeatable).")
@click.option("--seed", type=int, help="Tournament seed; every match seed derives from it (default: random).")
@click.option("--workers", type=int, help="Parallel matches (default: one per core).")
@click.option("--name", help="A name for the tournament.")
@click.pass_context
def tournament_run_command(ctx: click.Context, file: str | None, game: str | None, bots: tuple, players: int | None,
                           rounds: int | None, options: tuple, seed: int | None, workers: int | None,
                           name: str | None) -> None:
    """Create a round-robin tournament (from FILE.toml or flags) and play it."""
    from arena.tournament import TournamentConfig, available, create, load_file, parse_options

    bot_list = [entry.strip() for value in bots for entry in value.split(",") if entry.strip()]
    with _one_line_errors():
        if file:
            configs = load_file(file)
        elif game:
            configs = [TournamentConfig(game=game, bots=bot_list)]
        else:
            raise click.UsageError("give a tournament FILE.toml, or --game and --bots")
        overrides = {"players": players, "rounds": rounds, "seed": seed, "workers": workers, "name": name,
                     "bots": bot_list or None, "options": parse_options(list(options)) or None}
        for config in configs:
            for key, value in overrides.items():
                if value is not None:
                    setattr(config, key, value)
        with _store(ctx) as store:
            ran = 0
            for config in configs:
                config, notes = available(config)
                for note in notes:
                    click.echo(note, err=True)
                if config is None:
                    continue
                tournament_id = create(store, config)
                tournament = store.tournament(tournament_id)
                click.echo(f"tournament {tournament_id}: {tournament['game']}, {tournament['entries']} bots,"
                           f" {tournament['players']} players, {tournament['rounds']} round(s),"
                           f" {tournament['matches_total']} matches, seed {tournament['seed']}")
                _run_with_progress(store, tournament_id, config.workers)
                ran += 1
            if not ran:
                click.echo("no tournament could be run (see the notes above)", err=True)


@tournament_group.command("resume")
@click.argument("tournament_id", type=int)
@click.option("--workers", type=int, help="Parallel matches (default: as configured, else one per core).")
@click.pass_context
def tournament_resume_command(ctx: click.Context, tournament_id: int, workers: int | None) -> None:
    """Play the matches of a tournament that have not finished yet."""
    with _one_line_errors():
        with _store(ctx, create=False) as store:
            tournament = store.tournament(tournament_id)
            click.echo(f"tournament {tournament_id}: {tournament['matches_pending']} of"
                       f" {tournament['matches_total']} matches to play")
            _run_with_progress(store, tournament_id, workers)


@tournament_group.command("list")
@click.pass_context
def tournament_list_command(ctx: click.Context) -> None:
    """List tournaments with their progress and status."""
    with _one_line_errors():
        with _store(ctx, create=False) as store:
            rows = store.tournaments()
    click.echo(f"{'id':>4}  {'name':<16} {'game':<14} {'players':>7} {'bots':>4} {'done':>11} {'errors':>6}"
               f"  {'status':<11} created")
    for t in rows:
        done = f"{t['matches_finished'] + t['matches_error']}/{t['matches_total']}"
        click.echo(f"{t['id']:>4}  {(t['name'] or '-')[:16]:<16} {t['game']:<14} {t['players']:>7} {t['entries']:>4}"
                   f" {done:>11} {t['matches_error']:>6}  {t['status']:<11} {t['created_at'][:19]}")


@tournament_group.command("show")
@click.argument("tournament_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def tournament_show_command(ctx: click.Context, tournament_id: int, as_json: bool) -> None:
    """Show a tournament: configuration, entries, progress, failures and standings."""
    import json

    from arena.results.leaderboard import render, tournament_leaderboard
    from arena.tournament import tournament_status

    with _one_line_errors():
        with _store(ctx, create=False) as store:
            t = tournament_status(store, tournament_id)
            board = tournament_leaderboard(store, tournament_id)
    if as_json:
        data = {key: t[key] for key in ("id", "name", "game", "players", "rounds", "seed", "options", "config",
                                        "status", "created_at", "started_at", "finished_at", "matches_total",
                                        "matches_finished", "matches_error", "matches_pending", "rated_through",
                                        "seat_statuses", "errors")}
        data["entries"] = [{k: e[k] for k in ("position", "bot", "version", "path")} for e in t["entries_list"]]
        data["leaderboard"] = json.loads(render([board], "json"))["entries"]
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"tournament {t['id']}{' (' + t['name'] + ')' if t['name'] else ''}: {t['status']}")
    click.echo(f"game {t['game']}, {t['players']} players, options {json.dumps(t['options'], sort_keys=True)},"
               f" {t['rounds']} round(s), seed {t['seed']}")
    click.echo(f"matches: {t['matches_finished']} finished, {t['matches_error']} errors,"
               f" {t['matches_pending']} pending, of {t['matches_total']}; rated through schedule index"
               f" {t['rated_through']}")
    click.echo(f"created {t['created_at']}, started {t['started_at'] or '-'}, finished {t['finished_at'] or '-'}")
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(t["seat_statuses"].items())) or "-"
    click.echo(f"seat statuses: {statuses}")
    for error in t["errors"][:10]:
        click.echo(f"error in match {error['id']} (schedule index {error['schedule_index']}): {error['error']}")
    click.echo("")
    click.echo(render([board], "table"))


@main.group("ratings")
def ratings_group() -> None:
    """Maintain the TrueSkill ratings."""


@ratings_group.command("recompute")
@click.option("--game", help="Only this game.")
@click.pass_context
def ratings_recompute_command(ctx: click.Context, game: str | None) -> None:
    """Rebuild the ratings from the stored matches, in the order they were rated."""
    with _one_line_errors():
        if game:
            get_game(game)
        with _store(ctx, create=False) as store:
            summary = store.recompute_ratings(game)
    click.echo(f"recomputed ratings from {summary['matches']} matches for {summary['bots']} bot versions"
               f"{' (' + game + ')' if game else ''}; largest change in mu or sigma: {summary['max_change']:.3g}")


@main.command("leaderboard")
@click.option("--game", help="The game.")
@click.option("--all-games", is_flag=True, help="Every game that has ratings.")
@click.option("--tournament", "tournament_id", type=int, help="Only this tournament's entries and matches.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@click.option("--limit", type=click.IntRange(min=1), help="At most this many rows (per game).")
@click.pass_context
def leaderboard_command(ctx: click.Context, game: str | None, all_games: bool, tournament_id: int | None,
                        fmt: str, limit: int | None) -> None:
    """Bots ordered by conservative skill (mu - 3 sigma)."""
    from arena.results.leaderboard import game_leaderboard, rated_games, render, tournament_leaderboard

    with _one_line_errors():
        if game:
            get_game(game)
        with _store(ctx, create=False) as store:
            if tournament_id is not None:
                board = tournament_leaderboard(store, tournament_id, limit)
                if game and board["game"] != game:
                    raise click.ClickException(f"tournament {tournament_id} is a {board['game']} tournament")
                boards = [board]
            elif all_games:
                boards = [game_leaderboard(store, name, limit) for name in rated_games(store)]
            elif game:
                boards = [game_leaderboard(store, game, limit)]
            else:
                raise click.UsageError("give --game GAME, --tournament ID or --all-games")
    if not boards and fmt == "table":
        click.echo("no ratings yet")
        return
    click.echo(render(boards, fmt, single=not all_games))


@main.command("show")
@click.argument("match_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Print the stored match as JSON (log included).")
@click.pass_context
def show_command(ctx: click.Context, match_id: int, as_json: bool) -> None:
    """Show a stored match with every decision."""
    import json

    with _one_line_errors():
        with _store(ctx, create=False) as store:
            match = store.match(match_id)
    if as_json:
        click.echo(json.dumps(match, indent=2))
        return
    where = f"tournament {match['tournament_id']} #{match['schedule_index']}" if match["tournament_id"] else "no tournament"
    click.echo(f"match {match['id']} ({where}): {match['game']}, {match['players']} players, seed {match['seed']},"
               f" {match['status']}")
    click.echo(f"options {json.dumps(match['options'], sort_keys=True)}; {match['started_at'] or '-'} .."
               f" {match['ended_at'] or '-'}" + (f" ({match['duration_ms']:.0f} ms)" if match["duration_ms"] else ""))
    if match["error"]:
        click.echo(f"error: {match['error']}")
    names = {s["seat"]: f"{s['bot']} v{s['version']}" for s in match["seats"]}
    click.echo(f"{'seat':>4}  {'bot':<28} {'status':<9} {'score':>7} {'rank':>4} {'time ms':>9} {'decisions':>9}  error")
    for s in match["seats"]:
        score = "-" if s["score"] is None else f"{s['score']:g}"
        time_ms = "-" if s["time_ms"] is None else f"{s['time_ms']:.0f}"
        click.echo(f"{s['seat']:>4}  {names[s['seat']][:28]:<28} {s['status'] or '-':<9} {score:>7}"
                   f" {s['rank'] if s['rank'] is not None else '-':>4} {time_ms:>9} {s['decisions'] or 0:>9}"
                   f"  {s['error'] or ''}")
    reply_ms: dict = {}
    for event in match["log"]:
        kind = event.get("event")
        if kind == "reply":
            reply_ms[(event.get("seat"), event.get("step"))] = event.get("ms")
        elif kind == "action":
            ms = reply_ms.get((event.get("seat"), event.get("step")))
            by = "" if event.get("by") == "bot" else f" ({event.get('by')})"
            timing = f"  {ms:.1f} ms" if isinstance(ms, (int, float)) else ""
            debug = f"  # {event['debug']}" if event.get("debug") else ""
            click.echo(f"step {event.get('step'):>4}  seat {event.get('seat')}{by}:"
                       f" {json.dumps(event.get('action'), sort_keys=True)}{timing}{debug}")
        elif kind == "failure":
            click.echo(f"step {event.get('step') if event.get('step') is not None else '-':>4}  seat {event.get('seat')}"
                       f" FAILED {event.get('status')}: {event.get('error')}")
        elif kind == "end":
            click.echo(f"end: scores {event.get('scores')}, ranks {event.get('ranks')}, statuses {event.get('statuses')}")



# ---- single matches and the machine check ----------------------------------------------------

class UsageProblem(click.ClickException):
    """A mistake in what the user asked for: one line on stderr, exit code 2."""

    exit_code = 2


@main.command("match")
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@click.option("--seed", type=int, help="Match seed (default: random; printed so the match can be replayed).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="A game option (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (without the log).")
@click.option("--log", "log_file", type=click.Path(dir_okay=False, writable=True),
              help="Write the full result, every request and reply included, to this JSON file.")
@click.option("--start-ms", type=click.IntRange(min=1), default=5000, show_default=True, help="Start-up deadline.")
@click.option("--decision-ms", type=click.IntRange(min=1), default=1000, show_default=True, help="Per-decision allowance.")
@click.option("--bank-ms", type=click.IntRange(min=0), default=10000, show_default=True, help="Time bank per match.")
def match_command(game: str, bots: tuple[str, ...], seed: int | None, options: tuple[str, ...], as_json: bool,
                  log_file: str | None, start_ms: int, decision_ms: int, bank_ms: int) -> None:
    """Play one match of GAME between BOTS (one per seat, in seat order) and print the result."""
    import json
    import random as stdlib_random

    from arena.runner.bots import BotError
    from arena.games import GameError
    from arena.runner.match import Limits, MatchSpec, play_match
    from arena.tournament import TournamentError, parse_options

    if seed is None:
        seed = stdlib_random.SystemRandom().randrange(2**31)
    try:
        spec = MatchSpec(game, list(bots), seed, parse_options(list(options)),
                         Limits(start_ms=start_ms, decision_ms=decision_ms, bank_ms=bank_ms))
        result = play_match(spec)
    except (GameError, BotError, TournamentError) as error:
        raise UsageProblem(str(error)) from None
    summary = result.to_dict()
    if log_file:
        with open(log_file, "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=1)
    del summary["log"]
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    shown = ", ".join(f"{k}={v}" for k, v in result.options.items()) or "-"
    click.echo(f"{result.game}  seed {result.seed}  options {shown}  sandbox {result.sandbox['mode']}")
    click.echo(f"{'seat':>4}  {'bot':<32} {'score':>7} {'rank':>4}  {'status':<8} {'time':>10}")
    for seat in result.seats:
        click.echo(f"{seat.seat:>4}  {seat.bot[-32:]:<32} {seat.score:>7g} {seat.rank:>4}  {seat.status:<8} "
                   f"{seat.time_ms:>8.0f}ms")
        if seat.error:
            click.echo(f"{'':>6}{seat.error}")


@main.command("doctor")
def doctor_command() -> None:
    """Print which sandbox protections are active on this machine."""
    from arena.runner import doctor

    for line in doctor.report():
        click.echo(line)


if __name__ == "__main__":  # pragma: no cover
    main()
