"""Reading results: `arena export`, `ratings`, `leaderboard`, `similar`, `show` and `failures`."""

from __future__ import annotations

import sys

import click

from arena.cli import ID, MAX_ID, ArenaGroup, UsageProblem, _check_writable, _printable, _store, main


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
@click.option("--no-humans", "no_humans", is_flag=True,
              help="Leave out people who played with arena play (game leaderboards; they are in by default).")
@click.option("--confidence", is_flag=True, help="Add each rank's 90% bootstrap interval by mean points (a running tournament;"
              " a finished one's refit standings always show 95% intervals and bands).")
@click.pass_context
def leaderboard_command(ctx: click.Context, game: str | None, all_games: bool, tournament_id: int | None,
                        fmt: str, limit: int | None, all_versions: bool, confidence: bool, no_humans: bool) -> None:
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
            boards = [game_leaderboard(store, name, limit, versions, humans=not no_humans)
                      for name in rated_games(store)]
        else:
            boards = [game_leaderboard(store, game, limit, versions, humans=not no_humans)]
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
@click.option("--stderr-lines", type=click.IntRange(0, 100000), default=5, show_default=True,
              help="Last lines of the bot's stderr shown under each decision (0: none).")
@click.option("--all-stderr", is_flag=True, help="Every line of the bot's stderr under each decision.")
@click.pass_context
def show_command(ctx: click.Context, match_id: int, as_json: bool, stderr_lines: int, all_stderr: bool) -> None:
    """Show a stored match with every decision, and what each bot wrote to stderr during it."""
    import json

    from arena.cli.console import console_lines

    keep = None if all_stderr else stderr_lines

    def console(text: str | None) -> None:
        for line in console_lines(text, keep, "            ", "; --all-stderr shows them"):
            click.echo(line)

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
    said = {(e.get("seat"), e.get("step")): e.get("stderr") for e in match["log"] if e.get("event") == "reply"}
    for event in match["log"]:
        kind = event.get("event")
        if kind == "ready" and event.get("stderr") and keep != 0:
            click.echo(f"start-up  seat {event.get('seat')}: stderr")
            console(event["stderr"])
        elif kind == "stderr" and keep != 0:
            click.echo(f"after end  seat {event.get('seat')}: stderr")
            console(event.get("stderr"))
        elif kind == "action":
            times = decision_times.get((event.get("seat"), event.get("step")))
            by = "" if event.get("by") == "bot" else f" ({event.get('by')})"
            timing = f"  [{timings.describe(times)}]" if times else ""
            debug = f"  # {_printable(event['debug'])}" if event.get("debug") else ""
            click.echo(f"step {event.get('step'):>4}  seat {event.get('seat')}{by}:"
                       f" {json.dumps(event.get('action'), sort_keys=True)}{timing}{debug}")
            if event.get("by") == "bot" and keep != 0:
                console(said.get((event.get("seat"), event.get("step"))))
        elif kind == "failure":
            click.echo(f"step {event.get('step') if event.get('step') is not None else '-':>4}  seat {event.get('seat')}"
                       f" FAILED {event.get('status')}: {_printable(event.get('error'))}")
            if keep != 0:
                console(event.get("stderr") or said.get((event.get("seat"), event.get("step"))))
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
            click.echo(f"    reproduce it: arena rerun {row['match_id']} --seat {row['seat']}")
            if stderr_lines:
                tail = printable(store.stderr_of(row["match_id"], row["seat"])).rstrip().splitlines()[-stderr_lines:]
                for line in tail:
                    click.echo(f"    | {line}")


def _failure_times(store, row: dict) -> str:
    from arena.results import timings

    match = store.match(row["match_id"])
    return timings.failure_summary(match["log"], row["seat"], timings.clock_of(match))


# ---- single matches and the machine check ----------------------------------------------------
