"""`kill -9` loses no accepted submission: of the runner in the middle of its queue, and of
the process that writes the inbox (an upload acknowledged is on disk with its row)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys

from arena.contest.inbox import Inbox, folder_for
from arena.results.store import Store
from contestkit import GOOD_BOT, make_contest, run_until, submissions, upload
from waiting import wait_until

UPLOADS = 8  # the runner is killed after 2: six more leave a loaded machine room


def recorded(db) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return connection.execute("SELECT COUNT(*) FROM contest_submissions").fetchone()[0]


def test_a_runner_killed_mid_queue_takes_every_upload_exactly_once_when_started_again(tmp_path):
    names = tuple(f"s{i}" for i in range(UPLOADS))
    db, contest, _ = make_contest(tmp_path, names=names)
    for number, name in enumerate(names):
        upload(db, name, GOOD_BOT + f"# {number}\n".encode())
    runner = subprocess.Popen([sys.executable, "-m", "arena", "--db", str(db), "contest", "run", "course",
                               "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: recorded(db) >= 2, runner, "two uploads recorded")
    finally:
        os.kill(runner.pid, signal.SIGKILL)
        runner.communicate()
    assert recorded(db) < UPLOADS, "the runner finished its queue before it was killed: the test proves nothing"
    run_until(db, lambda s: len(submissions(s)) == UPLOADS)
    with Store(db, readonly=True) as store:
        rows = submissions(store)
    assert sorted(r["inbox_id"] for r in rows) == list(range(1, UPLOADS + 1))
    assert {r["status"] for r in rows} == {"accepted"}


UPLOADER = """
import sys
from arena.contest.inbox import Inbox
with Inbox(sys.argv[1]) as box:
    for number in range(10_000):
        received = box.add_upload("ada", "bot.py", b"print(%d)\\n" % number, 1 << 20, 1_000_000)
        print(received.id, flush=True)
"""


def test_an_inbox_writer_killed_loses_no_acknowledged_upload(tmp_path):
    folder = folder_for(tmp_path / "arena.db", "course")
    writer = subprocess.Popen([sys.executable, "-c", UPLOADER, str(folder)], stdout=subprocess.PIPE, text=True)
    acknowledged = [int(writer.stdout.readline()) for _ in range(20)]
    os.kill(writer.pid, signal.SIGKILL)
    writer.communicate()
    with Inbox(folder) as box:
        rows = {row["id"]: row for row in box.rows_after(0, limit=100_000)}
        for row_id in acknowledged:
            assert box.file_of(rows[row_id]).read_bytes() == b"print(%d)\n" % (row_id - 1)
