"""Start-up cost of one bot process in the sandbox: from asking for a process to its ``ready``.

Usage: python bench/startup.py [--starts N]

Each start makes a new sandboxed process of a minimal Python bot (cgroup, user, bubblewrap,
the seccomp filter, the interpreter), sends ``start`` and waits for ``ready``, then stops it.
Reported: median and 90th percentile wall time per start.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.runner.files import remove_tree  # noqa: E402
from arena.runner.livebots import LiveBots  # noqa: E402
from arena.runner.match import Limits  # noqa: E402
from arena.runner.protocol import encode, parse_ready  # noqa: E402
from arena.runner.sandbox import detect  # noqa: E402

MINIMAL_BOT = """import sys
for line in sys.stdin:
    if line.startswith('{"type":"start"'):
        sys.stdout.write('{"type":"ready"}\\n')
        sys.stdout.flush()
    else:
        break
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=50)
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    os.chmod(directory, 0o755)
    bot_path = directory / "minimal.py"
    bot_path.write_text(MINIMAL_BOT)
    os.chmod(bot_path, 0o644)
    limits = Limits()
    bots = LiveBots(detect(), keep=0)
    times = []
    try:
        for _ in range(args.starts + 1):
            began = time.perf_counter()
            process = bots.checkout(str(bot_path), limits.for_kernel(), limits.max_line_bytes,
                                    limits.max_output_bytes).process
            process.start()
            process.send_line(encode({"type": "start", "protocol": 2}), time.monotonic() + 10)
            parse_ready(process.receive(time.monotonic() + 10))
            times.append(time.perf_counter() - began)
            process.stop()
    finally:
        bots.close()
        remove_tree(directory)
    times = sorted(times[1:])  # the first start also stages the bot and builds the filter
    print(f"{args.starts} starts of a minimal Python bot in the sandbox ({detect().resources}):"
          f" median {statistics.median(times) * 1000:.1f} ms,"
          f" 90th percentile {times[int(0.9 * len(times))] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
