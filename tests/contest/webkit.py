"""Helpers for the contest server's tests: a contest whose bots wrote secrets (stderr, debug
text, source comments), a runner run until their matches are stored, and clients signed in
through the real sign-in form."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from starlette.testclient import TestClient

from arena.contest import records
from arena.results.store import Store
from arena.web.contest.app import create_contest_app
from arena.web.contest.guard import AttemptLimiter
from botmaker import READY, TEMPLATE
from contestkit import inbox, make_contest, run_until, submissions, upload
from waiting import PATIENCE

TESTS = Path(__file__).resolve().parents[1]

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def secret_bot(name: str) -> bytes:
    """A good bot that writes NAME-STDERR to stderr, NAME-DEBUG as debug text, and carries
    NAME-SOURCE in a comment."""
    on_request = (f'sys.stderr.write("{name.upper()}-STDERR\\n"); sys.stderr.flush()\n'
                  f'        reply({{"type": "action", "index": 0, "debug": "{name.upper()}-DEBUG"}})')
    return (f"# {name.upper()}-SOURCE\n" + TEMPLATE.format(on_start=" " * 8 + READY,
                                                          on_request=" " * 8 + on_request)).encode()


def refused_bot(name: str) -> bytes:
    return TEMPLATE.format(on_start=" " * 8 + READY,
                           on_request=" " * 8 + f'sys.exit("{name.upper()}-REFUSED")').encode()


@dataclass
class Site:
    db: Path
    contest: dict
    tokens: dict
    organiser: str
    test_match: int
    ladder_match: int

    def app(self, limiter: AttemptLimiter | None = None, **options):
        return create_contest_app(str(self.db), "course", limiter=limiter, **options)

    def inbox_rows(self) -> list[dict]:
        with inbox(self.db) as box:
            return box.rows_after(0)


def played_site(tmp: Path, **settings) -> Site:
    """ada and bob accepted (secret bots), bob also refused once, a test match ada v bob played."""
    db, contest, tokens = make_contest(tmp, **settings)
    with Store(db) as store:
        organiser = records.reissue_organiser_token(store, contest["id"])
    upload(db, "ada", secret_bot("ada"))
    upload(db, "bob", secret_bot("bob"))
    upload(db, "bob", refused_bot("bob"), filename="broken.py")
    run_until(db, lambda s: len(submissions(s)) == 3)
    with inbox(db) as box:
        box.add_test_request("ada", ["bob"], 1, 100)

    def tested(store):
        row = store.one("SELECT t.match_id FROM contest_test_matches t JOIN matches m ON m.id = t.match_id"
                        " WHERE m.status = 'finished'")
        return row is not None

    run_until(db, lambda store: tested(store) and store.one(
        "SELECT COUNT(*) AS n FROM matches WHERE tournament_id = ? AND status = 'finished'", [contest["ladder_id"]])["n"])
    with Store(db, readonly=True) as store:
        match_id = store.one("SELECT match_id FROM contest_test_matches")["match_id"]
        ladder = store.one("SELECT id FROM matches WHERE tournament_id = ? AND status = 'finished' ORDER BY id LIMIT 1",
                           [contest["ladder_id"]])["id"]
    return Site(db, contest, tokens, organiser, match_id, ladder)


def csrf_of(client: TestClient, path: str = "/") -> str:
    return CSRF.search(client.get(path).text).group(1)


def sign_in(client: TestClient, token: str):
    """Sign in as a person would: open the link, press the button."""
    page = client.get(f"/signin/{token}")
    return client.post("/signin", data={"token": token, "csrf": CSRF.search(page.text).group(1)},
                       follow_redirects=False)


class Server:
    """`arena serve --contest course` as a process on a free loopback port; its output goes
    to a file (nobody has to read a pipe for it to go on)."""

    def __init__(self, db: Path, folder: Path, *extra: str):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / "server.log"
        self._log = open(self.log_path, "w")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
        self.process = subprocess.Popen([sys.executable, "-m", "arena", "--db", str(db), "serve", "--contest", "course",
                                         "--port", str(self.port), *extra], env=env, stdout=self._log,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + PATIENCE
        while True:
            try:
                urllib.request.urlopen(self.url + "/", timeout=5).read()
                return
            except OSError:
                assert self.process.poll() is None, self.log()
                assert time.monotonic() < deadline, "the contest server did not start"
                time.sleep(0.1)

    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self._log.close()
        return code
