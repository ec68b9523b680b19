"""Bot processes that play many matches (protocol v2): reuse is invisible in the results, a
process that failed is replaced, nothing is left after the tournament, and a reused process
is sandboxed exactly like a fresh one."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from arena.results.store import Store
from arena.runner.livebots import LiveBots
from arena.runner.match import Limits, MatchSpec, play_match, strip_timing
from arena.runner.sandbox import detect
from arena.tournament import TournamentConfig, create, run
from botmaker import write_bot

REPO = Path(__file__).resolve().parents[1]
RANDOM = str(REPO / "bots" / "random.py")

# Counts its matches in a global: a process that is reused says so in its stderr.
COUNTING = '''
import json, os, sys
matches = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        matches += 1
        sys.stderr.write("MATCH %d PID %d\\n" % (matches, os.getpid()))
        print(json.dumps({"type": "ready", "matches": "many"}), flush=True)
    elif message["type"] == "request":
        print(json.dumps({"index": message["seed"] % 3 if "seed" in message else 0}), flush=True)
    elif message["type"] == "quit":
        break
'''


def copies(tmp_path: Path, count: int) -> list[str]:
    folder = tmp_path / "bots"
    folder.mkdir()
    folder.chmod(0o755)
    paths = []
    for number in range(count):
        path = folder / f"reused{number}.py"  # names no other test's bots have (tests may run side by side)
        shutil.copy(RANDOM, path)
        with open(path, "a") as handle:
            handle.write(f"# {number}\n")
        path.chmod(0o644)
        paths.append(str(path))
    return paths


def logs(store: Store, tournament_id: int) -> list:
    return [strip_timing(store.match(row["id"])["log"]) for row in store.query(
        "SELECT id FROM matches WHERE tournament_id = ? ORDER BY schedule_index", [tournament_id])]


def test_reuse_is_invisible_in_match_logs_and_ratings(tmp_path):
    from arena.results.leaderboard import tournament_leaderboard

    bots = copies(tmp_path, 3)
    outcomes = []
    for restart, workers in (("always", 1), ("auto", 1), ("auto", 2)):
        with Store(tmp_path / f"{restart}-{workers}.db") as store:
            tournament_id = create(store, TournamentConfig(game="five-towers", bots=bots, players=2, rounds=2,
                                                           seed=5, restart=restart))
            run(store, tournament_id, workers=workers)
            board = [(e["bot"], e["mu"], e["sigma"]) for e in tournament_leaderboard(store, tournament_id)["entries"]]
            outcomes.append((logs(store, tournament_id), board))
    assert outcomes[0] == outcomes[1] == outcomes[2]


def test_a_reusable_bot_plays_its_next_match_in_the_same_process(tmp_path):
    path = write_bot(tmp_path / "src", "counter")
    Path(path).write_text(COUNTING)
    bots = LiveBots(detect(), keep=4)
    try:
        seen = []
        for seed in range(3):
            result = play_match(MatchSpec("toy", [path, RANDOM], seed=seed), bots=bots)
            seen.append(result.seats[0].stderr.strip())
        pids = {line.split()[3] for line in seen}
        assert [line.split()[1] for line in seen] == ["1", "2", "3"] and len(pids) == 1
    finally:
        bots.close()


def test_a_reused_bot_that_crashes_in_a_match_is_started_afresh_for_the_next(tmp_path):
    crasher = write_bot(tmp_path / "src", "crasher", on_start='''
        reply({"type": "ready", "matches": "many"})
        sys.stderr.write("PROCESS %s\\n" % globals().setdefault("PROCESS", os.urandom(8).hex()))''', on_request='''
        if message["step"] >= 2:
            os._exit(7)
        reply({"type": "action", "index": 0})''')
    bots = LiveBots(detect(), keep=4)
    try:
        first = play_match(MatchSpec("toy", [crasher, RANDOM], seed=1), bots=bots)
        second = play_match(MatchSpec("toy", [crasher, RANDOM], seed=2), bots=bots)
        assert first.seats[0].status == "crash" and second.seats[0].status == "crash"
        assert first.seats[0].stderr.split()[1] != second.seats[0].stderr.split()[1]  # a new process
        assert bots.idle_count() == 1  # only the random bot is kept
    finally:
        bots.close()


def test_nothing_is_left_running_after_a_tournament_of_reusable_bots(tmp_path):
    from hostile_kit import our_cgroups

    bots = copies(tmp_path, 3)
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=bots, players=2, rounds=3, seed=2))
        run(store, tournament_id, workers=2)
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                cmdline = open(f"/proc/{entry.name}/cmdline", "rb").read()
            except OSError:
                continue
            assert str(tmp_path).encode() not in cmdline and b"/bot/reused" not in cmdline
    assert our_cgroups() == []


def test_a_reused_process_is_as_sandboxed_as_a_fresh_one(tmp_path):
    """The second match of one process sees the same sandbox: no host files, private /tmp."""
    path = write_bot(tmp_path / "src", "prober", on_start=f'''
        import glob
        # The folders above a checkout's own interpreter (a .venv under /tmp) are bound too.
        seen = [p for p in sorted(glob.glob("/tmp/*")) if not (sys.prefix + "/").startswith(p + "/")] + [p for p in ({str(REPO / "README.md")!r}, {str(tmp_path)!r}, "/root/.bashrc")
                                              if os.path.exists(p)]
        sys.stderr.write("SEEN %s\\n" % seen)
        open("/tmp/mark-%d" % message["seed"], "w").close()
        reply({{"type": "ready", "matches": "many"}})''')
    bots = LiveBots(detect(), keep=4)
    try:
        first = play_match(MatchSpec("toy", [path, RANDOM], seed=1, limits=Limits()), bots=bots)
        second = play_match(MatchSpec("toy", [path, RANDOM], seed=2, limits=Limits()), bots=bots)
    finally:
        bots.close()
    seen_first = first.seats[0].stderr.split("SEEN ", 1)[1].splitlines()[0]
    seen_second = second.seats[0].stderr.split("SEEN ", 1)[1].splitlines()[0]
    assert seen_first == "[]"
    # Its own /tmp keeps what it wrote in its first match (documented), and nothing of the host.
    assert seen_second.startswith("['/tmp/mark-") and "root" not in seen_second and str(REPO) not in seen_second


# ---- a process that ended, stderr of its own match, deals it has seen ---------------------------

def with_end_handler(path: str, code: str) -> str:
    """Add an ``end`` handler (``code``, one line) to a bot written by `write_bot`."""
    source = Path(path).read_text()
    marker = '    elif message["type"] == "quit":'
    Path(path).write_text(source.replace(marker, f'    elif message["type"] == "end":\n        {code}\n{marker}', 1))
    return path


def tournament_seats(store: Store, tournament_id: int, bot: str) -> list[dict]:
    """The seats ``bot`` played, in schedule order, with their stderr."""
    seats = []
    for row in store.query("SELECT id FROM matches WHERE tournament_id = ? ORDER BY schedule_index", [tournament_id]):
        seats += [seat for seat in store.match(row["id"])["seats"] if seat["bot"] == bot]
    return seats


def test_a_reusable_bot_that_exits_after_end_is_replaced_and_never_charged(tmp_path):
    """Failure: a reusable bot that exits (code 0) right after `end` was given the next `start`
    before it was reaped, and that match recorded `crash: start-up: closed its stdout: exited
    with code 0` for a bot that did nothing wrong in it (8 of 16 seats, 1 or 2 workers). What it
    wrote before exiting belongs to the match that ended."""
    path = write_bot(tmp_path / "src", "quitter", on_start='''
        sys.stderr.write("START %d\\n" % message["seed"])
        seed = message["seed"]
        reply({"type": "ready", "matches": "many"})''')
    with_end_handler(path, 'sys.stderr.write("BYE %d\\n" % seed); sys.stderr.flush(); sys.exit(0)')
    for workers in (1, 2):
        with Store(tmp_path / f"{workers}.db") as store:
            tournament_id = create(store, TournamentConfig(game="five-towers", bots=[path, RANDOM], players=2,
                                                           rounds=8, seed=4))
            run(store, tournament_id, workers=workers)
            seats = tournament_seats(store, tournament_id, "quitter")
        assert len(seats) == 16
        assert [(s["status"], s["error"]) for s in seats] == [("ok", None)] * 16
        for seat in seats:
            seed = seat["stderr"].split()[1]
            assert seat["stderr"] == f"START {seed}\nBYE {seed}\n"


def test_each_match_of_a_reused_process_holds_exactly_its_own_stderr(tmp_path):
    """Failure: what a reused process wrote after `end` of match N-1 was stored as match N's
    stderr, and its own last lines never reached their match (0 of 16 seats held their own
    stderr, with 1 or 2 workers)."""
    path = write_bot(tmp_path / "src", "diarist", on_start='''
        seed = message["seed"]
        matches = globals().get("matches", 0) + 1
        sys.stderr.write("match %d start %d\\n" % (matches, seed))
        reply({"type": "ready", "matches": "many"})''', on_request='''
        sys.stderr.write("match %d step %d %d\\n" % (matches, message["step"], seed))
        reply({"type": "action", "index": 0})''')
    with_end_handler(path, 'sys.stderr.write("match %d end %d\\n" % (matches, seed) + "x" * 5000 + "\\n")')
    for workers in (1, 2):
        with Store(tmp_path / f"{workers}.db") as store:
            tournament_id = create(store, TournamentConfig(game="five-towers", bots=[path, RANDOM], players=2,
                                                           rounds=8, seed=6))
            run(store, tournament_id, workers=workers)
            seats = tournament_seats(store, tournament_id, "diarist")
        assert len(seats) == 16 and all(s["status"] == "ok" for s in seats)
        numbers = set()
        for seat in seats:
            lines = seat["stderr"].splitlines()
            number, seed = lines[0].split()[1], lines[0].split()[3]
            numbers.add(number)
            assert lines[0] == f"match {number} start {seed}"
            assert len(lines) == seat["decisions"] + 3  # start, one per decision, end (and its long line)
            assert all(line.startswith(f"match {number} step ") and line.endswith(f" {seed}") for line in lines[1:-2])
            assert lines[-2:] == [f"match {number} end {seed}", "x" * 5000]
        assert numbers != {"1"}  # processes were reused


def test_what_a_bot_writes_after_a_pause_after_end_is_still_its_matchs(tmp_path):
    """Failure: a quiet moment after `end` is no proof that the bot is done with it. A bot that
    sleeps after `end`, then writes its last line, must have that line in the match that ended
    (it is kept once it reads again; one that takes too long is retired, its line still in)."""
    path = write_bot(tmp_path / "src", "sleeper", on_start='''
        seed = message["seed"]
        sys.stderr.write("start %d\\n" % seed)
        reply({"type": "ready", "matches": "many"})''')
    with_end_handler(path, 'time.sleep(0.3); sys.stderr.write("late %d\\n" % seed)')
    bots = LiveBots(detect(), keep=4)
    try:
        for seed in range(3):
            result = play_match(MatchSpec("toy", [path, RANDOM], seed=seed), bots=bots)
            lines = result.seats[0].stderr.splitlines()
            assert len(lines) == 2 and lines[0].split()[0] == "start" and lines[1] == f"late {lines[0].split()[1]}"
    finally:
        bots.close()


REMEMBERING = '''
import json, sys
seen = {}         # the first market of each match it played -> that match's number
matches = 0
first = False
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        matches += 1
        first = True
        sys.stderr.write("match %d\\n" % matches)
        print(json.dumps({"type": "ready", "matches": "many"}), flush=True)
    elif message["type"] == "request":
        if first:
            first = False
            deal = json.dumps(message["observation"]["market"])
            if deal in seen:
                sys.stderr.write("RECOGNISED the deal of my match %d\\n" % seen[deal])
            seen.setdefault(deal, matches)
        print(json.dumps({"index": 0}), flush=True)
    elif message["type"] == "quit":
        break
'''


def rememberers(tmp_path: Path, count: int) -> list[str]:
    paths = []
    for number in range(count):
        path = write_bot(tmp_path / "src", f"rememberer{number}")
        Path(path).write_text(REMEMBERING + f"# {number}\n")
        paths.append(path)
    return paths


def test_a_kept_process_never_plays_a_deal_it_has_seen_in_a_duplicate_tournament(tmp_path):
    """Attack: a reusable bot remembers the markets of Five Towers and recognises the deal when
    a duplicate set replays it with the seats rotated (then it knows the hidden draw pile): in 2
    of 4 matches it knew. Each process must see each deal at most once, with 1 or 2 workers."""
    bots = rememberers(tmp_path, 2)
    for workers in (1, 2):
        with Store(tmp_path / f"duplicate-{workers}.db") as store:
            tournament_id = create(store, TournamentConfig(game="five-towers", bots=bots, players=2, rounds=3,
                                                           seed=9, duplicate=True))
            run(store, tournament_id, workers=workers)
            seats = tournament_seats(store, tournament_id, "rememberer0") + \
                tournament_seats(store, tournament_id, "rememberer1")
        assert len(seats) == 12 and all(s["status"] == "ok" for s in seats)
        assert not [s["stderr"] for s in seats if "RECOGNISED" in s["stderr"]]
        assert any(not s["stderr"].startswith("match 1\n") for s in seats)  # processes were reused


def test_a_kept_process_never_plays_both_halves_of_an_sprt_pair(tmp_path):
    """Attack: SPRT plays each deal twice (a pair, the versions' seats swapped); a remembering
    reusable process must never be given the pair's other half."""
    bots = rememberers(tmp_path, 2)
    with Store(tmp_path / "sprt.db") as store:
        tournament_id = create(store, TournamentConfig(game="five-towers", bots=bots, players=2, seed=9,
                                                       format="sprt", batch=4, max_matches=16, elo0=0.0,
                                                       elo1=2000.0))
        run(store, tournament_id, workers=1)
        seats = tournament_seats(store, tournament_id, "rememberer0") + tournament_seats(store, tournament_id,
                                                                                         "rememberer1")
    assert len(seats) >= 8 and all(s["status"] == "ok" for s in seats)
    assert not [s["stderr"] for s in seats if "RECOGNISED" in s["stderr"]]
    assert any(not s["stderr"].startswith("match 1\n") for s in seats)


def test_the_pool_starts_a_fresh_process_for_a_deal_its_idle_process_has_seen(tmp_path):
    """The pool's rule itself: the same seed again gets a fresh process (the one that saw it
    stays idle and plays the next new deal)."""
    path = write_bot(tmp_path / "src", "named", on_start="""
        sys.stderr.write("PROCESS %s\\n" % globals().setdefault("PROCESS", os.urandom(8).hex()))
        reply({"type": "ready", "matches": "many"})""")
    bots = LiveBots(detect(), keep=4)
    try:
        names = []
        for seed in (1, 1, 2, 2):
            result = play_match(MatchSpec("toy", [path, RANDOM], seed=seed), bots=bots)
            names.append(result.seats[0].stderr.split()[1])
        assert names[0] != names[1] and names[2:] == names[:2]
    finally:
        bots.close()
