"""Debugging a bot on a recorded match: `arena rerun`.

Exit codes: 0 when the re-run reproduced the recorded seat (every decision, and the start-up,
came out the same), 1 when it did not, 2 when it could not be re-run (a bad match id, seat,
step, log file or bot; no sandbox here). Every such mistake is one line on stderr.
"""

from __future__ import annotations

import json
import os

import click

from arena.cli import UsageProblem, _printable, _store, main

REPRODUCED, DIFFERS = 0, 1
STDERR_LINES = 20  # of one step, in the text report (all of it with --json)


@main.command("rerun")
@click.argument("match")
@click.option("--seat", type=click.IntRange(0, 1 << 16), required=True, help="The seat to re-run (0 is the first).")
@click.option("--bot", "bot_path", metavar="PATH",
              help="Run this bot instead of the recorded one (a local copy being fixed).")
@click.option("--from-step", type=click.IntRange(0, 1 << 62), metavar="N",
              help="Start at step N, one of the seat's own: start, then the recorded requests from there.")
@click.option("--all-steps", is_flag=True, help="List every step, not only those that differ, fail or wrote stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (every step, all its stderr).")
@click.pass_context
def rerun_command(ctx: click.Context, match: str, seat: int, bot_path: str | None, from_step: int | None,
                  all_steps: bool, as_json: bool) -> None:
    """Re-run seat S of MATCH (a stored match id, or a file written by `arena match --log`):
    send its bot the exact messages that seat was sent, under the recorded limits and sandbox,
    and report where its replies differ from the recorded ones, with its stderr per step.
    Exit code 0: reproduced; 1: it differs; 2: it could not be re-run."""
    from arena.cli import _user_errors
    from arena.results.rerun_input import RerunInputError, from_log_file, from_store
    from arena.runner.rerun import RerunError, rerun

    try:
        if os.path.exists(match) or not match.isdigit():
            recording = from_log_file(match, seat, need_bot=bot_path is None)
        else:
            with _store(ctx, create=False, readonly=True) as store:
                recording = from_store(store, int(match), seat, need_copy=bot_path is None)
        if bot_path is not None:
            from arena.runner.bots import resolve_bot

            resolve_bot(bot_path)  # a missing or unrunnable bot is refused before anything starts
        chosen = ctx.find_root().params.get("sandbox")  # `arena --sandbox MODE rerun`; else the recorded mode
        if chosen is not None:
            from arena.runner.sandbox import detect

            report = rerun(recording, bot_path, from_step, detect(chosen))
        else:
            report = rerun(recording, bot_path, from_step)
    except (RerunInputError, RerunError, *_user_errors()) as error:
        raise UsageProblem(_printable(str(error))) from None
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        _print_report(report, all_steps)
    raise SystemExit(REPRODUCED if report.reproduced else DIFFERS)


def _print_report(report, all_steps: bool) -> None:
    limits = report.limits
    click.echo(f"{report.recording}, seat {report.seat} ({report.game}): recorded {_printable(report.recorded_bot)},"
               f" {report.recorded_status}")
    if report.bot != report.recorded_bot:
        click.echo(f"re-run with {_printable(report.bot)}")
    click.echo(f"sandbox {report.sandbox}, {report.clock} clock; start {limits['start_ms']:,} ms, decision"
               f" {limits['decision_ms']:,} ms, bank {limits['bank_ms']:,} ms, memory {limits['memory_mb']:,} MiB")
    for note in report.notes:
        click.echo(f"note: {_printable(note)}")
    _print_outcome(report.start, "start", True)
    for outcome in report.steps:
        shown = all_steps or not outcome.same or outcome.status != "ok" or outcome.stderr or outcome.recorded_stderr
        _print_outcome(outcome, f"step {outcome.step}", shown)
    if report.not_reached:
        click.echo(f"not reached: {len(report.not_reached)} recorded request(s) after the failure (steps"
                   f" {report.not_reached[0]}..{report.not_reached[-1]})")
    if report.end_stderr or report.recorded_end_stderr or report.exit:
        click.echo(f"{'end':>10}" + (f"  {_printable(report.exit)}" if report.exit else ""))
        _print_stderr(report.end_stderr, report.recorded_end_stderr)
    differences = sum(not o.same for o in [report.start, *report.steps])
    decided = len(report.steps)
    if report.reproduced:
        click.echo(f"REPRODUCED: {decided} decision(s), all as recorded; status {report.status}")
    else:
        first = report.first_difference
        where = "start-up" if first == "start" else f"step {first}"
        click.echo(f"DIFFERS: {differences} of {decided + 1} message(s) came out otherwise, the first at"
                   f" {where}; status {report.status}"
                   f" (recorded {report.recorded_status})")


def _print_outcome(outcome, what: str, shown: bool) -> None:
    if not shown:
        return
    mark = "same   " if outcome.same else "DIFFERS"
    if outcome.same and outcome.status == "ok":
        click.echo(f"{what:>10}  {mark}  {_answer(outcome.reply, outcome.action, what)}")
    else:
        recorded = _result(outcome.recorded_status, outcome.recorded_error, outcome.recorded_reply,
                           outcome.recorded_action, what)
        now = _result(outcome.status, outcome.error, outcome.reply, outcome.action, what)
        click.echo(f"{what:>10}  {mark}  recorded: {recorded}")
        click.echo(f"{'':>10}  {'':7}  now:      {now}")
    _print_stderr(outcome.stderr, outcome.recorded_stderr)


def _result(status: str, error: str | None, reply: str | None, action, what: str) -> str:
    if status != "ok":
        return f"{status.upper()}: {_printable(error or '')}"
    return _answer(reply, action, what)


def _answer(reply: str | None, action, what: str) -> str:
    if what == "start":
        return _printable(reply or "")
    return f"{_printable(json.dumps(action, sort_keys=True))}   (line {_printable(reply or '')[:120]})"


def _print_stderr(now: str, recorded: str | None) -> None:
    """The stderr of one message now, beside what the match recorded for it (None: the log
    keeps none per decision, and a note said so): once when they are the same."""
    from arena.cli.console import console_lines

    if recorded is None or recorded == now:
        heading = "stderr" if recorded is None else "stderr, as recorded"
        blocks = [(heading, now)] if now else []
    else:
        blocks = [("stderr recorded", recorded), ("stderr now", now)]
    for heading, text in blocks:
        lines = console_lines(text, STDERR_LINES, " " * 12, "; all of them with --json")
        click.echo(f"{'':>12}{heading}:" + ("" if lines else " (none)"))
        for line in lines:
            click.echo(line)
