"""`arena serve --contest`: one command, two processes. The web listens on 127.0.0.1; the runner
is a process of its own, started again when it is killed; stopping the server stops it."""

from __future__ import annotations

import os
import re
import signal
import time

from arena.results.store import Store
from contestkit import GOOD_BOT, make_contest, submissions, upload
from waiting import PATIENCE
from webkit import Server

RUNNER = re.compile(r"contest runner started \(pid (\d+)\)")


def wait_for(condition, what: str, server: Server) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert server.process.poll() is None, server.log()
        assert time.monotonic() < deadline, f"never: {what}\n{server.log()}"
        time.sleep(0.1)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_killed_runner_is_started_again_and_takes_what_came_meanwhile(tmp_path):
    db, _, _ = make_contest(tmp_path)
    server = Server(db, tmp_path)
    try:
        assert f"on http://127.0.0.1:{server.port}/" in server.log()
        wait_for(lambda: RUNNER.search(server.log()), "the runner's first start", server)
        first = int(RUNNER.search(server.log()).group(1))
        os.kill(first, signal.SIGKILL)
        upload(db, "ada", GOOD_BOT)  # while no runner runs: it waits in the inbox
        wait_for(lambda: len(RUNNER.findall(server.log())) == 2, "the runner's restart", server)
        second = int(RUNNER.findall(server.log())[1])
        with Store(db, readonly=True, live=True) as store:
            wait_for(lambda: submissions(store), "the upload taken", server)
            assert [(r["name"], r["status"]) for r in submissions(store)] == [("ada", "accepted")]
    finally:
        assert server.stop() == 0
    assert second != first
    deadline = time.monotonic() + PATIENCE
    while alive(second):
        assert time.monotonic() < deadline, "the runner outlived the server"
        time.sleep(0.1)
