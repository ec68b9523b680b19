"""The web viewer at scale: leaderboard pages over 100,000 matches, and a 1 MB Fifth Avenue match.

Usage: python bench/web.py [--matches N] [--bots N] [--repeat N] [--no-browser] [--no-pages] [--db PATH] [--work DIR]

1. Builds the synthetic database of bench/store.py (100,000 matches among 200 bots) and times
   pages and API calls over real HTTP on a loopback port (uvicorn in this process, one
   keep-alive connection): the leaderboard page (target < 100 ms), its JSON, the games index,
   a bot page with its rating-history plot, a 33,000-match tournament page.
2. Plays a real 4-player Fifth Avenue match (the bundled heuristic and random bots, in the
   sandbox) whose log is at least 1 MB, stores it, and times the match page and its frames on
   the server, cold (the replay is computed) and warm (cached).
3. `arena replay` of that match, a new process each time (target < 1 s): cold (the files it
   reads dropped from the OS page cache first) and warm, wall and CPU time.
4. With Chromium (Debian's, via Playwright): the match page's first paint and the time until
   the board is drawn (target < 300 ms), cold (a new server and the browser's cache emptied;
   also in a new browser context; with the cold time's parts: the browser's set-up, the server until its
   first byte, the transfer, parsing the page and running the viewer's script) and warm (from another
   page of the site), and the time to show each step (the viewer's own
   `show`, until the next animation frame) for every step in the full view and a seat's
   view, and for seeks to random steps.
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.results.store import Store  # noqa: E402
from arena.web.app import create_app  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def bench_store_module():
    spec = importlib.util.spec_from_file_location("bench_store", ROOT / "bench" / "store.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Server:
    """The app on a loopback port, in a thread of this process."""

    def __init__(self, db: str):
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(create_app(db), host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.02)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def get(self, path: str) -> tuple[float, int, int]:
        start = time.perf_counter()
        self.connection.request("GET", path)
        response = self.connection.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - start) * 1000
        if response.status != 200:
            raise RuntimeError(f"{path}: HTTP {response.status}: {body[:200]!r}")
        return elapsed, response.status, len(body)

    def stop(self) -> None:
        self.connection.close()
        self.server.should_exit = True
        self.thread.join(10)


def describe(name: str, times: list[float], target: float | None = None, size: int | None = None) -> None:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    median = statistics.median(times)
    verdict = "" if target is None else ("  ok" if median < target else "  OVER TARGET")
    extra = f"  {size / 1024:7.1f} KiB" if size is not None else ""
    target_text = "" if target is None else f"  target < {target:g} ms"
    print(f"  {name:<52} median {median:8.1f} ms  p95 {p95:8.1f} ms{extra}{target_text}{verdict}", flush=True)


def timed_get(server: Server, path: str, repeat: int) -> tuple[list[float], int]:
    server.get(path)  # warm-up: templates compiled, connection per thread opened
    times, size = [], 0
    for _ in range(repeat):
        elapsed, _, size = server.get(path)
        times.append(elapsed)
    return times, size


# ---- 1. pages over 100,000 matches -------------------------------------------------------------

def bench_pages(args, folder: Path) -> None:
    path = Path(args.db) if args.db else folder / "bench-100k.db"
    if not path.exists():
        started = time.perf_counter()
        module = bench_store_module()
        with Store(path) as store:
            module.build(store, args.matches, args.bots, 0, random.Random(2026))
            store.db.execute("ANALYZE")
        print(f"built {args.matches} matches among {args.bots} bots in {time.perf_counter() - started:.1f} s "
              f"({path.stat().st_size / 1e6:.0f} MB)", flush=True)
    with Store(path) as store:
        count = store.one("SELECT COUNT(*) AS n FROM matches")["n"]
        big = store.one("SELECT tournament_id AS id, COUNT(*) AS n FROM matches GROUP BY tournament_id"
                        " ORDER BY n DESC LIMIT 1")
        bot = store.one("SELECT v.bot_id AS id, COUNT(*) AS n FROM match_seats s JOIN bot_versions v"
                        " ON v.id = s.bot_version_id GROUP BY v.bot_id ORDER BY n DESC LIMIT 1")
    print(f"pages over {count} stored matches (real HTTP on loopback, {args.repeat} requests each):", flush=True)
    server = Server(str(path))
    try:
        for name, url, target in [
            ("leaderboard page /games/five-towers", "/games/five-towers", 100),
            ("leaderboard page, all versions", "/games/five-towers?versions=all", 100),
            ("leaderboard JSON /api/games/five-towers/leaderboard", "/api/games/five-towers/leaderboard", 100),
            ("games index / (every game's top 5)", "/", 100),
            (f"bot page (rating plot of {bot['n']} matches)", f"/bots/{bot['id']}", None),
            ("tournament progress JSON (what a page polls)", f"/api/tournaments/{big['id']}/progress", None),
            (f"tournament page ({big['n']} matches, 200 entries)", f"/tournaments/{big['id']}", None),
        ]:
            repeat = args.repeat if target else max(3, args.repeat // 6)
            times, size = timed_get(server, url, repeat)
            describe(name, times, target, size)
    finally:
        server.stop()


# ---- 2. a 1 MB Fifth Avenue match ----------------------------------------------------------------

def big_match(folder: Path) -> tuple[str, int, int]:
    """A database with one real 4-player Fifth Avenue match whose log is >= 1 MB."""
    from arena.runner.match import MatchSpec, play_match
    from arena.tournament import TournamentConfig, create

    bots = ROOT / "bots"
    entries = [str(bots / "fifth_avenue_heuristic.py"), str(bots / "random.py")]
    for name in ("tycoon", "mogul"):  # more versions of the heuristic, under other names
        copy = folder / f"{name}.py"
        copy.write_text((bots / "fifth_avenue_heuristic.py").read_text())
        os.chmod(copy, 0o644)
        entries.append(str(copy))
    os.chmod(folder, 0o755)
    path = folder / "bench-match.db"
    best = None
    with Store(path) as store:
        # Tournaments of one round until the first match's log reaches 1 MB (at most 30 tries):
        # the stored match is exactly the one the runner played, seed and seats included.
        for seed in range(1, 31):
            tournament = create(store, TournamentConfig(game="fifth-avenue", bots=entries, players=4, seed=seed))
            match = store.pending_matches(tournament)[0]
            result = play_match(MatchSpec("fifth-avenue", match["bots"], match["seed"], match["options"])).to_dict()
            size = len(json.dumps(result["log"], separators=(",", ":")))
            if best is None or size > best[0]:
                best = (size, seed, match["id"], result)
            if size >= 1_000_000:
                break
        size, seed, match_id, result = best
        store.record_match(match_id, result)
    decisions = sum(1 for e in result["log"] if e["event"] == "action")
    blob = len(zlib.compress(json.dumps(result["log"]).encode()))
    print(f"a real 4-player Fifth Avenue match (tournament seed {seed}): {decisions} decisions,"
          f" log {size / 1e6:.2f} MB as JSON,"
          f" {blob / 1024:.0f} KiB compressed in the store", flush=True)
    return str(path), match_id, decisions


def bench_match_server(db: str, match_id: int, decisions: int, repeat: int) -> None:
    print("the match on the server (real HTTP):", flush=True)
    with Store(db) as store:
        other = store.one("SELECT id FROM matches WHERE status = 'pending' LIMIT 1")["id"]
    for label in ("cold: the replay is computed", "warm: cached"):
        server = Server(db)
        try:
            server.get(f"/matches/{other}")  # compiles the templates: not the replay's cost
            if label.startswith("cold"):
                page = server.get(f"/matches/{match_id}")
                frames = server.get(f"/api/matches/{match_id}/frames?view=seat-0&chunk=0")
                check = server.get(f"/api/matches/{match_id}/check")
                last = server.get(f"/api/matches/{match_id}/frames?view=seat-0&frame={10 ** 6}".replace(
                    f"frame={10 ** 6}", "chunk=" + str(decisions // 64)))
                describe("match page, first request (log read, its first frame made)", [page[0]], None, page[2])
                describe("a seat's first chunk of frames, first request", [frames[0]], None, frames[2])
                describe("the log check to the end, first request", [check[0]], None, check[2])
                describe("a seat's last chunk, first request", [last[0]], None, last[2])
            else:
                times, size = timed_get(server, f"/matches/{match_id}", repeat)
                describe("match page, cached", times, None, size)
                times, size = timed_get(server, f"/api/matches/{match_id}/frames?view=full&chunk=1", repeat)
                describe("a chunk of 64 frames, cached", times, None, size)
        finally:
            server.stop()


# ---- 3. `arena replay`: a new process each time, as a person runs it --------------------------------

IMPORTED_FILES = """import sys, importlib.util
from arena.entry import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
for module in list(sys.modules.values()):
    path = getattr(module, '__file__', None)
    if path:
        print(path)
        if path.endswith('.py'):
            print(importlib.util.cache_from_source(path))
"""


def _files_read(command: list[str], env: dict) -> list[str]:
    """The files a run of ``arena ...`` reads: its modules (source and bytecode), Python and
    its libraries, and the database."""
    out = subprocess.run([sys.executable, "-c", IMPORTED_FILES, *command], env=env, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    files = [line for line in out if os.path.isfile(line)]
    files += [os.path.realpath(sys.executable)]
    with open("/proc/self/maps") as maps:  # shared libraries this Python maps
        files += sorted({line.split()[-1] for line in maps if ".so" in line and line.split()[-1].startswith("/")})
    return files


def _evict(files: list[str]) -> None:
    """Drop the files from the OS page cache, as after a reboot or under memory pressure
    (posix_fadvise DONTNEED; pages that another process keeps mapped stay)."""
    for path in files:
        try:
            handle = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(handle, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(handle)


def _run_replay(command: list[str], env: dict) -> tuple[float, float]:
    """(wall ms, CPU ms of the process: user + system) of one ``arena ...`` run."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "arena", *command], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = (time.perf_counter() - start) * 1000
    after = os.times()
    return wall, (after.children_user - before.children_user + after.children_system - before.children_system) * 1000


def bench_replay_command(db: str, match_id: int, folder: Path, repeat: int) -> None:
    out = folder / "replay.html"
    command = ["--db", db, "replay", str(match_id), "-o", str(out)]
    # As a person's install runs it: Python writes and reads bytecode (a session may have turned
    # that off), and the checkout is what `arena` imports.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    files = _files_read(command, env)
    print(f"`arena replay` of the match, a new process each time ({os.path.getsize(db) / 1024:.0f} KiB database;"
          f" load average {os.getloadavg()[0]:.1f}):", flush=True)
    _run_replay(command, env)  # bytecode written
    cold_wall, cold_cpu, warm_wall, warm_cpu = [], [], [], []
    for _ in range(max(3, repeat // 3)):
        _evict(files)
        wall, cpu = _run_replay(command, env)
        cold_wall.append(wall)
        cold_cpu.append(cpu)
        wall, cpu = _run_replay(command, env)
        warm_wall.append(wall)
        warm_cpu.append(cpu)
    size = out.stat().st_size
    describe(f"cold: its {len(files)} files dropped from the OS cache first", cold_wall, 1000, size)
    describe("cold: CPU time of the process (user + system)", cold_cpu)
    describe("warm: run again", warm_wall, 1000, size)
    describe("warm: CPU time of the process (user + system)", warm_cpu)


# ---- 4. in the browser ----------------------------------------------------------------------------

STEP_TIMES = """async ({view, order}) => {
  const viewer = window.arenaViewer;
  viewer.setView(view);
  await viewer.show(0);
  const times = [];
  for (const i of order) {
    const start = performance.now();
    await viewer.show(i);
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    times.push(performance.now() - start);
  }
  return times;
}"""


def _open(page, url: str) -> tuple[float, float | None, float, dict]:
    """Navigate; (ms until the viewer drew frame 0, first contentful paint ms, ms until the
    page's last byte arrived, the parts), from the navigation's start (the viewer marks
    ``arena-board-drawn``). The parts: ``browser`` until the request was sent (the browser's
    own set-up), ``server`` until its first byte came back, ``transfer`` until its last,
    ``page`` until the board was drawn (parsing the page, running the viewer's script)."""
    page.goto(url, wait_until="commit")
    page.wait_for_selector('#v-board[data-frame="0"]', timeout=30000)
    drawn = page.evaluate("performance.getEntriesByName('arena-board-drawn')[0].startTime")
    paint = page.evaluate(FIRST_PAINT)
    timing = page.evaluate("(({requestStart, responseStart, responseEnd}) => ({requestStart, responseStart,"
                           " responseEnd}))(performance.getEntriesByType('navigation')[0])")
    arrived = timing["responseEnd"]
    parts = {"browser": timing["requestStart"], "server": timing["responseStart"] - timing["requestStart"],
             "transfer": arrived - timing["responseStart"], "page": drawn - arrived}
    return drawn, paint, arrived, parts


PARTS = {"browser": "its parts: the browser's set-up, until the request was sent",
         "server": "its parts: the server, until the first byte came back",
         "transfer": "its parts: the page's bytes, until the last one",
         "page": "its parts: parsing the page and running the viewer's script"}


# The first contentful paint may be reported after the board is drawn: wait for it (5 s at most).
FIRST_PAINT = """() => new Promise((resolve) => {
  const known = performance.getEntriesByName('first-contentful-paint')[0];
  if (known) { resolve(known.startTime); return; }
  new PerformanceObserver((list) => resolve(list.getEntries()[0].startTime)).observe({type: 'paint', buffered: true});
  setTimeout(() => resolve(null), 5000);
})"""


def bench_browser(db: str, match_id: int, repeat: int) -> None:
    if not os.path.exists(CHROMIUM):
        print("(no Chromium at /usr/bin/chromium: browser timings skipped)")
        return
    from playwright.sync_api import sync_playwright

    print("the match in Chromium (headless, 1400x1000; times from the navigation's start):", flush=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        server = Server(db)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            # Cold: a new server (the replay not computed yet) and the browser's cache emptied
            # (the page, styles and scripts all fetched), as when a link to the match is opened
            # in a browser that is running; then the same in a new browser context, whose own
            # set-up (a renderer process and a network context, a few hundred ms) counts too.
            cold_page = context.new_page()
            cdp = context.new_cdp_session(cold_page)
            for label, fresh_context in (("cold (new server, browser cache emptied)", False),
                                         ("cold, in a new browser context", True)):
                paints, draws, arrivals, parts = [], [], [], {name: [] for name in PARTS}
                for _ in range(max(3, repeat // 3)):
                    fresh_server = Server(db)
                    fresh = browser.new_context(viewport={"width": 1400, "height": 1000}) if fresh_context else None
                    try:
                        if fresh is None:
                            cold_page.goto("about:blank")
                            cdp.send("Network.clearBrowserCache")
                        target = fresh.new_page() if fresh is not None else cold_page
                        drawn, paint, arrived, split = _open(target, f"{fresh_server.url}/matches/{match_id}")
                    finally:
                        if fresh is not None:
                            fresh.close()
                        fresh_server.stop()
                    paints.append(paint)
                    draws.append(drawn)
                    arrivals.append(arrived)
                    for name, value in split.items():
                        parts[name].append(value)
                describe(f"{label}: the page arrived", arrivals)
                describe(f"{label}: first contentful paint", paints, 300)
                describe(f"{label}: board drawn", draws, 300)
                for name, about in PARTS.items():
                    describe(f"  {about}", parts[name])
                print(f"  (load average {os.getloadavg()[0]:.1f})", flush=True)
            cold_page.close()
            # Warm: the replay cached on the server, the site's styles and scripts in the
            # browser's cache; the match opened from another page of the site.
            page.goto(f"{server.url}/matches/{match_id}")
            paints, draws = [], []
            for _ in range(max(3, repeat // 3)):
                page.goto(f"{server.url}/games/fifth-avenue")
                drawn, paint, _, _ = _open(page, f"{server.url}/matches/{match_id}")
                paints.append(paint)
                draws.append(drawn)
            describe("warm (from another page of the site): first contentful paint", paints, 300)
            describe("warm: board drawn", draws, 300)
            page.wait_for_selector('#viewer[data-checked="ok"]', timeout=30000)
            total = int(page.locator("#v-slider").get_attribute("max"))
            for view in ("full", "seat-1"):
                times = page.evaluate(STEP_TIMES, {"view": view, "order": list(range(1, total + 1))})
                describe(f"step forward through all {total} steps, {view} view", times)
            rng = random.Random(1)
            seeks = [rng.randrange(total + 1) for _ in range(60)]
            times = page.evaluate(STEP_TIMES, {"view": "seat-2", "order": seeks})
            describe("seek to random steps, seat-2 view (chunks fetched)", times)
            context.close()
        finally:
            server.stop()
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--db", help="reuse (or keep) the 100,000-match database at this path")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--no-pages", action="store_true", help="skip part 1 (the 100,000-match database)")
    parser.add_argument("--work", help="keep the match database in this folder (reused when it is there)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-web-bench-") as temporary:
        folder = Path(args.work or temporary)
        folder.mkdir(parents=True, exist_ok=True)
        if not args.no_pages:
            bench_pages(args, folder)
        kept = folder / "bench-match.json"
        if args.work and kept.exists():
            db, match_id, decisions = json.loads(kept.read_text())
        else:
            db, match_id, decisions = big_match(folder)
            if args.work:
                kept.write_text(json.dumps([db, match_id, decisions]))
        bench_match_server(db, match_id, decisions, args.repeat)
        bench_replay_command(db, match_id, folder, args.repeat)
        if not args.no_browser:
            bench_browser(db, match_id, args.repeat)


if __name__ == "__main__":
    main()
