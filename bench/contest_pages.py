"""The contest server's page times under load: `PageTimer` keeps opening the pages of a
running `arena serve --contest` over HTTP (in a thread), as signed-in entrants, the organiser
and visitors would, timing each request end to end (`time.perf_counter` around the whole HTTP
request and the body read).

Used by bench/contest_server.py (on unless ``--no-pages``): it serves the contest with
`arena serve --contest` (the web process and its runner process, exactly as deployed), starts
the timer once the contest exists and stops it when every upload has played, so the pages are
timed while the entrants upload and the ladder runs.
"""

from __future__ import annotations

import http.cookiejar
import os
import random
import re
import socket
import statistics
import threading
import time
import urllib.parse
import urllib.request

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
PAUSE_S = 0.05      # between two page loads of the timer (about 15 pages a second at most)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_server(url: str, process, patience_s: float = 120.0) -> None:
    deadline = time.monotonic() + patience_s
    while True:
        try:
            urllib.request.urlopen(url + "/", timeout=5).read()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the contest server at {url} did not start") from None
            time.sleep(0.1)


class PageTimer:
    def __init__(self, url: str, db, entrant_tokens: dict[str, str], organiser_token: str, seed: int = 1):
        self.url, self.db = url, str(db)
        self.entrant_tokens, self.organiser_token = entrant_tokens, organiser_token
        self.random = random.Random(seed)
        self.times: dict[str, list[float]] = {}
        self.failures: list[str] = []
        self.load: list[float] = []   # the machine's 1-minute load average, sampled with each page
        self._stop = threading.Event()

    def start(self) -> "PageTimer":
        self.entrants = {name: self._signed_in(token) for name, token in self.entrant_tokens.items()}
        self.organiser = self._signed_in(self.organiser_token)
        self.visitor = urllib.request.build_opener()
        self._timing = threading.Thread(target=self._loop, daemon=True)
        self._timing.start()
        return self

    def stop(self) -> dict:
        self._stop.set()
        self._timing.join(60)
        return self.figures()

    def _signed_in(self, token: str):
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = opener.open(f"{self.url}/signin/{token}").read().decode()
        form = urllib.parse.urlencode({"token": token, "csrf": CSRF.search(page).group(1)}).encode()
        opener.open(f"{self.url}/signin", data=form).read()
        return opener

    # ---- the timing -------------------------------------------------------------------------

    def _loop(self) -> None:
        from arena.results.store import Store

        with Store(self.db, readonly=True, live=True) as store:
            while not self._stop.wait(PAUSE_S):
                row = store.one("SELECT MAX(id) AS id FROM matches WHERE status = 'finished' AND tournament_id IS NOT NULL")
                name = self.random.choice(list(self.entrants))
                pages = [("leaderboard", self.visitor, "/"),
                         ("entrant's own page", self.entrants[name], f"/entrants/{name}"),
                         ("another entrant's page", self.visitor, f"/entrants/{name}"),
                         ("organiser's page", self.organiser, "/organiser"),
                         ("organiser's list of every submission", self.organiser, "/organiser/submissions")]
                if row and row["id"]:
                    pages.append(("a ladder match (newest finished)", self.visitor, f"/matches/{row['id']}"))
                label, opener, path = self.random.choice(pages)
                self._time(label, opener, path)
                if path.startswith("/matches/"):
                    # Not a page but what its viewer fetches next, as a browser does once the page
                    # (which carries the first board) has painted: the first chunk of frames.
                    self._time("its first frames (API, right after the page)", opener,
                               f"/api/matches/{row['id']}/frames?view=seat-0&chunk=0")
                self.load.append(os.getloadavg()[0])

    def _time(self, label: str, opener, path: str) -> None:
        started = time.perf_counter()
        try:
            with opener.open(self.url + path, timeout=60) as answer:
                answer.read()
        except OSError as error:
            self.failures.append(f"{path}: {error}")
            return
        self.times.setdefault(label, []).append((time.perf_counter() - started) * 1000)

    def figures(self) -> dict:
        every = [t for label, values in self.times.items() if "API" not in label for t in values]
        return {"pages": len(every), "failures": len(self.failures), "first_failures": self.failures[:3],
                "load_median": _quantile(self.load, 0.5), "cores": os.cpu_count(),
                "p50_ms": _quantile(every, 0.5), "p95_ms": _quantile(every, 0.95),
                "by_page": {label: {"n": len(values), "p50_ms": _quantile(values, 0.5),
                                    "p95_ms": _quantile(values, 0.95), "max_ms": max(values)}
                            for label, values in sorted(self.times.items())}}


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if q == 0.5:
        return statistics.median(values)
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def print_figures(figures: dict) -> None:
    print(f"  pages (HTML) served while they uploaded: {figures['pages']} (failed {figures['failures']}),"
          f" p50 {figures['p50_ms']:.1f} ms, p95 {figures['p95_ms']:.1f} ms (target: p95 under 200 ms)")
    print(f"    (the machine's load average meanwhile: median {figures['load_median']:.1f} on {figures['cores']} cores)")
    for label, f in figures["by_page"].items():
        print(f"    {label}: {f['n']} loads, p50 {f['p50_ms']:.1f} ms, p95 {f['p95_ms']:.1f} ms, max {f['max_ms']:.1f} ms")
    for line in figures["first_failures"]:
        print(f"    failed: {line}")
