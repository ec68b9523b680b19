"""`arena contest`: set up a contest, add entrants, print their sign-in links, run it (the
contest runner), act as its organiser, start the final and export the grades.

The set-up commands (create, entrants add, links) write the results database directly; what
happens while a contest runs (uploads, test requests, withdrawals, closing, the final) goes
through the contest's inbox to its runner, the one writer (`arena.contest`)."""

from __future__ import annotations

import contextlib
import csv
import io
import sys

import click

from arena.cli import ArenaGroup, _printable, _store, main


@contextlib.contextmanager
def _contest_errors():
    """The contest's own refusals are one line on stderr, exit 1, like every other mistake."""
    from arena.contest.config import ContestError
    from arena.contest.entrants import EntrantsError
    from arena.contest.inbox import InboxRefusal
    from arena.contest.uploads import UploadRefused

    try:
        yield
    except EntrantsError as error:
        for problem in error.problems:
            click.echo(f"Error: {_printable(problem)}", err=True)
        raise SystemExit(1) from None
    except (ContestError, InboxRefusal, UploadRefused) as error:
        raise click.ClickException(_printable(str(error))) from None


def _open(ctx, name: str, readonly: bool = False):
    from arena.contest import records

    store = _store(ctx, create=False, readonly=readonly)
    try:
        return store, records.contest(store, name)
    except BaseException:
        store.close()
        raise


def _inbox(ctx, contest: dict):
    from arena.contest.inbox import Inbox, folder_for

    return Inbox(folder_for(ctx.obj["db"], contest["name"]))


@main.group("contest", cls=ArenaGroup)
def contest_group() -> None:
    """A contest: entrants with sign-in links upload bots; a runner ladders them; then the final."""


@contest_group.command("create")
@click.argument("name")
@click.option("--game", help="The game played (or 'game' in the --config file).")
@click.option("--players", type=click.IntRange(2, 64), help="Players per match (default: the game's fewest).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="A TOML file of settings (docs/contest.md).")
@click.option("--deadline", help="When submissions close, ISO 8601 UTC (2026-12-20T18:00:00Z).")
@click.option("--link-base", help="The address sign-in links start with (default http://127.0.0.1:8000).")
@click.option("--public-replays", is_flag=True, default=None, help="Everyone may see full views of finished matches.")
@click.pass_context
def contest_create_command(ctx, name, game, players, config_file, deadline, link_base, public_replays) -> None:
    """Create contest NAME and its running ladder; print the organiser's sign-in link."""
    from arena.contest import records, tokens
    from arena.contest.config import ContestConfig, ContestError, KEYS

    settings: dict = {}
    if config_file:
        import tomllib

        try:
            with open(config_file, "rb") as handle:
                settings = tomllib.load(handle)
        except OSError as error:
            raise click.ClickException(f"cannot read {config_file}: {error.strerror}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise click.ClickException(f"{config_file}: not valid TOML ({error})") from None
        unknown = sorted(set(settings) - set(KEYS))
        if unknown:
            raise click.ClickException(f"{config_file}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    given = {"game": game, "players": players, "deadline": deadline, "link_base": link_base,
             "public_replays": public_replays}
    settings.update({key: value for key, value in given.items() if value is not None})
    if "game" not in settings:
        raise click.UsageError("name the game: --game GAME (or game = \"...\" in the --config file)")
    with _contest_errors(), _store(ctx) as store:
        try:
            config = ContestConfig(**settings)
        except TypeError as error:
            raise ContestError(str(error)) from None
        contest, token = records.create_contest(store, name, config)
    click.echo(f"created contest {_printable(contest['name'])}: {contest['game']}, {contest['players']} players,"
               f" ladder = tournament {contest['ladder_id']}")
    click.echo(f"organiser's link (keep it secret; shown once): {tokens.sign_in_link(contest['config'].link_base, token)}")


@contest_group.command("list")
@click.pass_context
def contest_list_command(ctx) -> None:
    """List the contests in the database."""
    from arena.contest import records

    with _store(ctx, create=False, readonly=True) as store:
        rows = records.contests(store)
    click.echo(f"{'contest':<24} {'game':<14} {'entrants':>8} {'uploads':>8}  state")
    for row in rows:
        state = "open" if row["closed_at"] is None else f"closed {row['closed_at'][:16]}"
        if row["final_id"]:
            state += f", final = tournament {row['final_id']}"
        click.echo(f"{_printable(row['name']):<24} {row['game']:<14} {row['entrants']:>8} {row['submissions']:>8}  {state}")


@contest_group.command("show")
@click.argument("name")
@click.pass_context
def contest_show_command(ctx, name) -> None:
    """Show a contest: settings, counts, what waits, the leaderboard."""
    from arena.contest import views
    from arena.contest.inbox import Inbox, folder_for

    with _contest_errors():
        store, contest = _open(ctx, name, readonly=True)
    with store, Inbox(folder_for(ctx.obj["db"], contest["name"]), readonly=True) as inbox:
        summary = views.summary(store, contest)
        waiting = views.queue(inbox, store, contest)
        board = views.leaderboard(store, contest)
    state = "open" if summary["open"] else f"closed at {summary['closed_at'][:19]}"
    click.echo(f"contest {_printable(summary['name'])}: {summary['game']}, {summary['players']} players;"
               f" submissions {state}; deadline {summary['deadline'] or 'none'}")
    click.echo(f"entrants: {summary['entrants']} ({summary['with_bot']} with an accepted bot);"
               f" uploads: {summary['submissions']} ({summary['refused']} refused)")
    click.echo(f"waiting: {len(waiting['inbox'])} in the inbox, {waiting['test_matches']} test matches,"
               f" {waiting['ladder_matches']} ladder matches; ladder: {summary['ladder']['matches_finished']} played")
    if summary["final"]:
        final = summary["final"]
        click.echo(f"final: tournament {final['id']} ({final['format']}), {final['status']},"
                   f" {final['matches_finished']} of {final['matches_total']} matches played so far")
    if board:
        click.echo(f"{'rank':>4}  {'entrant':<24} {'ver':>3} {'rating':>7} {'matches':>7} {'failures':>8}")
    for row in board:
        rating = "" if row["rating"] is None else f"{row['rating']:.2f}"
        click.echo(f"{row['rank'] or '-':>4}  {_printable(row['name']):<24} {row['version']:>3} {rating:>7}"
                   f" {row['matches']:>7} {row['failures']:>8}")


@contest_group.group("entrants", cls=ArenaGroup)
def entrants_group() -> None:
    """Add or list a contest's entrants."""


def _print_links(issued: list[dict], base: str, csv_path: str | None) -> None:
    from arena.contest.tokens import sign_in_link

    rows = [(row["name"], row["email"], sign_in_link(base, row["token"])) for row in issued]
    if csv_path:
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(("name", "email", "link"))
        writer.writerows(rows)
        if csv_path == "-":
            sys.stdout.write(text.getvalue())
            return
        with open(csv_path, "x", encoding="utf-8") as out:  # never overwrite an earlier file of links
            out.write(text.getvalue())
        click.echo(f"wrote {len(rows)} sign-in links to {csv_path} (keep it secret)", err=True)
        return
    for name, email, link in rows:
        click.echo(f"{_printable(name)}\t{_printable(email)}\t{link}")


@entrants_group.command("add")
@click.argument("name")
@click.argument("csv_file", type=click.Path(dir_okay=False))
@click.option("--csv", "csv_path", metavar="FILE", help="Write name,email,link to FILE ('-': standard output).")
@click.pass_context
def entrants_add_command(ctx, name, csv_file, csv_path) -> None:
    """Add entrants from CSV_FILE (columns name and email) and print their sign-in links."""
    from arena.contest import records
    from arena.contest.entrants import EntrantsError, parse

    try:
        with open(csv_file, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise click.ClickException(f"cannot read {csv_file}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise click.ClickException(f"{csv_file} is not UTF-8 text") from None
    with _contest_errors():
        store, contest = _open(ctx, name)
        with store:
            try:
                rows = parse(text, records.entrant_names(store, contest["id"]))
            except EntrantsError as error:
                raise EntrantsError([f"{csv_file}: {p}" for p in error.problems] + ["nothing was added"]) from None
            issued = records.add_entrants(store, contest["id"], rows)
    click.echo(f"added {len(issued)} entrants", err=True)
    _print_links(issued, contest["config"].link_base, csv_path)


@entrants_group.command("list")
@click.argument("name")
@click.pass_context
def entrants_list_command(ctx, name) -> None:
    """List the entrants: e-mail, current version, uploads accepted and refused."""
    from arena.contest import views

    with _contest_errors():
        store, contest = _open(ctx, name, readonly=True)
    with store:
        rows = views.entrants(store, contest)
    click.echo(f"{'entrant':<24} {'e-mail':<32} {'ver':>3} {'accepted':>8} {'refused':>7}")
    for row in rows:
        extra = "  (withdrawn)" if row["withdrawn"] else ""
        click.echo(f"{_printable(row['name']):<24} {_printable(row['email']):<32} {row['version'] or '-':>3}"
                   f" {row['accepted']:>8} {row['refused']:>7}{extra}")


@contest_group.command("links")
@click.argument("name")
@click.option("--entrant", "names", multiple=True, help="Only this entrant (repeat for more; default: all).")
@click.option("--organiser", is_flag=True, help="A new organiser's link instead.")
@click.option("--csv", "csv_path", metavar="FILE", help="Write name,email,link to FILE ('-': standard output).")
@click.option("--link-base", help="The address links start with (default: the contest's link_base).")
@click.pass_context
def contest_links_command(ctx, name, names, organiser, csv_path, link_base) -> None:
    """Issue new sign-in links (only their hashes are kept, so old ones stop working)."""
    from arena.contest import records, tokens

    with _contest_errors():
        store, contest = _open(ctx, name)
        base = link_base or contest["config"].link_base
        with store:
            if organiser:
                token = records.reissue_organiser_token(store, contest["id"])
                click.echo(f"organiser's link: {tokens.sign_in_link(base, token)}")
                return
            issued = records.reissue_tokens(store, contest["id"], list(names) or None)
    _print_links(issued, base, csv_path)


@contest_group.command("run")
@click.argument("name")
@click.option("--workers", type=click.IntRange(1, 256), help="Match workers (default: the contest's, else one per core).")
@click.option("--build-jobs", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Uploads built and validated at once.")
@click.pass_context
def contest_run_command(ctx, name, workers, build_jobs) -> None:
    """Run the contest (its one writer) until Ctrl-C: uploads, test matches, the ladder, the final."""
    import signal
    import threading

    from arena.contest.runner import ContestRunner
    from arena.runner.sandbox import detect

    detect()  # refuse at once where bots cannot be sandboxed
    stop = threading.Event()
    with _contest_errors():
        runner = ContestRunner(ctx.obj["db"], name, workers=workers, build_jobs=build_jobs,
                               notify=lambda line: click.echo(_printable(line), err=True))
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    previous = {n: signal.getsignal(getattr(signal, n)) for n in names}
    for n in names:
        signal.signal(getattr(signal, n), lambda *_: stop.set())
    click.echo(f"running contest {_printable(name)} with {runner.workers} workers (Ctrl-C stops)", err=True)
    try:
        stats = runner.run(stop)
    finally:
        for n, handler in previous.items():
            signal.signal(getattr(signal, n), handler)
    click.echo(f"stopped: {stats.uploads} uploads ({stats.accepted} accepted, {stats.refused} refused),"
               f" {stats.ladder_matches} ladder, {stats.test_matches} test, {stats.final_matches} final matches",
               err=True)


@contest_group.command("upload")
@click.argument("name")
@click.argument("entrant")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.pass_context
def contest_upload_command(ctx, name, entrant, path) -> None:
    """Upload a bot file or zip for ENTRANT, as their page does (limits apply)."""
    from arena.contest import records

    with _contest_errors():
        store, contest = _open(ctx, name, readonly=True)
        with store:
            records.entrant(store, contest["id"], entrant)
        config = contest["config"]
        with _inbox(ctx, contest) as inbox, open(path, "rb") as data:
            received = inbox.add_upload(entrant, path, data, config.upload_bytes, config.submissions_per_day)
    click.echo(f"received upload {received.id} for {_printable(entrant)}; the runner builds and validates it")


@contest_group.command("test")
@click.argument("name")
@click.argument("entrant")
@click.argument("opponents", nargs=-1, required=True)
@click.option("--matches", type=click.IntRange(1, 20), default=1, show_default=True, help="Matches per opponent.")
@click.pass_context
def contest_test_command(ctx, name, entrant, opponents, matches) -> None:
    """Ask for unrated test matches of ENTRANT against OPPONENTS, as their page does."""
    from arena.contest import records

    with _contest_errors():
        store, contest = _open(ctx, name, readonly=True)
        with store:
            records.entrant(store, contest["id"], entrant)
        with _inbox(ctx, contest) as inbox:
            received = inbox.add_test_request(entrant, list(opponents), matches,
                                              contest["config"].test_matches_per_hour)
    click.echo(f"received request {received.id}; the runner plays it ahead of the ladder")


@contest_group.command("action")
@click.argument("name")
@click.argument("what", type=click.Choice(["withdraw", "reinstate", "close", "open", "deadline"]))
@click.argument("value", required=False)
@click.pass_context
def contest_action_command(ctx, name, what, value) -> None:
    """Act as the organiser: withdraw ENTRANT, reinstate ENTRANT, close, open, deadline ISO|none.

    The runner carries it out (at once if it runs, else when it starts)."""
    details = {}
    if what in ("withdraw", "reinstate"):
        if not value:
            raise click.UsageError(f"{what} needs the entrant's name")
        details["entrant"] = value
    elif what == "deadline":
        if not value:
            raise click.UsageError("deadline needs a date and time (2026-12-20T18:00:00Z) or 'none'")
        if value != "none":
            from arena.contest.config import parse_deadline

            with _contest_errors():
                parse_deadline(value)
        details["deadline"] = None if value == "none" else value
    elif value:
        raise click.UsageError(f"{what} takes no value")
    with _contest_errors():
        store, contest = _open(ctx, name, readonly=True)
        store.close()
        with _inbox(ctx, contest) as inbox:
            received = inbox.add_action(what, **details)
    click.echo(f"received action {received.id} ({what}); the contest's runner carries it out")


@contest_group.command("final")
@click.argument("name")
@click.pass_context
def contest_final_command(ctx, name) -> None:
    """Close submissions and start the final (the runner plays it; `show` tells its progress)."""
    with _contest_errors():
        store, contest = _open(ctx, name, readonly=True)
        store.close()
        with _inbox(ctx, contest) as inbox:
            received = inbox.add_action("final")
    click.echo(f"received action {received.id} (final); the contest's runner closes submissions and plays the final")


@contest_group.command("grades")
@click.argument("name")
@click.option("--output", "-o", metavar="FILE", help="Write the CSV to FILE instead of standard output.")
@click.pass_context
def contest_grades_command(ctx, name, output) -> None:
    """The final's standings as CSV: name, email, rank, band, rating (with its 95 % range)."""
    from arena.contest.final import grades_csv, standings

    with _contest_errors():
        store, contest = _open(ctx, name, readonly=True)
        with store:
            text = grades_csv(standings(store, contest))
    if output:
        with open(output, "w", encoding="utf-8") as out:
            out.write(text)
        click.echo(f"wrote {output}", err=True)
    else:
        sys.stdout.write(text)


@contest_group.command("standings")
@click.argument("name")
@click.pass_context
def contest_standings_command(ctx, name) -> None:
    """The final's standings: rank, band (bots with one band cannot be told apart at 95 %), rating."""
    from arena.contest.final import standings

    with _contest_errors():
        store, contest = _open(ctx, name, readonly=True)
        with store:
            rows = standings(store, contest)
    click.echo(f"{'rank':>4} {'band':>4}  {'entrant':<24} {'rating':>7}  {'95 % range':<15} {'matches':>7}")
    for row in rows:
        if row.rank is None:
            click.echo(f"{'-':>4} {'-':>4}  {_printable(row.name):<24}  (not in the final)")
            continue
        low, high = row.rating_interval
        click.echo(f"{row.rank:>4} {row.band:>4}  {_printable(row.name):<24} {round(row.rating, 1) + 0.0:>7.1f}  "
                   f"{f'{low:.0f} to {high:.0f}':<15} {row.matches:>7}")
