"""The contest runner: the one process that writes the results database while a contest runs.

One loop, in this order each turn:

1. take new inbox rows (`arena.contest.inbox`): an upload goes to a build thread, which
   unpacks it (`arena.contest.uploads`), stores, builds and validates it exactly as
   `arena submit` does (`arena.results.submit.submit`) and records the outcome
   (`arena.contest.ledger`), an accepted version replacing the entrant's in the ladder; a
   test request becomes unrated matches; an organiser's action is applied;
2. close submissions when the deadline has passed;
3. give idle match workers test matches first, then the ladder's matches — or, once the
   organiser started the final (`arena.contest.final`), the final's instead (the ladder then
   rests); when the ladder has nothing pending, plan its next batch (`arena.tournament.plans`,
   from the ratings so far);
4. store each finished match (`Store.record_match`: ladder and final matches are rated within
   their tournament, test matches not at all).

An inbox row is taken in the same transaction that records its outcome, so after a
``kill -9`` the runner started again takes exactly the rows it had not recorded (an upload
half-built is built again: the same content is the same version). Matches in flight are
pending in the database and are played again.
"""

from __future__ import annotations

import json
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from arena.contest import ledger, records
from arena.contest.config import ContestError
from arena.contest.inbox import Inbox, folder_for
from arena.contest.uploads import UploadRefused, unpack
from arena.results.store import Store, StoreError, now
from arena.tournament.config import TournamentError

POLL_S = 0.2              # how often the inbox is looked at while matches run
PLAN_EVERY_S = 2.0        # an idle ladder (too few entrants) is asked again this often
VALIDATION_STDERR = 64 << 10
UPLOAD_ATTEMPTS = 3       # an upload whose outcome could not be recorded is tried this often


@dataclass
class RunnerStats:
    uploads: int = 0          # uploads recorded (accepted or refused) by this run
    accepted: int = 0
    refused: int = 0
    requests: int = 0
    ladder_matches: int = 0
    test_matches: int = 0
    final_matches: int = 0
    errors: list[str] = field(default_factory=list)   # unexpected problems (also told to notify)


class ContestRunner:
    """Runs one contest until ``stop`` is set (a `threading.Event`) or ``until()`` is true;
    `run` once per object (it closes its connections at the end)."""

    def __init__(self, store_path: str | os.PathLike, contest_name: str, workers: int | None = None,
                 build_jobs: int = 1, notify: Callable[[str], None] | None = None):
        self.store_path = Path(store_path)
        self.store = Store(self.store_path)
        self.contest = records.contest(self.store, contest_name)
        self.folder = folder_for(self.store_path, self.contest["name"])
        (self.folder / "work").mkdir(parents=True, exist_ok=True)
        self.workers = workers or self.contest["config"].workers or os.cpu_count() or 1
        self.build_jobs = build_jobs
        self.notify = notify or (lambda line: None)
        self.stats = RunnerStats()
        self._inbox: Inbox | None = None
        self._taken = ledger.taken_ids(self.store, self.contest["id"])
        self._building: dict[int, Future] = {}
        self._upload_rows: dict[int, dict] = {}   # inbox id -> its row, while it builds
        self._attempts: dict[int, int] = {}
        self._last_seen = 0
        self._deferred: list[dict] = []
        self._in_flight: dict[int, str] = {}     # match id -> "test" | "ladder"
        self._next_plan = 0.0
        self._secrets: dict[int, str] = {}
        self._lock = threading.Lock()

    # ---- the loop ---------------------------------------------------------------------------

    def run(self, stop: threading.Event | None = None, until: Callable[[], bool] | None = None) -> RunnerStats:
        from arena.runner.match import Limits
        from arena.tournament import executors
        from arena.tournament.executors.local import sweep_stale

        stop = stop or threading.Event()
        sweep_stale()
        config = self.contest["config"]
        self.limits = {**vars(Limits()), **(config.limits or {})}
        self.store.claim_tournament(self.contest["ladder_id"], os.getpid())
        if self.contest["final_id"] is not None and self.store.tournament(self.contest["final_id"])["status"] != "finished":
            self.store.claim_tournament(self.contest["final_id"], os.getpid())
        # The match workers are forked before any build thread exists.
        executor = executors.make("local", self.workers, keep=16)
        builds = ThreadPoolExecutor(max_workers=self.build_jobs, thread_name_prefix="contest-build")
        try:
            while not stop.is_set() and not (until and until()):
                self.turn(executor, builds)
        finally:
            executor.abort()
            builds.shutdown(wait=True, cancel_futures=True)
            try:
                self.store.set_tournament_status(self.contest["ladder_id"], "interrupted")
                final = self.contest["final_id"]
                if final is not None and self.store.tournament(final)["status"] == "running":
                    self.store.set_tournament_status(final, "interrupted")
            except StoreError:
                pass
            if self._inbox is not None:
                self._inbox.close()
            self.store.close()
        return self.stats

    def turn(self, executor, builds: ThreadPoolExecutor) -> None:
        self.contest = records.contest(self.store, self.contest["id"])
        self._close_at_deadline()
        self._take_inbox(builds)
        self._fill(executor)
        busy = bool(self._in_flight)
        outcomes = executor.wait(timeout=POLL_S) if busy else []
        if not busy:
            time.sleep(POLL_S)
        for outcome in outcomes:
            kind = self._in_flight.pop(outcome.job_id, None)
            if kind is None:
                continue
            if outcome.lost and outcome.unplayed:
                continue  # pending still: offered again next turn
            try:
                if outcome.result is not None:
                    self.store.record_match(outcome.job_id, outcome.result)
                    if kind == "test":
                        self.stats.test_matches += 1
                    elif kind == "final":
                        self.stats.final_matches += 1
                    else:
                        self.stats.ladder_matches += 1
                else:
                    self.store.record_error(outcome.job_id, outcome.error or outcome.lost or "unknown error")
            except StoreError as error:
                if "already" not in str(error):
                    self._problem(f"match {outcome.job_id}: {error}")

    # ---- the inbox ------------------------------------------------------------------------------

    def inbox(self) -> Inbox | None:
        if self._inbox is None or self._inbox.conn is None:
            self._inbox = Inbox(self.folder, readonly=True)
        return self._inbox

    def _take_inbox(self, builds: ThreadPoolExecutor) -> None:
        for future_id in [i for i, f in self._building.items() if f.done()]:
            future = self._building.pop(future_id)
            row = self._upload_rows.pop(future_id)
            if future.exception() is None:
                self._taken.add(future_id)
                continue
            # Not recorded (the database was busy or full, say): tried again a few times, then
            # left in the inbox for the next start.
            self._attempts[future_id] = self._attempts.get(future_id, 0) + 1
            again = self._attempts[future_id] < UPLOAD_ATTEMPTS
            self._problem(f"upload {future_id}: {future.exception()!r}"
                          + (" (tried again)" if again else " (taken again on the next start)"))
            if again:
                self._deferred.append(row)
        rows = self._deferred + self.inbox().rows_after(self._last_seen)
        self._deferred = []
        for row in rows:
            self._last_seen = max(self._last_seen, row["id"])
            if row["id"] in self._taken or row["id"] in self._building:
                continue
            if row["kind"] == "action" and '"final"' in (row["payload"] or "") and \
                    any(earlier < row["id"] for earlier in self._building):
                self._deferred.append(row)  # the final waits for the uploads received before it
                continue
            if row["kind"] == "upload":
                self._building[row["id"]] = builds.submit(self._take_upload, row)
                self._upload_rows[row["id"]] = row
            else:
                try:
                    self._take_request(row)
                    self._taken.add(row["id"])
                except StoreError as error:
                    self._problem(f"request {row['id']}: {error}")

    def _take_upload(self, row: dict) -> None:
        """In a build thread, with its own connection: unpack, submit, record."""
        from arena.results.submit import SubmitError, submit
        from arena.runner.files import remove_tree

        contest = self.contest
        config = contest["config"]
        with Store(self.store_path) as store:
            entrant = store.one("SELECT id, name, withdrawn FROM contest_entrants WHERE contest_id = ? AND name = ?",
                                [contest["id"], row["entrant"]])
            if entrant is None:
                ledger.record_request(store, contest["id"], row, None, f"refused: no entrant called {row['entrant']!r}")
                return
            closed = store.one("SELECT closed_at FROM contests WHERE id = ?", [contest["id"]])["closed_at"]
            deadline = config.deadline_at()
            if deadline is not None:  # an upload after the deadline is late even before the loop closes
                stamp = deadline.isoformat(timespec="milliseconds")
                closed = min(closed, stamp) if closed else stamp

            def refuse(reason: str, build_log: str | None = None) -> None:
                ledger.record_submission(store, contest, entrant, row, accepted=False, reason=reason,
                                         build_log=build_log)
                with self._lock:
                    self.stats.uploads += 1
                    self.stats.refused += 1

            if closed is not None and row["received_at"] >= closed:
                return refuse(f"submissions closed at {closed[:19].replace('T', ' ')} UTC; this upload came later")
            if entrant["withdrawn"]:
                return refuse("you are withdrawn from the contest")
            work = self.folder / "work" / str(row["id"])
            remove_tree(work) if work.exists() else None
            try:
                try:
                    bot = unpack(self.inbox().file_of(row), work, config.unpacked_bytes, config.files_per_upload)
                except UploadRefused as error:
                    return refuse(str(error))
                except OSError as error:
                    return refuse(f"the upload cannot be unpacked ({error.strerror or error})")
                try:
                    submission = submit(store, bot, contest["game"], entrant["name"])
                except SubmitError as error:
                    return refuse(str(error))
                except (OSError, ValueError) as error:
                    return refuse(f"the bot cannot be stored ({error})")
            finally:
                if work.exists():
                    remove_tree(work)
            version = submission.version
            validation = dict(submission.validation) if submission.validation else None
            if validation and validation.get("stderr"):
                validation["stderr"] = validation["stderr"][-VALIDATION_STDERR:]
            notes = list(submission.notes)
            if not submission.created:
                notes.append(f"the same content as version {version['version']}: that version plays")
            if validation is not None and notes:
                validation["notes"] = notes
            ledger.record_submission(store, contest, entrant, row, accepted=True, build_log=version.get("build_log"),
                                     validation=validation if validation is not None else {"notes": notes},
                                     version_id=version["id"])
            with self._lock:
                self.stats.uploads += 1
                self.stats.accepted += 1
            self._next_plan = 0.0  # a new entry: the ladder may plan at once
            self.notify(f"{entrant['name']}: version {version['version']} accepted")

    def _take_request(self, row: dict) -> None:
        contest = self.contest
        payload = json.loads(row["payload"] or "{}")
        self.stats.requests += 1
        if row["kind"] == "action":
            outcome = self._apply_action(payload, row)
            ledger.record_request(self.store, contest["id"], row, None, outcome)
            self.notify(f"organiser: {outcome}")
            return
        entrant = self.store.one("SELECT id, name, withdrawn, bot_version_id FROM contest_entrants"
                                 " WHERE contest_id = ? AND name = ?", [contest["id"], row["entrant"]])
        if entrant is None:
            ledger.record_request(self.store, contest["id"], row, None, f"refused: no entrant called {row['entrant']!r}")
            return
        try:
            seatings = self._test_seatings(entrant, payload)
        except ContestError as error:
            ledger.record_request(self.store, contest["id"], row, entrant["id"], f"refused: {error}")
            return
        ledger.record_request(self.store, contest["id"], row, entrant["id"], f"{len(seatings)} test match(es)",
                              test_matches=seatings, game=contest["game"], options=contest["config"].options,
                              players=contest["players"])

    def _test_seatings(self, entrant: dict, payload: dict) -> list[list[int]]:
        """The seats (version ids) of the test matches asked for, or `ContestError` saying why not."""
        config = self.contest["config"]
        players = self.contest["players"]
        if entrant["withdrawn"]:
            raise ContestError("you are withdrawn from the contest")
        if entrant["bot_version_id"] is None:
            raise ContestError("you have no accepted version yet")
        names = payload.get("opponents") or []
        count = payload.get("matches", 1)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or not names:
            raise ContestError("name at least one opponent")
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= config.test_repeats_max:
            raise ContestError(f"ask for 1 to {config.test_repeats_max} matches")
        if len(names) > config.test_opponents_max:
            raise ContestError(f"at most {config.test_opponents_max} opponents")
        rows = {r["name"]: r for r in self.store.query(
            f"SELECT name, withdrawn, bot_version_id FROM contest_entrants WHERE contest_id = ? AND name IN"
            f" ({','.join('?' * len(names))})", [self.contest["id"], *names])}
        versions = []
        for name in names:
            opponent = rows.get(name)
            if opponent is None or opponent["withdrawn"] or opponent["bot_version_id"] is None:
                raise ContestError(f"{name!r} has no version in the contest")
            versions.append(opponent["bot_version_id"])
        own = entrant["bot_version_id"]
        if players == 2:
            groups = [[own, v] for v in versions]
        elif len(versions) == players - 1:
            groups = [[own, *versions]]
        else:
            raise ContestError(f"a {players}-player match needs {players - 1} opponents")
        seatings = []
        for number in range(count):
            for group in groups:
                turn = number % players  # the entrant's seat moves round
                seatings.append(group[-turn:] + group[:-turn] if turn else list(group))
        return seatings

    def _apply_action(self, payload: dict, row: dict) -> str:
        contest = self.contest
        do = payload.get("do")
        if do in ("withdraw", "reinstate"):
            entrant = self.store.one("SELECT id FROM contest_entrants WHERE contest_id = ? AND name = ?",
                                     [contest["id"], payload.get("entrant")])
            if entrant is None:
                return f"not done: no entrant called {payload.get('entrant')!r}"
            ledger.set_entrant_withdrawn(self.store, contest, entrant["id"], do == "withdraw")
            self._next_plan = 0.0
            return f"{payload.get('entrant')} {'withdrawn' if do == 'withdraw' else 'reinstated'}"
        if do == "close":
            ledger.set_closed(self.store, contest["id"], row["received_at"])
            return "submissions closed"
        if do == "open":
            ledger.set_closed(self.store, contest["id"], None)
            return "submissions open"
        if do == "deadline":
            config = contest["config"]
            old = config.deadline_at()
            config.deadline = payload.get("deadline")
            try:
                records.set_config(self.store, contest["id"], config)
            except ContestError as error:
                return f"not done: {error}"
            new = config.deadline_at()
            closed_by_deadline = old is not None and contest["closed_at"] == old.isoformat(timespec="milliseconds")
            if closed_by_deadline and (new is None or new.isoformat(timespec="milliseconds") > now()):
                ledger.set_closed(self.store, contest["id"], None)  # a deadline moved on opens them again
                return f"deadline set to {config.deadline or 'none'}; submissions open again"
            return f"deadline set to {config.deadline or 'none'}"
        if do == "entrants":
            return records.add_entrants_with_digests(self.store, contest["id"], payload.get("rows"))
        if do == "final":
            from arena.contest.final import create_final

            if contest["closed_at"] is None:
                ledger.set_closed(self.store, contest["id"], row["received_at"])
                contest = self.contest = records.contest(self.store, contest["id"])
            try:
                tournament_id = create_final(self.store, contest)
            except (ContestError, TournamentError) as error:
                return f"not done: {error}"
            self.store.claim_tournament(tournament_id, os.getpid())
            self.contest = records.contest(self.store, contest["id"])
            return f"submissions closed; the final started (tournament {tournament_id})"
        return f"not done: unknown action {do!r}"

    def _close_at_deadline(self) -> None:
        deadline = self.contest["config"].deadline_at()
        if deadline is not None and self.contest["closed_at"] is None:
            stamp = deadline.isoformat(timespec="milliseconds")
            if now() >= stamp:
                ledger.set_closed(self.store, self.contest["id"], stamp)
                self.notify("the deadline has passed: submissions closed")

    # ---- matches ---------------------------------------------------------------------------------

    def _fill(self, executor) -> None:
        """Idle workers get test matches first, then the final's (once it started), else the ladder's."""
        idle = executor.idle_slots()
        if not idle:
            return
        queue = [(m, "test") for m in pending_test_matches(self.store, self.contest["id"])
                 if m["id"] not in self._in_flight]
        if len(queue) < len(idle):
            if self.contest["final_id"] is not None:
                queue += [(m, "final") for m in self._tournament_matches(self.contest["final_id"], "final", len(idle))]
            else:
                queue += [(m, "ladder") for m in self._tournament_matches(self.contest["ladder_id"], "ladder", len(idle))]
        for slot, (match, kind) in zip(idle, queue):
            self._in_flight[match["id"]] = kind
            executor.submit(slot, match["id"], self._spec(match, kind))

    def _tournament_matches(self, tournament_id: int, kind: str, idle: int) -> list[dict]:
        """Pending matches of the ladder or the final; when it has none (and none in flight),
        its next step is planned (a final with nothing more to plan is marked finished)."""
        matches = [m for m in self.store.pending_matches(tournament_id, limit=4 * idle) if m["id"] not in self._in_flight]
        if matches or any(k == kind for k in self._in_flight.values()):
            return matches
        if kind == "final":
            if not self._plan(tournament_id):
                if self.store.tournament(tournament_id)["status"] != "finished":
                    self.store.set_tournament_status(tournament_id, "finished")
                    self.notify("the final is finished: arena contest grades")
                return []
        elif time.monotonic() < self._next_plan or not self._plan(tournament_id):
            self._next_plan = max(self._next_plan, time.monotonic() + PLAN_EVERY_S)
            return []
        return self.store.pending_matches(tournament_id, limit=4 * idle)

    def _plan(self, tournament_id: int) -> int:
        """Plan and store the next step of a tournament that plans as it goes; how many matches."""
        from dataclasses import replace

        from arena.results import keys
        from arena.tournament import plans

        step, plan = plans.next_step(self.store, tournament_id)
        if step is None:
            return 0
        matches, state = step  # no matches: the plan ended (its last state is still kept)
        secret = self._secret(tournament_id)
        matches = [replace(m, seed=keys.deal_seed(secret, m.deal)) for m in matches]
        added = self.store.add_matches(tournament_id, matches, format_state=state)
        plan.keep(self.store, tournament_id)
        return added

    def _secret(self, tournament_id: int) -> str:
        if tournament_id not in self._secrets:
            self._secrets[tournament_id] = self.store.tournament_secret(tournament_id)
        return self._secrets[tournament_id]

    def _spec(self, match: dict, kind: str) -> dict:
        from arena.results import keys

        if kind != "test":
            tournament_id = self.contest["ladder_id"] if kind == "ladder" else self.contest["final_id"]
            deal = match["deal"] if match.get("deal") is not None else match["schedule_index"]
            seeds = keys.bot_seeds(self._secret(tournament_id), deal, len(match["bots"]))
        else:
            seeds = keys.bot_seeds(keys.secret_for("test", match["seed"]), 0, len(match["bots"]))
        return {"game": match["game"], "bots": match["bots"], "hashes": match["hashes"], "seed": match["seed"],
                "bot_seeds": seeds, "options": match["options"], "limits": self.limits, "seat_limits": None,
                "restart": "auto"}

    def _problem(self, line: str) -> None:
        self.stats.errors.append(line)
        self.notify(f"problem: {line}")


def pending_test_matches(store: Store, contest_id: int) -> list[dict]:
    """The contest's unplayed test matches, oldest first, with their seats' bots (as
    `Store.pending_matches` gives a tournament's)."""
    rows = store.query(
        "SELECT m.id, m.game, m.players, m.options, m.seed, m.deal, s.seat, v.id AS version_id, v.path,"
        " v.stored_hash FROM contest_test_matches t JOIN matches m ON m.id = t.match_id"
        " JOIN match_seats s ON s.match_id = m.id JOIN bot_versions v ON v.id = s.bot_version_id"
        " WHERE t.contest_id = ? AND m.status = 'pending' ORDER BY m.id, s.seat", [contest_id])
    matches: dict[int, dict] = {}
    for row in rows:
        match = matches.setdefault(row["id"], {"id": row["id"], "game": row["game"], "players": row["players"],
                                               "options": json.loads(row["options"]), "seed": row["seed"],
                                               "deal": None, "schedule_index": None, "bots": [], "hashes": [],
                                               "versions": []})
        match["bots"].append(str(store.bot_store / row["path"]))
        match["hashes"].append(row["stored_hash"])
        match["versions"].append(row["version_id"])
    return list(matches.values())
