"""Tournament throughput against the protocol floor, with fresh and with reusable bot processes.

Usage: python bench/tournament.py [--matches N] [--games five-towers,agent-avenue,fifth-avenue]
                                  [--big-bots 200] [--big-matches 1500]

For each game (Five Towers 4 players, Agent Avenue 2, Fifth Avenue 3), with random bots (one
copy per seat, each its own version), in one run side by side:

* the protocol floor — the same matches played in this process against bots that are
  already running (engine + JSON + pipe round trip; no process start, no store, no workers);
* a tournament with a fresh bot process per match (``restart = "always"``), 1 and 2 workers;
* a tournament with reusable bots (protocol v2), 1 and 2 workers.

Reports matches per second, each tournament as a share of the floor, 2 workers against 1,
fresh processes against the rate measured before this work (3.2 matches/s, Five Towers 4p on
one worker), the harness-side time per decision (a decision's time in the floor less the
bot's wait and the engine's work) and per match (the rest of the floor's time: start and end
messages, the log, the result), and the time a 200-bot two-player round-robin
(39,800 matches) would take, from the rate measured on the first ``--big-matches`` matches of
such a tournament.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from bench.benchkit import random_bots  # noqa: E402

from arena.results import keys  # noqa: E402
from arena.results.store import Store  # noqa: E402
from arena.runner.livebots import LiveBots  # noqa: E402
from arena.runner.match import MatchSpec, play_match  # noqa: E402
from arena.runner.sandbox import detect  # noqa: E402
from arena.tournament import TournamentConfig, create, run  # noqa: E402

GAMES = {"five-towers": 4, "agent-avenue": 2, "fifth-avenue": 3}
GAMES_PLAYERS = GAMES
BEFORE = 3.2  # matches/s: Five Towers, four 4-player bots, fresh processes, 1 worker (issue 11)


class EngineClock:
    """Times the game engine's calls inside the match loop (observation, legal list, apply and
    the rest of its state's methods), so the floor's harness-side time is what is left. The
    engine is timed where it runs: replayed alone it is faster than beside running bots."""

    METHODS = ("observation", "legal_actions", "apply", "is_over", "current_seat", "scores", "ranks", "teams")

    def __init__(self, engine):
        self.cls = type(engine.create_state(GAMES_PLAYERS[engine.name], 1, engine.validate(GAMES_PLAYERS[engine.name], {})))
        self.seconds = 0.0
        self.saved = {}

    def __enter__(self):
        depth = [0]  # engine methods call each other: time only the outermost call

        for name in self.METHODS:
            original = getattr(self.cls, name, None)
            if original is None:
                continue
            self.saved[name] = self.cls.__dict__.get(name)

            def timed(*args, _original=original, **kwargs):
                if depth[0]:
                    return _original(*args, **kwargs)
                depth[0] += 1
                began = time.perf_counter()
                try:
                    return _original(*args, **kwargs)
                finally:
                    self.seconds += time.perf_counter() - began
                    depth[0] -= 1
            setattr(self.cls, name, timed)
        return self

    def __exit__(self, *exc):
        for name, original in self.saved.items():
            if original is None:
                delattr(self.cls, name)
            else:
                setattr(self.cls, name, original)


class DecideClock:
    """Times each decision of the match loop (`arena.runner.match._decide`): the harness's
    share of a decision is its time less the bot's wait and the engine inside it. What is left
    of the floor's wall time after that is the harness's work per match (start and end
    messages, the log, the result)."""

    def __init__(self, engine_clock: EngineClock):
        self.engine_clock = engine_clock
        self.harness = 0.0
        self.original = None

    def __enter__(self):
        import arena.runner.match as match_module

        self.module, self.original = match_module, match_module._decide

        def timed(seat, *args, **kwargs):
            process = seat.process
            waited = process.wait_seconds if process is not None else 0.0
            engine = self.engine_clock.seconds
            began = time.perf_counter()
            try:
                return self.original(seat, *args, **kwargs)
            finally:
                spent = time.perf_counter() - began
                waited = (process.wait_seconds - waited) if process is not None else 0.0
                self.harness += spent - waited - (self.engine_clock.seconds - engine)
        match_module._decide = timed
        return self

    def __exit__(self, *exc):
        self.module._decide = self.original


def floor(game: str, bots: list[str], matches: int, seed: int) -> tuple[float, float, float, int]:
    """Matches/s against running bots; harness-side seconds per decision and per match (the
    rest); decisions."""
    from arena.games import get_game

    players = GAMES[game]
    live = LiveBots(detect(), keep=players)
    secret = keys.secret_for("bench", seed)
    specs = [MatchSpec(game, bots[:players], keys.deal_seed(secret, i), bot_seeds=keys.bot_seeds(secret, i, players))
             for i in range(matches + 1)]
    play_match(specs[0], bots=live)  # start the processes: the floor has them running already
    engine = get_game(game)
    began = time.perf_counter()
    waited = 0.0
    decisions = 0
    engine_clock = EngineClock(engine)
    with engine_clock, DecideClock(engine_clock) as decide_clock:
        for spec in specs[1:]:
            before = sum(p.wait_seconds for p in live.idle_processes())
            result = play_match(spec, bots=live)
            waited += sum(p.wait_seconds for p in live.idle_processes()) - before
            decisions += sum(seat.decisions for seat in result.seats)
    wall = time.perf_counter() - began
    live.close()
    per_decision = decide_clock.harness / max(decisions, 1)
    per_match = max(0.0, wall - waited - engine_clock.seconds - decide_clock.harness) / matches
    return matches / wall, per_decision, per_match, decisions


def tournament(game: str, bots: list[str], rounds: int, workers: int, restart: str, seed: int,
               folder: Path) -> tuple[float, int]:
    players = GAMES[game]
    db = folder / f"{game}-{restart}-{workers}.db"
    with Store(db) as store:
        tournament_id = create(store, TournamentConfig(game=game, bots=bots, players=players, rounds=rounds,
                                                       seed=seed, restart=restart))
        total = store.pending_count(tournament_id)
        began = time.perf_counter()
        summary = run(store, tournament_id, workers=workers)
        seconds = time.perf_counter() - began
        assert summary.played == total and summary.failures == 0, summary
    return total / seconds, total


def big_round_robin(bots: list[str], matches: int, workers: int, folder: Path) -> float:
    """Matches/s over the first ``matches`` matches of a 200-bot two-player round-robin."""
    db = folder / "big.db"
    with Store(db) as store:
        tournament_id = create(store, TournamentConfig(game="agent-avenue", bots=bots, players=2, seed=4))
        store.execute("UPDATE matches SET status = 'error', error = 'not in the benchmark' WHERE tournament_id = ?"
                      " AND status = 'pending' AND id NOT IN (SELECT id FROM matches WHERE tournament_id = ?"
                      " ORDER BY schedule_index LIMIT ?)", [tournament_id, tournament_id, matches])
        store.recount_matches()
        began = time.perf_counter()
        summary = run(store, tournament_id, workers=workers)
        seconds = time.perf_counter() - began
        assert summary.played == matches, summary
    return matches / seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=120, help="matches per measurement")
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--big-bots", type=int, default=200)
    parser.add_argument("--big-matches", type=int, default=1500)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-tournament-"))
    os.chmod(folder, 0o755)
    print(f"sandbox {detect().mode}, {detect().resources}; {os.cpu_count()} cores; {args.matches} matches per figure")
    print(f"{'game':<13} {'floor':>7} {'fresh 1w':>9} {'fresh 2w':>9} {'reuse 1w':>9} {'reuse 2w':>9}"
          f"  {'reuse/floor':>11} {'2w/1w':>6} {'fresh vs before':>15} {'harness/decision':>17} {'harness/match':>14}")
    verdicts = []
    for game in args.games.split(","):
        players = GAMES[game]
        bots = random_bots(folder / game, players)
        per_round = math.comb(players, players) * players
        rounds = max(1, args.matches // per_round)
        base, harness, per_match, _ = floor(game, bots, rounds * per_round, seed=1)
        fresh1, _ = tournament(game, bots, rounds, 1, "always", 2, folder)
        fresh2, _ = tournament(game, bots, rounds, 2, "always", 3, folder)
        reuse1, _ = tournament(game, bots, rounds, 1, "auto", 4, folder)
        reuse2, _ = tournament(game, bots, rounds, 2, "auto", 5, folder)
        against_before = f"{fresh1 / BEFORE:.1f}x" if game == "five-towers" else "-"
        print(f"{game:<13} {base:7.1f} {fresh1:9.1f} {fresh2:9.1f} {reuse1:9.1f} {reuse2:9.1f}"
              f"  {reuse1 / base:10.0%} {reuse2 / reuse1:6.2f} {against_before:>15} {harness * 1e6:14.0f} µs {per_match * 1e3:11.2f} ms")
        verdicts.append((game, reuse1 / base >= 0.5, reuse2 / reuse1 >= 1.8,
                         fresh1 / BEFORE >= 3 if game == "five-towers" else None, harness <= 100e-6))
    print("(matches per second; 'harness/decision': a decision's time less the bot's and the engine's;"
          " 'harness/match': the rest of the floor's time, per match: start, end, log, result)")
    for game, half, scaling, fresh, overhead in verdicts:
        parts = [f"reuse 1 worker >= 50% of floor: {'ok' if half else 'MISSED'}",
                 f"2 workers >= 1.8x: {'ok' if scaling else 'MISSED'}",
                 f"harness <= 100 µs/decision: {'ok' if overhead else 'MISSED'}"]
        if fresh is not None:
            parts.append(f"fresh >= 3x before: {'ok' if fresh else 'MISSED'}")
        print(f"  {game}: " + "; ".join(parts))
    if args.big_bots:
        bots = random_bots(folder / "big", args.big_bots)
        rate = big_round_robin(bots, args.big_matches, 2, folder)
        total = args.big_bots * (args.big_bots - 1)
        print(f"{args.big_bots}-bot two-player round-robin (Agent Avenue, {total} matches): {rate:.1f} matches/s on"
              f" 2 workers over its first {args.big_matches} matches -> {total / rate / 3600:.2f} hours")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
