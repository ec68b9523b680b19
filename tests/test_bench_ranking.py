"""bench/ranking.py on its synthetic field: the formats and the oracle bound it reports (the
figures in docs/tournaments.md come from it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def bench(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, str(REPO / "bench" / "ranking.py"), "--bots", "20", "--seeds", "2",
                           "--duplicate", "no", *args], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def row(lines: list[str], label: str) -> list[str]:
    [line] = [line for line in lines if line.startswith(label + " ")]
    return line.split()


def test_the_oracle_knows_the_true_top_k_and_keeps_to_its_budget():
    lines = bench("--formats", "oracle", "--oracle", "5", "--budget", "0.5")
    fields = row(lines, "oracle top 5 known")
    matches, top10 = int(fields[4]), float(fields[7])
    assert matches == 180                  # 9 whole rounds of 20 fit in half of 380
    assert top10 == 5.0                    # its five are the true top five, placed first


def test_a_swiss_with_finals_says_how_many_of_the_true_top_10_reached_its_last_final():
    lines = bench("--formats", "swiss+finals", "--finals", "3:8x1,4x2")
    line = " ".join(row(lines, "swiss+finals 3r 8x1,4x2"))
    reached = [int(x) for x in line.split("true top 10 in the last final:")[1].split()]
    assert len(reached) == 2 and all(0 <= r <= 4 for r in reached)
