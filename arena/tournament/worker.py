"""What runs in a worker process: receive a match spec, play it, send back the packed result.

A worker keeps its own live bots (`LiveBots`: staged copies and reusable processes) and its
own folder, ``arena-worker-<pid>-s<start>-*`` in the temporary folder (`arena.scratch`). It runs in a session of its own
(so a signal to the terminal's or the caller's process group reaches only the coordinator,
which decides), ignores Ctrl-C, and dies with its coordinator (``PR_SET_PDEATHSIG``); its
bots die with it (bubblewrap's ``--die-with-parent``, and their cgroups are swept).
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal

from arena import scratch

WORKER_PREFIX = scratch.WORKER
_PR_SET_PDEATHSIG = 1


def send(connection, message) -> None:
    """One message over a worker pipe, pickled by the standard library (C): the pipe's own
    `send` uses dill, pure Python, which cost about 2 ms a match at the coordinator."""
    connection.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def receive(connection):
    return pickle.loads(connection.recv_bytes())



def spec_to_match(spec: dict):
    from arena.runner.match import Limits, MatchSpec

    seat_limits = spec.get("seat_limits")
    return MatchSpec(game=spec["game"], bots=spec["bots"], seed=spec["seed"], options=spec["options"],
                     limits=Limits(**spec["limits"]), bot_seeds=spec.get("bot_seeds"), hashes=spec.get("hashes"),
                     restart=spec.get("restart", "auto"),
                     seat_limits=[Limits(**l) if l is not None else None for l in seat_limits] if seat_limits else None)


def play_spec(spec: dict, bots, play=None) -> tuple[dict | None, str | None]:
    """Play one spec: (packed result, None) or (None, the harness error in one line)."""
    from arena.results.store import pack_result_logs
    from arena.runner.match import play_match

    try:
        result = (play or play_match)(spec_to_match(spec), bots=bots)
        return pack_result_logs(result.to_dict()), None
    except Exception as error:  # the harness could not play it; stored as the match's error
        return None, f"{type(error).__name__}: {error}"


def _die_with(parent: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the coordinator died before we could ask
        os._exit(1)


def main(connection, parent: int, keep: int, play=None) -> None:
    """The worker's loop (the target of its process)."""
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.set_wakeup_fd(-1)
    _die_with(parent)
    from arena.runner.files import remove_tree
    from arena.runner.livebots import LiveBots
    from arena.runner.sandbox import detect

    folder = scratch.make(WORKER_PREFIX, mode=0o755)
    bots = None
    try:
        bots = LiveBots(detect(), keep=keep, work_folder=folder)
        while True:
            try:
                message = receive(connection)
            except (EOFError, OSError):
                break
            if message is None:
                break
            job_id, spec = message
            result, error = play_spec(spec, bots, play)
            live = sorted(bots.live_hashes())
            send(connection, (job_id, result, error, live))
    finally:
        if bots is not None:
            bots.close()
        remove_tree(folder)
        os._exit(0)  # no interpreter teardown: nothing inherited from the coordinator is touched
