"""Harness round trip per decision with a minimal bot, through the real sandbox.

Usage: python bench/protocol.py [--decisions N]

For every decision the harness builds a real Five Towers request (observation + legal
actions), and does what a match does (`arena.runner.decision.ask`) when seats alternate:
freezes the bot that answered last (here the same process, as if it were the other seat's),
reads the bot's CPU time (settling its last decision), encodes the request with its clock,
writes it and thaws the bot, waits, reads the reply line and parses it. Reported per
decision (median / 90th percentile):

* round trip   — request built to reply parsed, wall clock;
* harness-side — the round trip minus the time blocked in select() waiting for the bot,
                 i.e. what the harness itself spends (freeze, CPU time, encode, write,
                 thaw, read, split, decode), in wall time (a bot woken on the harness's
                 core may run inside one of its system calls and count here);
* harness CPU   — the harness thread's own CPU time in the round trip (system calls
                 included): the same work, without what others run meanwhile.
Target: median harness-side overhead under 100 µs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.games import get_game  # noqa: E402
from arena.runner import cgroups  # noqa: E402
from arena.runner import clock as clocks  # noqa: E402
from arena.runner.livebots import LiveBots  # noqa: E402
from arena.runner.decision import await_line  # noqa: E402
from arena.runner.match import Limits  # noqa: E402
from arena.runner.protocol import encode, parse_ready, parse_reply  # noqa: E402
from arena.runner.sandbox import detect  # noqa: E402

MINIMAL_BOT = """import sys
for line in sys.stdin:
    if line.startswith('{"type":"start"'):
        sys.stdout.write('{"type":"ready"}\\n')
    elif line.startswith('{"type":"request"'):
        sys.stdout.write('{"index":0}\\n')
    else:
        break
    sys.stdout.flush()
"""


def percentile(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=20000)
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    os.chmod(directory, 0o755)
    bot_path = directory / "minimal.py"
    bot_path.write_text(MINIMAL_BOT)
    os.chmod(bot_path, 0o644)
    limits = Limits()
    bots = LiveBots(detect(), keep=0)
    process = bots.checkout(str(bot_path), limits.for_kernel(), limits.max_line_bytes,
                            limits.max_output_bytes).process
    process.start()
    process.send_line(encode({"type": "start", "protocol": 2}), time.monotonic() + 5)
    parse_ready(process.receive(time.monotonic() + 5))
    clock = clocks.SeatClock(clocks.choose(None, cgroups.cpu_readable()), limits.start_ms, limits.decision_ms,
                             limits.bank_ms, limits.cpus, limits.cpu_seconds)

    game = get_game("five-towers")
    state = game.new_game(4, 1)
    round_trips, overheads, engine, sizes, cpu_times = [], [], [], [], []
    import random
    rng = random.Random(1)
    for step in range(args.decisions):
        if state.is_over():
            state = game.new_game(4, step)
        began = time.perf_counter()
        seat = state.current_seat()
        legal = state.legal_actions()
        observation = state.observation(seat)
        built = time.perf_counter()
        cpu_built = time.thread_time()
        waited_before = process.wait_seconds
        process.freeze()
        cpu = process.cpu_ns()
        clock.settle(cpu)
        request = {"type": "request", "seat": seat, "step": step, "observation": observation, "legal": legal,
                   "time": clock.for_request()}
        line = encode(request)
        process.has_unrequested_output()
        asked = time.monotonic()
        turn = clock.decision(cpu, asked)
        process.send_line(line, turn.wall_deadline, thaw=True)
        reply = await_line(process, turn, "no reply in time")
        replied = time.monotonic()
        clock.finished(turn, replied - asked, {})
        process.launch.out_of_memory()  # as a match asks after every reply
        action, _ = parse_reply(reply, legal)
        done = time.perf_counter()
        cpu_times.append(time.thread_time() - cpu_built)
        engine.append(built - began)
        round_trips.append(done - built)
        overheads.append((done - built) - (process.wait_seconds - waited_before))
        sizes.append(len(json.dumps(request)))  # outside the timed window
        state.apply(rng.choice(legal))  # keep the game moving through every phase
    process.thaw()
    process.send_line(encode({"type": "quit"}), time.monotonic() + 1)
    process.stop()
    bots.close()
    shutil.rmtree(directory, ignore_errors=True)

    def show(name, values):
        print(f"{name:<28} median {statistics.median(values) * 1e6:8.1f} µs   p90 {percentile(values, 0.9) * 1e6:8.1f} µs")

    print(f"sandbox {detect().mode}, clock {clock.clock}, freezer {_freezer()}, {args.decisions} decisions,"
          f" 4-player Five Towers requests, "
          f"mean request {statistics.mean(sizes):.0f} bytes")
    show("round trip", round_trips)
    show("harness-side overhead", overheads)
    show("harness CPU time", cpu_times)
    show("engine (observation+legal)", engine)
    verdict = "ok" if statistics.median(overheads) < 100e-6 else "MISSED"
    print(f"target: median harness-side overhead < 100 µs: {verdict}")


def _freezer() -> str:
    hierarchy = cgroups.available()
    return (hierarchy.freezer() if hierarchy else None) or "signals"


if __name__ == "__main__":
    main()
