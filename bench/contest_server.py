"""Contest load: N entrants upload within M minutes while the ladder runs.

    nice -n 10 .venv/bin/python bench/contest_server.py                       # 200 entrants, 10 minutes
    nice -n 10 .venv/bin/python bench/contest_server.py --entrants 40 --minutes 2   # a quick look

A contest of Five Towers (random bots, each upload its own content) in a temporary folder;
its runner runs as `arena contest run` does, in a process of its own; the uploads go through
the contest's inbox exactly as the web app's do (`arena.contest.inbox.Inbox.add_upload`), at
random moments spread over the window. It reports: uploads acknowledged and recorded (none
may be lost), accepted (every one must be validated), the time from upload to acceptance and
from upload to the entrant's first finished ladder match (p50, p95, max), ladder matches
played; meanwhile every 15 s an entrant asks for a test match, and the time from request to
the match played is reported too; and then the p95 time of the reads the pages make
(`arena.contest.views`).

Importable: `ContestBench` sets up, starts the runner, uploads and measures; another bench
(the web pages' timing) can open ``bench.db`` read-only while it runs (``during``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from arena.contest import records  # noqa: E402
from arena.contest.config import ContestConfig  # noqa: E402
from arena.contest.entrants import EntrantRow  # noqa: E402
from arena.contest.inbox import Inbox, folder_for  # noqa: E402
from arena.results.store import Store  # noqa: E402

GAME = "five-towers"


def _seconds(later: str, earlier: str) -> float:
    return (dt.datetime.fromisoformat(later) - dt.datetime.fromisoformat(earlier)).total_seconds()


def _percentiles(values: list[float]) -> dict:
    if not values:
        return {"p50": None, "p95": None, "max": None}
    ordered = sorted(values)
    return {"p50": statistics.median(ordered), "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
            "max": ordered[-1]}


class ContestBench:
    def __init__(self, entrants: int = 200, minutes: float = 10.0, workers: int | None = None,
                 build_jobs: int = 1, folder: Path | None = None, seed: int = 1):
        self.entrants, self.minutes, self.workers, self.build_jobs = entrants, minutes, workers, build_jobs
        self.folder = Path(folder or tempfile.mkdtemp(prefix="arena-contest-bench-"))
        self.db = self.folder / "arena.db"
        self.names = [f"student{number:03d}" for number in range(entrants)]
        self.random = random.Random(seed)
        self.runner: subprocess.Popen | None = None
        self.acknowledged: dict[int, str] = {}   # inbox id -> entrant
        self.test_every_s = 15.0                  # an entrant asks for a test match this often (0: never)
        self._stop_tests = threading.Event()
        self._tester: threading.Thread | None = None

    def setup(self) -> None:
        with Store(self.db) as store:
            contest, _ = records.create_contest(store, "bench", ContestConfig(game=GAME, submissions_per_day=1000,
                                                                              workers=self.workers))
            issued = records.add_entrants(store, contest["id"], [EntrantRow(i, n, f"{n}@example.org")
                                                                 for i, n in enumerate(self.names)])
            self.tokens = {row["name"]: row["token"] for row in issued}
            self.organiser_token = records.reissue_organiser_token(store, contest["id"])
        self.contest_id = contest["id"]

    def start_runner(self, serve_port: int | None = None) -> None:
        """`arena contest run`; with ``serve_port``, `arena serve --contest` instead: the web app
        on that port and the runner in a process of its own, as a contest is served."""
        command = [sys.executable, "-m", "arena", "--db", str(self.db), "contest", "run", "bench",
                   "--build-jobs", str(self.build_jobs)]
        if self.workers:
            command += ["--workers", str(self.workers)]
        if serve_port is not None:
            command = [sys.executable, "-m", "arena", "--db", str(self.db), "serve", "--contest", "bench",
                       "--port", str(serve_port)]
        self.log = open(self.folder / "runner.log", "w")
        self.runner = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT)

    def upload_all(self) -> None:
        """Every entrant uploads once, at a random moment within the window (as the web app does)."""
        source = (REPO / "bots" / "random.py").read_bytes()
        if self.test_every_s:
            self._tester = threading.Thread(target=self.request_tests, args=(self.test_every_s, self._stop_tests))
            self._tester.start()
        moments = sorted((self.random.uniform(0, self.minutes * 60), name) for name in self.names)
        start = time.monotonic()
        with Inbox(folder_for(self.db, "bench")) as inbox:
            for moment, name in moments:
                delay = start + moment - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                received = inbox.add_upload(name, f"{name}.py", source + f"\n# {name}\n".encode(), 1 << 20, 1000)
                self.acknowledged[received.id] = name

    def request_tests(self, every_s: float, stop: threading.Event) -> None:
        """Every ``every_s`` seconds an entrant with a version asks for a test match against another."""
        with Store(self.db, readonly=True, live=True) as store, Inbox(folder_for(self.db, "bench")) as inbox:
            while not stop.wait(every_s):
                ready = [r["name"] for r in store.query("SELECT name FROM contest_entrants WHERE contest_id = ?"
                                                        " AND bot_version_id IS NOT NULL", [self.contest_id])]
                if len(ready) >= 2:
                    entrant, opponent = self.random.sample(ready, 2)
                    inbox.add_test_request(entrant, [opponent], 1, per_hour=1000)

    def done(self, store: Store) -> bool:
        """Every acknowledged upload recorded, and every accepted version has played a ladder match."""
        row = store.one(
            "SELECT (SELECT COUNT(*) FROM contest_submissions WHERE contest_id = :c) AS recorded,"
            " (SELECT COUNT(*) FROM contest_entrants e WHERE e.contest_id = :c AND e.bot_version_id IS NOT NULL"
            "  AND NOT EXISTS (SELECT 1 FROM match_seats s JOIN matches m ON m.id = s.match_id"
            "   WHERE s.bot_version_id = e.bot_version_id AND m.status = 'finished'"
            "   AND m.tournament_id = (SELECT ladder_id FROM contests WHERE id = :c))) AS unplayed",
            {"c": self.contest_id})
        return row["recorded"] >= len(self.acknowledged) and row["unplayed"] == 0

    def wait(self, patience_s: float = 1800.0, during=None) -> None:
        try:
            self._wait(patience_s, during)
        finally:
            self._stop_tests.set()
            if self._tester is not None:
                self._tester.join()

    def _wait(self, patience_s: float, during) -> None:
        deadline = time.monotonic() + patience_s
        with Store(self.db, readonly=True, live=True) as store:
            while not self.done(store):
                if self.runner.poll() is not None:
                    raise SystemExit(f"the runner ended (code {self.runner.returncode}); see {self.folder}/runner.log")
                if time.monotonic() > deadline:
                    raise SystemExit(f"not done after {patience_s:.0f} s")
                if during:
                    during(store)
                time.sleep(0.5)

    def stop_runner(self) -> None:
        if self.runner and self.runner.poll() is None:
            self.runner.send_signal(signal.SIGINT)
            try:
                self.runner.wait(60)
            except subprocess.TimeoutExpired:
                self.runner.kill()
                self.runner.wait()
        if getattr(self, "log", None):
            self.log.close()

    def figures(self) -> dict:
        with Store(self.db, readonly=True) as store:
            contest = records.contest(store, self.contest_id)
            rows = store.query("SELECT inbox_id, status, received_at, processed_at, validation, bot_version_id"
                               " FROM contest_submissions WHERE contest_id = ?", [self.contest_id])
            first = {r["bot_version_id"]: r["ended"] for r in store.query(
                "SELECT s.bot_version_id, MIN(m.ended_at) AS ended FROM match_seats s JOIN matches m ON m.id = s.match_id"
                " WHERE m.tournament_id = ? AND m.status = 'finished' GROUP BY s.bot_version_id",
                [contest["ladder_id"]])}
            ladder = store.tournament(contest["ladder_id"])
            tests = [_seconds(r["ended_at"], r["received_at"]) for r in store.query(
                "SELECT r.received_at, m.ended_at FROM contest_requests r JOIN contest_test_matches t"
                " ON t.contest_id = r.contest_id AND t.inbox_id = r.inbox_id JOIN matches m ON m.id = t.match_id"
                " WHERE r.contest_id = ? AND m.status = 'finished'", [self.contest_id])]
        recorded = {r["inbox_id"] for r in rows}
        accepted = [r for r in rows if r["status"] == "accepted"]
        return {
            "entrants": self.entrants, "window_minutes": self.minutes,
            "acknowledged": len(self.acknowledged), "recorded": len(recorded & set(self.acknowledged)),
            "lost": len(set(self.acknowledged) - recorded), "accepted": len(accepted),
            "validated_ok": sum(1 for r in accepted if r["validation"] and '"status": "ok"' in r["validation"]),
            "upload_to_accepted_s": _percentiles([_seconds(r["processed_at"], r["received_at"]) for r in accepted]),
            "upload_to_first_ladder_match_s": _percentiles(
                [_seconds(first[r["bot_version_id"]], r["received_at"]) for r in accepted if r["bot_version_id"] in first]),
            "ladder_matches": ladder["matches_finished"],
            "test_request_to_played_s": _percentiles(tests), "test_matches": len(tests),
        }

    def time_views(self, rounds: int = 100) -> dict:
        """p95 of each read the pages make (`arena.contest.views`), in ms, over random entrants."""
        from arena.contest import views

        timings: dict[str, list[float]] = {}
        with Store(self.db, readonly=True, live=True) as store, Inbox(folder_for(self.db, "bench"), readonly=True) as inbox:
            contest = records.contest(store, self.contest_id)
            ids = [r["id"] for r in store.query("SELECT id FROM contest_entrants WHERE contest_id = ?", [self.contest_id])]
            for _ in range(rounds):
                entrant = self.random.choice(ids)
                calls = {
                    "entrant page (versions, matches, history, failures)": lambda: (
                        views.submissions(store, contest, entrant), views.matches(store, contest, entrant),
                        views.rating_history(store, contest, entrant), views.failures(store, contest, entrant)),
                    "leaderboard": lambda: views.leaderboard(store, contest),
                    "organiser: entrants": lambda: views.entrants(store, contest),
                    "organiser: submissions, queue, failures": lambda: (
                        views.all_submissions(store, contest), views.queue(inbox, store, contest),
                        views.failures(store, contest)),
                    "contest summary": lambda: views.summary(store, contest),
                }
                for label, call in calls.items():
                    started = time.perf_counter()
                    call()
                    timings.setdefault(label, []).append((time.perf_counter() - started) * 1000)
        return {label: _percentiles(values)["p95"] for label, values in timings.items()}

    def cleanup(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def run(entrants: int = 200, minutes: float = 10.0, workers: int | None = None, build_jobs: int = 1,
        keep: bool = False, during=None, pages: bool = True) -> dict:
    bench = ContestBench(entrants, minutes, workers, build_jobs)
    bench.setup()
    timer = None
    if pages:  # served as `arena serve --contest` does; its pages timed over HTTP meanwhile (bench/contest_pages.py)
        from contest_pages import PageTimer, free_port, wait_for_server

        port = free_port()
        bench.start_runner(serve_port=port)
        wait_for_server(f"http://127.0.0.1:{port}", bench.runner)
        timer = PageTimer(f"http://127.0.0.1:{port}", bench.db, dict(list(bench.tokens.items())[:20]),
                          bench.organiser_token).start()
    else:
        bench.start_runner()
    try:
        uploader = threading.Thread(target=bench.upload_all)
        uploader.start()
        uploader.join()
        bench.wait(during=during)
        if timer is not None:
            figures_pages, timer = timer.stop(), None
        figures = bench.figures()
        if pages:
            figures["pages"] = figures_pages
        figures["views_p95_ms"] = bench.time_views()
        return figures
    finally:
        if timer is not None:
            timer.stop()
        bench.stop_runner()
        if not keep:
            bench.cleanup()
        else:
            print(f"kept {bench.folder}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=200)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--workers", type=int, help="match workers of the runner (default: one per core)")
    parser.add_argument("--build-jobs", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the contest's folder")
    parser.add_argument("--no-pages", dest="pages", action="store_false",
                        help="run `arena contest run` alone (default: `arena serve --contest`, its pages timed)")
    args = parser.parse_args()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    figures = run(args.entrants, args.minutes, args.workers, args.build_jobs, args.keep, pages=args.pages)
    print(f"{figures['entrants']} entrants uploading within {figures['window_minutes']:g} minutes while the ladder runs")
    print(f"  uploads acknowledged {figures['acknowledged']}, recorded {figures['recorded']}, lost {figures['lost']}")
    print(f"  accepted {figures['accepted']}, validation ok {figures['validated_ok']}")
    for key, label in (("upload_to_accepted_s", "upload -> accepted"),
                       ("upload_to_first_ladder_match_s", "upload -> first ladder match")):
        f = figures[key]
        if f["p50"] is None:
            print(f"  {label}: none")
        else:
            print(f"  {label}: p50 {f['p50']:.1f} s, p95 {f['p95']:.1f} s, max {f['max']:.1f} s")
    print(f"  ladder matches played: {figures['ladder_matches']}")
    tests = figures["test_request_to_played_s"]
    if tests["p50"] is not None:
        print(f"  test match, request -> played ({figures['test_matches']} requests, one every 15 s): p50 {tests['p50']:.1f} s,"
              f" p95 {tests['p95']:.1f} s, max {tests['max']:.1f} s")
    print("  reads for pages (arena.contest.views), p95 over 100 random entrants, after the run:")
    for label, value in figures["views_p95_ms"].items():
        print(f"    {label}: {value:.1f} ms")
    if "pages" in figures:
        from contest_pages import print_figures

        print_figures(figures["pages"])
    if figures["lost"] or figures["accepted"] != figures["acknowledged"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
