"""The store at scale: a synthetic database of 100,000 matches among 200 bots.

Usage: python bench/store.py [--matches N] [--bots N] [--commits N] [--db PATH] [--keep]

Builds the database in bulk (the bulk rows carry small logs and made-up ratings: building it
through the real commit path would take minutes), then times

* the leaderboard query (`arena leaderboard --game five-towers`; target < 100 ms),
* the leaderboard of the largest (~33,000-match) tournament (target < 20 ms), and
* the per-match commit (`Store.record_match`: the match row, its seats, a realistic
  compressed log, the rating update and its history in one transaction; target < 1 ms),
  on matches left pending at the end of the schedule. Compressing the log happens in the
  pool worker, not in the committing process; its cost is reported on its own line.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.results.leaderboard import game_leaderboard, tournament_leaderboard  # noqa: E402
from arena.results.ratings import MU, conservative  # noqa: E402
from arena.results.store import Store, pack, pack_result_logs  # noqa: E402

GAME = "five-towers"
STATUSES = ["ok"] * 40 + ["timeout", "crash", "illegal", "protocol"]


def realistic_log(rng: random.Random, players: int, decisions: int = 90) -> list:
    """Requests and replies shaped like a Five Towers match log (about 8 KB compressed)."""
    colours = ["candy", "sand", "scary", "scrap", "tree"]
    log = []
    for step in range(decisions):
        seat = step % players
        hand = [[rng.choice(colours), rng.randrange(16)] for _ in range(rng.randrange(3, 9))]
        observation = {"seat": seat, "phase": rng.choice(["bid", "build"]), "hand": hand,
                       "towers": [[[c, rng.randrange(16)] for c in colours] for _ in range(players)],
                       "market": hand[:3], "scores": [rng.randrange(60) for _ in range(players)]}
        legal = [{"type": "bid", "amount": n} for n in range(rng.randrange(2, 8))] + [{"type": "pass"}]
        log.append({"event": "request", "seat": seat, "step": step,
                    "message": {"type": "request", "seat": seat, "step": step, "observation": observation,
                                "legal": legal, "time": {"decision_ms": 1000, "bank_ms": 10000}}})
        log.append({"event": "reply", "seat": seat, "step": step, "line": '{"type": "action", "index": 1}',
                    "ms": round(rng.uniform(0.2, 3.0), 3)})
        log.append({"event": "action", "seat": seat, "step": step, "action": legal[1], "by": "bot"})
    return log


def build(store: Store, matches: int, bots: int, pending: int, rng: random.Random) -> int:
    """Bulk-load bots, one tournament of ``matches`` matches, results, logs and ratings."""
    versions = [store.add_bot_version(GAME, f"bot{n:03d}", "python", f"{n:064x}", f"{n:064x}/bot.py",
                                      None, check_copy=False)[0]["id"] for n in range(bots)]
    schedule = []
    for index in range(matches):
        players = rng.choice((2, 3, 4))
        schedule.append(SimpleNamespace(index=index, round=0, seed=rng.randrange(1 << 62),
                                        seats=tuple(rng.sample(range(bots), players))))
    # One tournament per player count keeps `players` consistent per match row.
    ids = []
    for players in (2, 3, 4):
        part = [s for s in schedule if len(s.seats) == players]
        for number, scheduled in enumerate(part):
            scheduled.index = number
        ids.append(store.create_tournament(name=f"bench-{players}p", game=GAME, players=players, rounds=1, seed=1,
                                           options={}, config={}, entries=versions, schedule=part,
                                           secret="00" * 32))
    small_log = pack([{"event": "request", "seat": 0, "step": 0, "message": {"x": rng.random()}}] * 20)
    empty_stderr = pack(["", "", "", ""])
    rows = store.query("SELECT id, tournament_id, schedule_index, players FROM matches ORDER BY id")
    per_tournament: dict[int, list] = {}
    for row in rows:
        per_tournament.setdefault(row["tournament_id"], []).append(row)
    finished = [r for group in per_tournament.values() for r in group[:len(group) - pending // 3]]
    seq = 0
    seat_updates, history, match_updates, logs = [], [], [], []
    seat_rows = store.db.execute("SELECT match_id, seat, bot_version_id FROM match_seats").fetchall()
    seats_of: dict[int, list] = {}
    for match_id, seat, version_id in seat_rows:
        seats_of.setdefault(match_id, []).append((seat, version_id))
    for row in finished:
        seq += 1
        seats = seats_of[row["id"]]
        ranks = list(range(1, len(seats) + 1))
        rng.shuffle(ranks)
        for (seat, version_id), rank in zip(seats, ranks):
            status = rng.choice(STATUSES)
            seat_updates.append((status, float(rng.randrange(50)), rank, rng.uniform(10, 900), 30, row["id"], seat))
            mu = rng.gauss(MU, 3)
            history.append((row["id"], seat, version_id, mu, 2.0, mu + rng.gauss(0, 0.3), 1.99))
        match_updates.append((seq, "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:01+00:00", 1000.0, row["id"]))
        logs.append((row["id"], small_log, empty_stderr))
    with store.write():
        store.db.conn.executemany("UPDATE match_seats SET status = ?, score = ?, rank = ?, time_ms = ?, decisions = ?"
                                  " WHERE match_id = ? AND seat = ?", seat_updates)
        store.db.conn.executemany("UPDATE matches SET status = 'finished', rating_seq = ?, started_at = ?,"
                                  " ended_at = ?, duration_ms = ? WHERE id = ?", match_updates)
        store.db.conn.executemany("INSERT INTO match_logs (match_id, log, stderr) VALUES (?, ?, ?)", logs)
        store.db.conn.executemany("INSERT INTO rating_history VALUES (?, ?, ?, ?, ?, ?, ?)", history)
        for tournament_id, group in per_tournament.items():
            store.db.execute("UPDATE tournaments SET rated_through = ?, status = 'running' WHERE id = ?",
                             [len(group) - pending // 3 - 1, tournament_id])
        totals = store.query(
            "SELECT s.bot_version_id, COUNT(*) AS n, SUM(s.rank = 1) AS firsts, SUM(s.rank) AS rank_sum,"
            " SUM(s.status = 'timeout') AS t, SUM(s.status = 'crash') AS c, SUM(s.status = 'illegal') AS i,"
            " SUM(s.status = 'protocol') AS p FROM match_seats s WHERE s.status IS NOT NULL GROUP BY s.bot_version_id")
        for t in totals:
            mu, sigma = rng.gauss(MU, 4), rng.uniform(0.8, 2.0)
            store.db.execute("INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
                             [GAME, t["bot_version_id"], mu, sigma, conservative(mu, sigma), t["n"], t["firsts"],
                              t["rank_sum"], t["t"], t["c"], t["i"], t["p"], "2026-01-01T00:00:00+00:00"])
        per_entry = store.query(
            "SELECT m.tournament_id, s.bot_version_id, COUNT(*) AS n, SUM(s.rank = 1) AS firsts, SUM(s.rank) AS ranks"
            " FROM matches m JOIN match_seats s ON s.match_id = m.id WHERE m.status = 'finished'"
            " GROUP BY m.tournament_id, s.bot_version_id")
        store.db.conn.executemany(
            "INSERT INTO tournament_ratings (tournament_id, bot_version_id, mu, sigma, matches, first_places, rank_sum)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)", [(r["tournament_id"], r["bot_version_id"], rng.gauss(MU, 4),
                                              rng.uniform(0.8, 2.0), r["n"], r["firsts"], r["ranks"]) for r in per_entry])
    store.recount_matches()
    return ids[0]


def timed(function, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return times


def describe(name: str, times: list[float], target: float | None) -> None:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    verdict = "" if target is None else ("  ok" if statistics.median(times) < target else "  OVER TARGET")
    target_text = "-" if target is None else f"< {target:g} ms"
    print(f"{name:<44} median {statistics.median(times):8.2f} ms   p95 {p95:8.2f} ms   target {target_text}{verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--commits", type=int, default=300, help="matches committed through the real path")
    parser.add_argument("--db", help="database file (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()
    rng = random.Random(2026)
    folder = tempfile.mkdtemp(prefix="arena-bench-")
    path = Path(args.db or os.path.join(folder, "bench.db"))
    if path.exists():
        path.unlink()
    started = time.perf_counter()
    with Store(path) as store:
        tournament_id = build(store, args.matches, args.bots, args.commits, rng)
        store.db.execute("ANALYZE")
        count = store.one("SELECT COUNT(*) AS n FROM matches")["n"]
        print(f"built {count} matches among {args.bots} bots in {time.perf_counter() - started:.1f} s"
              f" ({path.stat().st_size / 1e6:.0f} MB before the timed commits)")
        describe("leaderboard query (game, all 200 rows)", timed(lambda: game_leaderboard(store, GAME), 50), 100)
        describe("leaderboard query (game, --limit 20)", timed(lambda: game_leaderboard(store, GAME, 20), 50), 100)
        size = store.tournament(tournament_id)["matches_total"]
        describe(f"tournament leaderboard ({size}-match tournament)",
                 timed(lambda: tournament_leaderboard(store, tournament_id), 20), 20)
        pending = store.query("SELECT m.id, m.players FROM matches m WHERE m.status = 'pending' ORDER BY m.id")
        results = []
        for match in pending:
            players = match["players"]
            scores = [float(rng.randrange(50)) for _ in range(players)]
            ranks = [1 + sum(1 for other in scores if other > s) for s in scores]
            results.append((match["id"], {
                "options": {}, "teams": None, "sandbox": {"mode": "bench"}, "started_at": "x", "ended_at": "y",
                "duration_ms": 1.0, "log": realistic_log(rng, players), "seats": [
                    {"seat": i, "status": "ok", "score": scores[i], "rank": ranks[i], "time_ms": 1.0,
                     "decisions": 30, "error": None, "stderr": "thinking\n" * 20} for i in range(players)]}))
        pack_times, packed = [], []
        for match_id, result in results:
            start = time.perf_counter()
            packed.append((match_id, pack_result_logs(result)))
            pack_times.append((time.perf_counter() - start) * 1000)
        size = statistics.mean(len(p["log_blob"]) for _, p in packed)
        describe(f"compress a log (in the worker; ~{size / 1000:.0f} KB zlib)", pack_times, None)
        commit_times = []
        for match_id, result in reversed(packed):  # worst case first: each waits, the last rates them all
            start = time.perf_counter()
            store.record_match(match_id, result)
            commit_times.append((time.perf_counter() - start) * 1000)
        describe("commit a match (reverse order: rating waits)", commit_times[:-1], 1)
        describe("  last commit: rates ~100 buffered matches", commit_times[-1:], None)
        assert not store.query("SELECT id FROM matches WHERE status = 'pending'")
        # In-order commits: the usual case, each commit rates its own match.
        with store.write():
            fresh = store.db.execute("SELECT id FROM matches WHERE tournament_id = ? ORDER BY schedule_index DESC"
                                     " LIMIT ?", [tournament_id, args.commits]).fetchall()
        ids = [row[0] for row in reversed(fresh)]
        with store.write():
            store.db.conn.executemany("UPDATE matches SET status = 'pending', rating_seq = NULL WHERE id = ?",
                                      [(i,) for i in ids])
            store.db.conn.executemany("DELETE FROM match_logs WHERE match_id = ?", [(i,) for i in ids])
            store.db.conn.executemany("DELETE FROM rating_history WHERE match_id = ?", [(i,) for i in ids])
            store.db.execute("UPDATE tournaments SET rated_through = (SELECT MIN(schedule_index) - 1 FROM matches"
                             " WHERE tournament_id = ? AND status = 'pending') WHERE id = ?",
                             [tournament_id, tournament_id])
        store.recount_matches()
        players_of = {row["id"]: row["players"] for row in store.query(
            "SELECT id, players FROM matches WHERE tournament_id = ?", [tournament_id])}
        in_order = []
        blobs = [p for _, p in packed if len(p["seats"]) == players_of[ids[0]]]
        for n, match_id in enumerate(ids):
            start = time.perf_counter()
            store.record_match(match_id, blobs[n % len(blobs)])
            in_order.append((time.perf_counter() - start) * 1000)
        describe("commit a match (schedule order, rated at once)", in_order, 1)
    if not args.keep and not args.db:
        import shutil

        shutil.rmtree(folder)  # the database, its WAL, its key file (-secrets) and its bot store
    elif args.keep:
        print(f"kept {path}")


if __name__ == "__main__":
    main()
