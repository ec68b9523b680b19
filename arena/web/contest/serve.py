"""`arena serve --contest NAME`: the contest's web app and its runner, from one command.

The runner runs in a process of its own (`runner_main`, started with this interpreter): it is
the only writer of the results database and plays the matches, so the web process never
waits on one. This process watches it: a runner that dies (a crash, a ``kill -9``) is started
again after `RESTART_AFTER_S` — the inbox keeps what arrived meanwhile, and the runner takes
every row it had not recorded. Stopping the server (Ctrl-C, SIGTERM) stops the runner with
SIGTERM, and with SIGKILL if it has not ended within `STOP_WAIT_S`. The runner runs at a
lower priority than the web (`RUNNER_NICENESS`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

RESTART_AFTER_S = 1.0
STOP_WAIT_S = 20.0
# The runner (and the matches it forks) runs this much nicer than the web process: when the
# matches keep every core busy, pages still get the CPU they need at once. Bots are charged
# the CPU time they use (with cgroups), which priority does not change.
RUNNER_NICENESS = 5


class RunnerProcess:
    """The contest runner as a child process, started again whenever it ends on its own."""

    def __init__(self, db_path: str, contest: str, log=None):
        self.command = [sys.executable, "-m", "arena.web.contest.serve", str(db_path), contest]
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.process: subprocess.Popen | None = None
        self._stopping = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="contest-runner-watch", daemon=True)

    def start(self) -> "RunnerProcess":
        self._spawn()
        self._watcher.start()
        return self

    def _spawn(self) -> None:
        self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                        preexec_fn=lambda: os.nice(RUNNER_NICENESS))
        self.log(f"contest runner started (pid {self.process.pid})")

    def _watch(self) -> None:
        while not self._stopping.is_set():
            code = self.process.wait()
            if self._stopping.is_set():
                return
            self.log(f"contest runner ended (exit code {code}); starting it again")
            if self._stopping.wait(RESTART_AFTER_S):
                return
            self._spawn()

    def stop(self) -> None:
        self._stopping.set()
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def serve_contest(db_path: str, contest: str, host: str, port: int, https_cookies: bool, echo) -> None:
    """Run the web app (in this process) and the runner (a child process) until stopped."""
    import uvicorn

    from arena.web.contest.app import create_contest_app

    app = create_contest_app(db_path, contest, https_cookies=https_cookies)
    runner = RunnerProcess(db_path, contest).start()
    scheme = "https (cookies Secure)" if https_cookies else "http"
    echo(f"contest {contest}: serving {db_path} on http://{host}:{port}/ ({scheme}); the runner is pid"
         f" {runner.process.pid}  (Ctrl-C to stop)")
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        runner.stop()


def runner_main(db_path: str, contest: str) -> int:
    """The runner process: the contest runner until SIGTERM or SIGINT."""
    from arena.contest.runner import ContestRunner

    stop = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())
    runner = ContestRunner(db_path, contest, notify=lambda line: print(f"runner: {line}", file=sys.stderr,
                                                                          flush=True))
    runner.run(stop=stop)
    return 0


if __name__ == "__main__":
    sys.exit(runner_main(sys.argv[1], sys.argv[2]))
