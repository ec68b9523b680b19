"""`arena check`: does a bot follow the protocol? Short real matches, one finding per line.

For each game the bot plays (its ``bot.toml`` ``games``, the one asked for, or every game) it
plays a short match against the random bot in the real sandbox, with unknown fields added to
every message, and reports: start-up (and how long ``ready`` took); its answers (legal, by
index or by value); that unknown fields are ignored; that stdout holds protocol lines only;
reuse across matches (a second match in the same process, which a deterministic bot must
play exactly as a fresh process does); that it exits on ``quit``; and its time per decision.
Each problem says how to fix it.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from arena.games import game_names, get_game
from arena.runner import cgroups, protocol
from arena.runner import clock as clocks
from arena.runner.livebots import LiveBots
from arena.runner.match import Limits, MatchResult, MatchSpec, play_match
from arena.runner.sandbox import detect

RANDOM_BOT = Path(__file__).resolve().parents[2] / "bots" / "random.py"
EXTRA = {"x_arena_check": {"note": "a field this bot does not know: it must be ignored", "list": [1, 2, 3]}}
QUIT_WITHIN_S = 1.0


@dataclass
class Finding:
    game: str
    ok: bool
    what: str
    fix: str = ""

    def line(self) -> str:
        text = f"{'ok  ' if self.ok else 'FAIL'}  {self.game}: {self.what}"
        return text + (f" — fix: {self.fix}" if self.fix and not self.ok else "")


FIXES = {
    "timeout": "answer every message within its time (start: start_ms; requests: decision_ms plus the bank)",
    "crash": "see the bot's stderr (arena match ... --json); a crash at start-up is often a command that cannot run",
    "illegal": "send only actions from the request's legal list (or answer with its index)",
    "protocol": "write one JSON object per line: {\"type\": \"action\", \"index\": N} or {\"action\": ...}",
    "limit": "write only protocol lines to stdout (log to stderr) and stay under the memory limit",
}


def games_for(path: str, game: str | None) -> list[str]:
    from arena.runner.bots import resolve_bot

    if game:
        get_game(game)
        return [game]
    claimed = resolve_bot(path).games
    return [g for g in (claimed or game_names()) if g in game_names()] or list(claimed or [])


def check(path: str, game: str | None = None, seed: int = 1) -> list[Finding]:
    findings: list[Finding] = []
    for name in games_for(path, game):
        findings += _check_game(path, name, seed)
    return findings


def _spec(path: str, game: str, seed: int) -> MatchSpec:
    players = min(get_game(game).player_counts)
    return MatchSpec(game, [str(path)] + [str(RANDOM_BOT)] * (players - 1), seed=seed, extra_fields=EXTRA,
                     limits=Limits())


def _check_game(path: str, game: str, seed: int) -> list[Finding]:
    found: list[Finding] = []
    bots = LiveBots(detect(), keep=8, repeat_deals=True)  # the reuse finding replays the match
    try:
        first = play_match(_spec(path, game, seed), bots=bots)
        seat = first.seats[0]
        ready = next((e for e in first.log if e["event"] == "ready" and e["seat"] == 0), None)
        failure = next((e for e in first.log if e["event"] == "failure" and e["seat"] == 0), None)
        if ready is None or (failure and failure["step"] is None):
            found.append(Finding(game, False, f"start-up: {seat.status}: {seat.error}",
                                 FIXES.get(seat.status, "") + "; answer start with {\"type\": \"ready\"}"))
            return found
        found.append(Finding(game, True, f"start and ready: answered in {ready['ms']:.0f} ms"))
        if seat.status != "ok":
            found.append(Finding(game, False, f"the match: {seat.status}: {seat.error}", FIXES.get(seat.status, "")))
            return found
        found += _answers(game, first)
        found.append(Finding(game, True, "unknown fields in every message were ignored"))
        found.append(Finding(game, True, "stdout held protocol lines only"))
        reusable = bool(protocol.decode_line(ready["line"].encode(), "ready").get("matches") == "many") \
            if ready["line"].startswith("{") else False
        found.append(_reuse(path, game, seed, bots, first, reusable))
        found.append(_time(game, first))
    finally:
        bots.close()
    found.append(_quit(path, game, seed))
    return found


def _answers(game: str, result: MatchResult) -> list[Finding]:
    by_index = by_value = 0
    for event in result.log:
        if event["event"] == "reply" and event["seat"] == 0:
            try:
                reply = protocol.decode_line(event["line"].encode(), "reply")
            except protocol.ReplyError:
                continue
            if isinstance(reply, dict) and "index" in reply:
                by_index += 1
            else:
                by_value += 1
    forms = ", ".join(f"{count} {form}" for form, count in (("by index", by_index), ("by value", by_value)) if count)
    return [Finding(game, True, f"{result.seats[0].decisions} decisions, all legal ({forms or 'none'})")]


def _actions(result: MatchResult) -> list:
    return [e["action"] for e in result.log if e["event"] == "action" and e["seat"] == 0]


def _reuse(path: str, game: str, seed: int, bots: LiveBots, first: MatchResult, reusable: bool) -> Finding:
    if not reusable:
        return Finding(game, True, "reuse: one match per process (say \"matches\": \"many\" in ready to play many;"
                                   " it starts faster)")
    second = play_match(_spec(path, game, seed), bots=bots)
    seat = second.seats[0]
    if seat.status != "ok":
        return Finding(game, False, f"reuse: its second match in one process ended {seat.status}: {seat.error}",
                       "on every start, reset everything of the match before: seat, game, state, random generator")
    fresh_bots = LiveBots(detect(), keep=0)
    try:
        fresh = play_match(_spec(path, game, seed), bots=fresh_bots)
    finally:
        fresh_bots.close()
    if _actions(second) == _actions(fresh) == _actions(first):
        return Finding(game, True, "reuse: plays many matches per process, the second exactly as a fresh process")
    if _actions(fresh) == _actions(first):
        return Finding(game, False, "reuse: its second match in one process differs from the same match in a fresh"
                                    " process", "reset all state on start and seed your random generator from it")
    return Finding(game, True, "reuse: plays many matches per process (it does not play the same match the same"
                               " way twice, so reuse cannot be compared: fine if that is on purpose)")


def _time(game: str, result: MatchResult) -> Finding:
    """Time per decision on the clock the match ran (CPU time, or wall time)."""
    cpu = result.sandbox.get("clock") == "cpu"
    times = [e.get("cpu_ms", e["ms"]) if cpu else e["ms"]
             for e in result.log if e["event"] == "reply" and e["seat"] == 0]
    if not times:
        return Finding(game, True, "time per decision: no decisions")
    limit = result.sandbox.get("decision_ms", 1000)
    worst = max(times)
    ok = worst <= limit
    kind = "CPU time" if cpu else "wall time"
    return Finding(game, ok, f"time per decision ({kind}): median {statistics.median(times):.1f} ms, max {worst:.1f} ms"
                             f" (allowed {limit} ms plus the bank)", "think less per move, or use the time left in"
                                                                     " the request's 'time'")


def _quit(path: str, game: str, seed: int) -> Finding:
    """A fresh process is sent start, end and quit: it must exit by itself."""
    spec = _spec(path, game, seed)
    limits = spec.limits
    bots = LiveBots(detect(), keep=0)
    try:
        seated = bots.checkout(str(path), limits.for_kernel(), limits.max_line_bytes, limits.max_output_bytes)
        process = seated.process
        process.start()
        deadline = time.monotonic() + limits.start_ms / 1000
        process.send_line(protocol.encode({"type": "start", "protocol": protocol.PROTOCOL_VERSION, "game": game,
                                           "options": get_game(game).validate(len(spec.bots), {}), "seat": 0,
                                           "players": len(spec.bots), "seed": seed, "limits": limits.for_protocol(clocks.choose(limits.clock, cgroups.cpu_readable())),
                                           **EXTRA}), deadline)
        process.receive(deadline)
        began = time.monotonic()
        process.send_line(protocol.encode({"type": "end", "seat": 0, "scores": [0] * len(spec.bots),
                                           "ranks": [1] * len(spec.bots), "statuses": ["ok"] * len(spec.bots),
                                           "teams": None, **EXTRA}), began + QUIT_WITHIN_S)
        process.send_line(b'{"type":"quit"}\n', began + QUIT_WITHIN_S)
        exited = process.wait_for_exit(began + QUIT_WITHIN_S)
        took = time.monotonic() - began
        extra_lines = len(process.lines)
        process.stop()
    except Exception as error:  # the bot misbehaved at start: reported by the match above
        return Finding(game, False, f"end and quit: {error}", "exit when you read quit (or end of input)")
    finally:
        bots.close()
    if not exited:
        return Finding(game, False, f"end and quit: still running {QUIT_WITHIN_S:.0f} s after quit (it was killed)",
                       "exit when you read {\"type\": \"quit\"} or reach the end of stdin")
    if extra_lines:
        return Finding(game, False, "end and quit: it wrote to stdout after end", "write nothing after end")
    return Finding(game, True, f"end and quit: exited {took * 1000:.0f} ms after quit")
