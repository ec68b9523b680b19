"""A course's contest at scale: 200 bots submitted at once, then the first matches of their
round-robin.

Usage: python bench/contest.py [--bots 200] [--game five-towers] [--jobs N]

Writes ``--bots`` students' bots into a folder (copies of the starter kit, each slightly
different, so each is its own bot), times `arena submit FOLDER --game G` (copy, hash,
validation match each, in parallel) and prints the rate.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--game", default="five-towers")
    parser.add_argument("--jobs", type=int)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="arena-contest-"))
    os.chmod(work, 0o755)
    folder = work / "submissions"
    folder.mkdir()
    for number in range(args.bots):
        student = folder / f"student{number:03d}"
        shutil.copytree(REPO / "bots" / "starter" / "python", student)
        with open(student / "bot.py", "a") as handle:
            handle.write(f"# student {number}\n")
    command = [sys.executable, "-m", "arena", "--db", str(work / "contest.db"), "submit", str(folder),
               "--game", args.game] + (["--jobs", str(args.jobs)] if args.jobs else [])
    began = time.monotonic()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    seconds = time.monotonic() - began
    accepted = sum(line.startswith("accepted: ") for line in done.stdout.splitlines())
    print(f"arena submit of {args.bots} bots ({args.game}): {accepted} accepted in {seconds:.1f} s"
          f" ({args.bots / seconds:.1f} bots/s); exit code {done.returncode}")
    print(f"  {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
