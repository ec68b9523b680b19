"""The coordinator: plays a tournament's pending matches on an executor and stores each result.

It is the only process that writes the store. Each finished match is committed as soon as it
arrives (so ``kill -9`` loses at most the matches that were running); `arena.results.store`
applies ratings in schedule order, so the leaderboard does not depend on the number of
workers or on the order results arrive in. Resuming is running again.

A signal (SIGINT, SIGTERM, SIGHUP — to the process or its whole group, once or twice) only
sets a flag and wakes the loop (`arena.tournament.stopping`): the running matches are
abandoned at once (they stay pending and are played on resume; nothing is stored for them),
the workers are killed and cleaned up, the tournament is marked interrupted, and `run`
returns with the signal named, within seconds. A signal that came before the loop started
(the caller's handlers were installed before the tournament was stored) stops it the same
way before anything is played.
"""

from __future__ import annotations

import os
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

from arena.results.store import Store, StoreError
from arena.tournament.config import TournamentError
from arena.tournament.stopping import Stop, block, unblock

DYNAMIC_FORMATS = ("swiss", "ladder", "sprt")
PROGRESS_EVERY_S = 10.0
WINDOW_PER_SLOT = 4       # how far ahead of the schedule a free worker may look for its bots
PLACEMENT_WINDOW = 64


@dataclass
class RunSummary:
    tournament_id: int
    played: int = 0          # matches finished and stored by this run
    errors: int = 0          # matches the harness could not play
    remaining: int = 0       # still pending (interrupted)
    interrupted: bool = False
    signal: int | None = None
    seconds: float = 0.0
    failures: int = 0        # failed seats among the matches played
    problem: str | None = None  # why the run stopped early (storage, executor), if it did


@dataclass
class Progress:
    """What a progress display is told: counts so far and the rate."""

    done: int
    total: int
    errors: int
    failures: int
    elapsed: float
    final: bool = False


def _spec(match: dict, tournament: dict, limits: dict, seat_limits: dict, bot_seeds: list) -> dict:
    per_seat = [seat_limits.get(version) for version in match["versions"]]
    return {"game": match["game"], "bots": match["bots"], "hashes": match["hashes"], "seed": match["seed"],
            "bot_seeds": bot_seeds, "options": match["options"], "limits": limits,
            "seat_limits": per_seat if any(per_seat) else None,
            "restart": tournament["config"].get("restart", "auto")}


def run(store: Store, tournament_id: int, workers: int | None = None,
        progress: Callable[[Progress], None] | None = None, play: Callable | None = None,
        executor=None, keep_bots: int | None = None, restore_signals: bool = True,
        executor_kind: str | None = None, scheduler: str | None = None,
        notify: Callable[[str], None] | None = None, stop: Stop | None = None) -> RunSummary:
    """Play the tournament's pending matches and store each one (see the module docstring).

    ``stop``: the caller's stop handlers (`arena.tournament.stopping`), installed before the
    tournament was stored, so a signal at any moment marks it interrupted; they are held and
    left installed. Without it the run installs its own and gives the previous handlers back
    at the end — unless ``restore_signals=False``, so that a signal after the stop changes
    nothing."""
    own_stop = stop is None
    if own_stop:
        stop = Stop(hold=True).install()
    else:
        stop.hold()
    try:
        return _run(store, tournament_id, workers, progress, play, executor, keep_bots, executor_kind, scheduler,
                    notify, stop)
    finally:
        if own_stop:
            stop.restore(handlers=restore_signals)


def _run(store: Store, tournament_id: int, workers, progress, play, executor, keep_bots, executor_kind, scheduler,
         notify, stop: Stop) -> RunSummary:
    from arena.runner.match import Limits
    from arena.runner.sandbox import detect
    from arena.tournament import executors
    from arena.tournament.executors.local import sweep_stale

    # A signal from here on is only recorded (stop is held): the run then stops before it
    # plays anything and marks the tournament interrupted.
    tournament = store.tournament(tournament_id)
    config = tournament["config"]
    secret = store.tournament_secret(tournament_id)
    limits = {**vars(Limits()), **(config.get("limits") or {})}
    if config.get("clock"):
        limits["clock"] = config["clock"]
    seat_limits = _seat_limits(store, tournament_id, config, limits)
    kind = executor_kind or config.get("executor") or "local"
    if executor is None and kind == "local":
        detect()  # refuse at once (one line) where bots cannot be sandboxed (Dask workers check their own)
    _check_copies(store, tournament_id)
    summary = RunSummary(tournament_id)
    started = time.monotonic()
    total = store.pending_count(tournament_id)
    dynamic = (tournament.get("format") or "round-robin") in DYNAMIC_FORMATS
    whole_run = _whole_run_left(store, tournament) if dynamic else None
    if whole_run is not None:
        total = max(total, whole_run)  # progress and ETA over the whole run, not the current step
    if total == 0 and not dynamic:
        store.set_tournament_status(tournament_id, "finished")
        return summary
    workers = max(1, min(workers or config.get("workers") or os.cpu_count() or 1, max(total, 1) if not dynamic
                         else os.cpu_count() or 1))
    store.claim_tournament(tournament_id, os.getpid())
    owned_executor = executor is None
    ended = False  # the plan has nothing more to play
    try:
        if stop.signal is None:
            sweep_stale()
            if executor is None:
                keep = keep_bots if keep_bots is not None else config.get("keep_bots")
                executor = executors.make(kind, workers, keep=16 if keep is None else keep, play=play,
                                          scheduler=scheduler or config.get("scheduler"))
            ended = _loop(store, tournament, secret, limits, seat_limits, executor, stop, summary, total, progress,
                          started, notify, whole_run is not None)
    except (StoreError, executors.ExecutorError) as error:
        summary.problem = str(error)
    finally:
        stopped_by = stop.signal
        block()  # the rest must not be interrupted: it leaves nothing behind
        try:
            if owned_executor and executor is not None:
                if stopped_by is not None or summary.problem:
                    executor.abort()
                else:
                    executor.close()
            summary.seconds = time.monotonic() - started
            summary.signal = stopped_by
            try:
                summary.remaining = store.pending_count(tournament_id)
                # A format that plans as it goes may have nothing pending between two steps.
                summary.interrupted = summary.remaining > 0 or (dynamic and not ended)
                store.set_tournament_status(tournament_id, "interrupted" if summary.interrupted else "finished")
            except StoreError as error:
                summary.interrupted = True
                summary.problem = summary.problem or str(error)
            if progress:
                done = summary.played + summary.errors
                end = done + summary.remaining if whole_run is not None else max(total, done + summary.remaining)
                progress(Progress(done, end, summary.errors, summary.failures, summary.seconds, final=True))
        finally:
            unblock()  # a signal that came meanwhile lands on our flag, harmlessly
    return summary


def _whole_run_left(store: Store, tournament: dict) -> int | None:
    """Matches still to play in the whole run of a Swiss (its rounds) or a ladder with a match
    target; None where the end is not known (an SPRT, a ladder without a target)."""
    from arena.results.describe import planned_matches

    entries = sum(1 for e in store.tournament_entries(tournament["id"]) if not e["withdrawn"])
    planned, _ = planned_matches(tournament, entries)
    kind = tournament.get("format") or "round-robin"
    if planned is None or kind not in ("swiss", "ladder"):
        return None
    return max(0, planned - tournament["matches_finished"] - tournament["matches_error"])


def _loop(store, tournament, secret, limits, seat_limits, executor, stop, summary, total, progress, started,
          notify, whole_run: bool = False) -> bool:
    """Play until the plan ends (True) or a signal comes (False)."""
    from arena.results import keys

    tournament_id = tournament["id"]
    dynamic = (tournament.get("format") or "round-robin") in DYNAMIC_FORMATS
    players = tournament["players"]
    queue: deque = deque()
    last_index = -1
    attempts: dict[int, int] = {}
    in_flight: dict[int, dict] = {}
    next_report = time.monotonic() + PROGRESS_EVERY_S
    if progress:
        progress(Progress(0, total, 0, 0, 0.0))
    while stop.signal is None:
        if len(queue) < PLACEMENT_WINDOW:
            more = store.pending_matches(tournament_id, after_index=last_index, limit=1000)
            more = [m for m in more if m["id"] not in in_flight]
            if more:
                last_index = more[-1]["schedule_index"]
                queue.extend(more)
        for slot in executor.idle_slots():
            if not queue:
                break
            match = _choose(queue, slot, len(executor.idle_slots()))
            # Bot seeds follow the deal and the seat: identical bots in a duplicate set mirror.
            deal = match["deal"] if match.get("deal") is not None else match["schedule_index"]
            seeds = keys.bot_seeds(secret, deal, players) if secret else None
            in_flight[match["id"]] = match
            executor.submit(slot, match["id"], _spec(match, tournament, limits, seat_limits, seeds))
        if not in_flight and not queue:
            # Everything planned is stored: a format that plans as it goes plans its next step.
            step = _next_step(store, tournament_id, secret, notify) if dynamic else 0
            if not step:
                return True
            if not whole_run:
                total += step
            continue
        outcomes = executor.wait(timeout=1.0, wakeup_fd=stop.read_fd)
        stop.drain()
        if stop.signal is not None:
            break  # whatever arrived with the signal is played again on resume
        for outcome in outcomes:
            match = in_flight.pop(outcome.job_id, None)
            if match is None:
                continue
            if outcome.lost and outcome.unplayed:
                queue.appendleft(match)
                continue
            if outcome.lost:
                attempts[match["id"]] = attempts.get(match["id"], 0) + 1
                if attempts[match["id"]] < 2:
                    queue.appendleft(match)  # played again once, by another worker
                    continue
                _store(store, match["id"], None, f"{outcome.lost}, twice", summary)
            else:
                _store(store, match["id"], outcome.result, outcome.error, summary)
        now = time.monotonic()
        if progress and (outcomes or now >= next_report):
            progress(Progress(summary.played + summary.errors, total, summary.errors, summary.failures,
                              now - started))
            next_report = now + PROGRESS_EVERY_S
    return False


def _next_step(store: Store, tournament_id: int, secret: str | None, notify) -> int:
    """Plan and store the next step of a Swiss, ladder or SPRT tournament; how many matches."""
    from dataclasses import replace

    from arena.results import keys
    from arena.tournament import plans

    step, plan = plans.next_step(store, tournament_id)
    if notify:
        line = plan.report(plans.look(store, tournament_id))
        if line:
            notify(line)
    if step is None:
        return 0
    matches, state = step
    matches = [replace(m, seed=keys.deal_seed(secret, m.deal)) for m in matches]
    added = store.add_matches(tournament_id, matches, format_state=state)
    plan.keep(store, tournament_id)  # derived from the stored results: recomputed after a kill -9
    return added


def _choose(queue: deque, slot, idle: int) -> dict:
    """The next match for ``slot``: among the first few pending, the one whose bots it runs."""
    if not slot.live:
        return queue.popleft()
    window = min(len(queue), max(2, WINDOW_PER_SLOT * idle))
    best, best_score = 0, -1
    for position in range(window):
        score = sum(1 for digest in queue[position]["hashes"] if digest in slot.live)
        if score > best_score:
            best, best_score = position, score
            if score == len(queue[position]["hashes"]):
                break
    match = queue[best]
    del queue[best]
    return match


def _store(store: Store, match_id: int, result: dict | None, error: str | None, summary: RunSummary) -> None:
    try:
        if result is not None:
            store.record_match(match_id, result)
            summary.played += 1
            summary.failures += sum(1 for seat in result["seats"] if seat["status"] != "ok")
        else:
            store.record_error(match_id, error or "unknown error")
            summary.errors += 1
    except StoreError as problem:
        if "already" in str(problem):
            return  # stored by an earlier run a moment before it stopped
        raise


def _check_copies(store: Store, tournament_id: int) -> None:
    """Every entry's stored copy exists and still has its content hash (or say which not)."""
    from arena.results.botstore import verify

    for entry in store.tournament_entries(tournament_id):
        problem = verify(store.bot_store, entry["path"], entry["stored_hash"] or entry["content_hash"])
        if problem:
            raise TournamentError(f"{entry['bot']} v{entry['version']}: {problem}")


def _seat_limits(store: Store, tournament_id: int, config: dict, limits: dict) -> dict:
    """Per-bot limit overrides from the configuration's bot tables: version id -> limits."""
    overrides = config.get("entry_limits") or {}
    by_version = {}
    for entry in store.tournament_entries(tournament_id):
        extra = overrides.get(str(entry["position"]))
        if extra:
            by_version[entry["bot_version_id"]] = {**limits, **extra}
    return by_version
