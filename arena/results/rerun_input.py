"""What one seat of a recorded match was sent and answered, read back for `arena rerun`: from
the store (a match id) or from a file written by `arena match --log`, as an
`arena.runner.rerun.Recording`.

The match log keeps every message sent: the ``start`` message and each ``request`` whole (a
request as the very line that was written), and the ``end`` event, from which the ``end``
message the seat was sent is rebuilt by the match's own `end_message`. Only that seat's
messages are taken; the other seats' actions are kept for the game engine alone (to judge an
action a request did not list). The seat's limits are the match's (its ``sandbox`` record),
with its tournament's per-bot overrides, and the protocol's limits as its ``start`` message
said them.

Where the log keeps what the bot wrote to stderr during each decision (a ``stderr`` field on
its ``ready``, ``reply`` or ``failure`` event, and a ``stderr`` event after ``end``), each
recorded message gets its piece; a log written before arena kept them has none (None), which
is told apart from a silent bot by the seat's whole stderr.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

from arena.results.humans import is_human
from arena.results.botstore import verify
from arena.runner.match import Limits, end_message
from arena.runner.rerun import RecordedStep, Recording

PROTOCOL_LIMITS = ("start_ms", "decision_ms", "bank_ms", "max_line_bytes", "max_output_bytes")


class RerunInputError(ValueError):
    """A match, seat or log that cannot be re-run; the message is one line, for a user."""


def from_store(store, match_id: int, seat: int, need_copy: bool = True) -> Recording:
    """Seat ``seat`` of stored match ``match_id``. With ``need_copy`` the bot's stored copy must
    still be there, unchanged (else the user is told to name a bot with --bot)."""
    from arena.results.store import StoreError

    try:
        match = store.match(match_id)
    except StoreError as error:
        raise RerunInputError(str(error)) from None
    label = f"match {match_id}"
    if match["status"] != "finished":
        why = "has not been played yet (pending)" if match["status"] == "pending" else \
            f"was not played: the harness failed ({match['error']})"
        raise RerunInputError(f"{label} {why}: there is nothing to re-run")
    row = _seat_row(match["seats"], seat, label, match["players"])
    version = store.bot_version(row["bot_version_id"])
    expected = version["stored_hash"] or version["content_hash"]
    if need_copy and is_human(version):  # `arena play`: no program to run
        raise RerunInputError(f"seat {seat} of {label} was played by a person ({row['bot']}); re-run a bot"
                              " on what they were sent with --bot PATH")
    if need_copy:
        problem = verify(store.bot_store, version["path"], expected)
        if problem:
            raise RerunInputError(f"{row['bot']} v{row['version']}: {problem}; re-run a copy of your own with --bot PATH")
    sandbox = match["sandbox"] or {}
    overrides = _entry_limits(store, match["tournament_id"], row["bot_version_id"])
    return _recording(label, match["game"], match["players"], seat, match["seed"], match["options"] or {},
                      match["log"], sandbox, overrides, str(store.bot_path(version)),
                      f"{row['bot']} v{row['version']}", expected, row)


def from_log_file(path: str, seat: int, need_bot: bool = True) -> Recording:
    """Seat ``seat`` of the match in ``path``, a file written by `arena match --log`. With
    ``need_bot`` the bot that played must still be where the log says."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RerunInputError(f"no such file: {path} (MATCH is a stored match id or a file written by"
                              " `arena match --log`)") from None
    except OSError as error:
        raise RerunInputError(f"cannot read {path}: {error.strerror}") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise RerunInputError(f"{path} is not a match log written by `arena match --log` (not JSON: {error})") from None
    if not isinstance(data, dict) or not all(k in data for k in ("game", "seats", "log", "players")):
        raise RerunInputError(f"{path} is not a match log written by `arena match --log` (it needs game, players,"
                              " seats and log)")
    label = Path(path).name
    row = _seat_row(data["seats"], seat, label, data["players"])
    bot = str(row.get("bot") or "")
    if need_bot and not Path(bot).exists():
        raise RerunInputError(f"the bot of seat {seat}, {bot}, is not there (a log names it as `arena match` was"
                              " given it, relative to where that ran); name it with --bot PATH")
    seed = data.get("engine_seed", data.get("seed"))
    return _recording(label, data["game"], data["players"], seat, seed, data.get("options") or {}, data["log"],
                      data.get("sandbox") or {}, {}, bot, bot, None, row)


def _seat_row(seats: list, seat: int, label: str, players: int) -> dict:
    for row in seats:
        if isinstance(row, dict) and row.get("seat") == seat:
            return row
    raise RerunInputError(f"{label} has seats 0 to {players - 1}; there is no seat {seat}")


def _entry_limits(store, tournament_id: int | None, version_id: int) -> dict:
    """The tournament's limits for this bot's entry (its bot table's), if it has its own."""
    if tournament_id is None:
        return {}
    tournament = store.tournament(tournament_id)
    overrides = tournament["config"].get("entry_limits") or {}
    for entry in store.tournament_entries(tournament_id):
        if entry["bot_version_id"] == version_id:
            return overrides.get(str(entry["position"])) or {}
    return {}


def _limits(sandbox: dict, overrides: dict, start: dict) -> Limits:
    names = {f.name for f in fields(Limits)}
    values = {k: v for k, v in sandbox.items() if k in names and k != "clock"}
    values.update({k: v for k, v in overrides.items() if k in names and k != "clock"})
    told = start.get("limits") if isinstance(start.get("limits"), dict) else {}
    values.update({k: told[k] for k in PROTOCOL_LIMITS if isinstance(told.get(k), int)})
    return Limits(**values)


def _recording(label: str, game: str, players: int, seat: int, seed, options: dict, log: list, sandbox: dict,
               overrides: dict, bot: str, bot_label: str, bot_hash: str | None, row: dict) -> Recording:
    try:
        return _read_log(label, game, players, seat, seed, options, log, sandbox, overrides, bot, bot_label, bot_hash,
                         row)
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        if isinstance(error, RerunInputError):
            raise
        raise RerunInputError(f"the log of {label} is incomplete or damaged ({type(error).__name__}: {error})") from None


def _read_log(label: str, game: str, players: int, seat: int, seed, options: dict, log: list, sandbox: dict,
              overrides: dict, bot: str, bot_label: str, bot_hash: str | None, row: dict) -> Recording:
    start = None
    ready = None
    start_status, start_error = "ok", None
    start_stderr, end_stderr = "", ""
    steps: dict[int, RecordedStep] = {}
    actions = []
    end_event = None
    by_decision = False  # does the log keep this seat's stderr per decision?
    for event in log:
        kind = event.get("event")
        if kind == "action":
            actions.append((event["step"], event["action"]))
        if kind == "end":
            end_event = event
        if event.get("seat") != seat:
            continue
        stderr = event.get("stderr") or ""
        by_decision = by_decision or "stderr" in event
        if kind == "start":
            start = event["message"]
        elif kind == "ready":
            ready = event.get("line")
            start_stderr += stderr
        elif kind == "request":
            steps[event["step"]] = RecordedStep(event["step"], event["message"], stderr="")
        elif kind == "reply" and event.get("step") in steps:
            steps[event["step"]].reply = event.get("line")
            steps[event["step"]].stderr += stderr
        elif kind == "action" and event.get("by") == "bot" and event.get("step") in steps:
            steps[event["step"]].action = event["action"]
        elif kind == "failure":
            if event.get("step") is None:
                start_status, start_error = event.get("status"), event.get("error")
                start_stderr += stderr
            elif event["step"] in steps:
                steps[event["step"]].status, steps[event["step"]].error = event.get("status"), event.get("error")
                steps[event["step"]].stderr += stderr
        elif kind == "stderr":
            end_stderr += stderr
    if start is None:
        raise RerunInputError(f"{label} has no start message for seat {seat} in its log (an incomplete log)")
    failed = row.get("status") not in (None, "ok")
    end = None
    if end_event is not None and not failed:  # a seat that failed is never sent end
        end = end_message(seat, end_event.get("scores"), end_event.get("ranks"), end_event.get("statuses"),
                          end_event.get("teams"))
    told = start.get("limits") if isinstance(start.get("limits"), dict) else {}
    clock = sandbox.get("clock") or told.get("clock") or "wall"  # stored before there was a choice: wall
    whole = row.get("stderr") or ""
    if not by_decision and whole:  # it wrote, yet no event has a piece: a log from before they were kept
        start_stderr = end_stderr = None
        for step in steps.values():
            step.stderr = None
    return Recording(label, game, players, seat, seed, options, start, ready, start_status, start_error, start_stderr,
                     [steps[step] for step in sorted(steps)], end, actions, _limits(sandbox, overrides, start),
                     clock, sandbox.get("mode"), bot, bot_label, bot_hash, row.get("status") or "ok", row.get("error"),
                     whole, end_stderr)
