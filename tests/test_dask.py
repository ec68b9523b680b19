"""Tournaments on a Dask cluster: the same results as locally, bots by content hash, faults.

One `LocalCluster` (two worker processes, one thread each) serves the whole module; its workers
are spawned with this process's environment, so they see the toy game (``ARENA_GAMES`` and the
tests folder on ``PYTHONPATH``, set by conftest) and a bot cache of the test's own.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
import uuid
import zlib
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from arena.results.store import Store, unpack  # noqa: E402
from arena.runner.files import content_hash  # noqa: E402
from arena.runner.match import strip_timing  # noqa: E402
from arena.tournament import TournamentConfig, create, run  # noqa: E402
from arena.tournament.executors import ExecutorError, bundles  # noqa: E402
from arena.tournament.executors.dask import DaskExecutor  # noqa: E402
from botmaker import random_copies, write_bot  # noqa: E402
from waiting import PATIENCE

REPO = Path(__file__).resolve().parents[1]
RANDOM_BOT = str(REPO / "bots" / "random.py")
LAST_LEGAL = 'reply({"type": "action", "index": len(message["legal"]) - 1})'
SECRET = "dask tests"


@pytest.fixture(scope="module")
def cache_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("bot-cache")


@pytest.fixture(scope="module")
def cluster(cache_folder):
    saved = {key: os.environ.get(key) for key in ("ARENA_BOT_CACHE", "ARENA_SECRET")}
    os.environ["ARENA_BOT_CACHE"] = str(cache_folder)  # the workers' cache (they inherit it)
    os.environ["ARENA_SECRET"] = SECRET                 # the same deals for every run here
    # Spawned workers start with this process's sys.path; a test that put bots/ on it would
    # give them bots/random.py for the standard library's random.
    saved_path = list(sys.path)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO / "bots"]
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=50)
    client = distributed.Client(cluster, set_as_default=False)
    try:
        yield cluster, client
    finally:
        client.close()
        cluster.close()
        sys.path[:] = saved_path
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="module")
def bots(tmp_path_factory):
    source = tmp_path_factory.mktemp("src")
    return [write_bot(source, "first"), write_bot(source, "last", on_request=LAST_LEGAL), RANDOM_BOT]


def fresh_bot(folder: Path, name: str) -> str:
    """A bot with content no worker has seen (so its version is new to the cluster)."""
    return write_bot(folder, name, on_request=f"# {uuid.uuid4()}\n{LAST_LEGAL}")


def two_workers(client) -> list[str]:
    client.wait_for_workers(2, timeout=PATIENCE)
    return sorted(client.nthreads())


def outcome(store: Store, tournament_id: int) -> dict:
    """What must not depend on where matches ran: leaderboard, seats, logs without timings."""
    from arena.results.leaderboard import tournament_leaderboard

    board = [(e["bot"], e["version"], round(e["mu"], 9), round(e["sigma"], 9), e["matches"], e["first_places"])
             for e in tournament_leaderboard(store, tournament_id)["entries"]]
    matches = {}
    for row in store.query("SELECT id, schedule_index, status, error FROM matches WHERE tournament_id = ?"
                           " ORDER BY schedule_index", [tournament_id]):
        match = store.match(row["id"])
        seats = [(s["bot"], s["status"], s["score"], s["rank"], s["decisions"]) for s in match["seats"]]
        log = store.one("SELECT log FROM match_logs WHERE match_id = ?", [row["id"]])
        matches[row["schedule_index"]] = (row["status"], row["error"], seats,
                                          strip_timing(unpack(log["log"])) if log else None)
    return {"leaderboard": board, "matches": matches}


def play_tournament(folder: Path, bots, executor=None, players=2, rounds=2, game="toy", play=None, options=None,
                    seed=5, **kinds):
    folder.mkdir(parents=True, exist_ok=True)
    with Store(folder / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game=game, bots=bots, players=players, rounds=rounds, seed=seed,
                                                       options=options or {}))
        summary = run(store, tournament_id, workers=2, executor=executor, play=play, **kinds)
        return summary, outcome(store, tournament_id), store.tournament(tournament_id)


@pytest.fixture(scope="module")
def local_reference(tmp_path_factory, bots, cluster):
    """The toy tournament played by the local executor (two worker processes)."""
    summary, result, _ = play_tournament(tmp_path_factory.mktemp("local"), bots, players=3, rounds=2)
    assert (summary.played, summary.errors) == (6, 0)
    return result


# ---- the same results -----------------------------------------------------------------------------

def test_a_dask_run_equals_a_local_run_leaderboard_and_logs(tmp_path, bots, cluster, local_reference):
    cluster, client = cluster
    two_workers(client)
    summary, result, info = play_tournament(tmp_path, bots, players=3, rounds=2, executor_kind="dask",
                                            scheduler=cluster.scheduler_address)
    assert (summary.played, summary.errors, summary.interrupted, summary.problem) == (6, 0, False, None)
    assert info["status"] == "finished"
    assert result == local_reference
    from arena.runner.sandbox import detect

    with Store(tmp_path / "arena.db", create=False) as store:
        sandboxes = {row["sandbox"] for row in store.query("SELECT sandbox FROM matches")}
    expected = detect().as_dict()  # the workers run on this machine: their sandbox is ours
    assert all({k: v for k, v in json.loads(s).items() if k in expected} == expected for s in sandboxes)


@pytest.mark.slow
def test_a_real_game_on_dask_equals_the_local_run(tmp_path, cluster):
    cluster, client = cluster
    copies = random_copies(tmp_path / "src", 3, stem="random")
    local = play_tournament(tmp_path / "local", copies, game="agent-avenue", rounds=1)
    remote = play_tournament(tmp_path / "dask", copies, game="agent-avenue", rounds=1, executor_kind="dask",
                             scheduler=cluster.scheduler_address)
    assert local[0].played == remote[0].played == 6
    assert local[1] == remote[1]


# ---- faults -----------------------------------------------------------------------------------------

def _die_once_then_play(spec, marker=None, bots=None):
    """A `play` for workers: the first call kills its own worker process outright (as the
    kernel's OOM killer would), every later call plays normally."""
    from arena.runner.match import play_match

    if marker is not None:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            pass
        else:
            os.kill(os.getpid(), signal.SIGKILL)
    return play_match(spec, bots=bots)


def test_a_worker_killed_mid_run_loses_only_its_match_which_is_played_again(tmp_path, bots, cluster,
                                                                             local_reference):
    cluster, client = cluster
    before = two_workers(client)
    play = functools.partial(_die_once_then_play, marker=str(tmp_path / "died"))
    executor = DaskExecutor(cluster.scheduler_address, play=play)
    try:
        summary, result, info = play_tournament(tmp_path / "db", bots, executor=executor, players=3, rounds=2)
    finally:
        executor.close()
    assert (tmp_path / "died").exists()
    assert (summary.played, summary.errors, summary.interrupted) == (6, 0, False)
    assert result == local_reference
    after = two_workers(client)  # the nanny started a new worker in its place
    assert len(set(before) & set(after)) == 1


def test_a_match_lost_twice_is_stored_as_an_error(tmp_path, bots, cluster):
    cluster, client = cluster
    two_workers(client)
    executor = DaskExecutor(cluster.scheduler_address)
    try:
        with Store(tmp_path / "arena.db") as store:
            tournament_id = create(store, TournamentConfig(game="toy", bots=bots[:2], players=2, seed=5))
            # every answer is a lost worker: what the executor reports when a worker dies mid-match
            executor._job_answered = lambda job_id, source, value, error, outcomes: outcomes.append(
                executor._finish(executor._jobs[job_id], lost="its Dask worker went away (test)"))
            summary = run(store, tournament_id, executor=executor)
            errors = [row["error"] for row in store.query("SELECT error FROM matches")]
    finally:
        executor.close()
    assert (summary.played, summary.errors) == (0, 2)
    assert errors == ["its Dask worker went away (test), twice"] * 2


# ---- bots by content hash ---------------------------------------------------------------------------

def test_a_bot_version_new_to_the_workers_is_sent_once_verified_and_cached(tmp_path, bots, cluster, cache_folder):
    cluster, client = cluster
    two_workers(client)
    newcomer = fresh_bot(tmp_path / "src", "newcomer")
    digest = content_hash(newcomer)
    assert not (cache_folder / digest).exists()
    executor = DaskExecutor(cluster.scheduler_address)
    try:
        summary, _, _ = play_tournament(tmp_path / "one", [newcomer, *bots[:2]], executor=executor, rounds=2)
    finally:
        executor.close()
    assert (summary.played, summary.errors) == (12, 0)
    cached = cache_folder / digest / "newcomer.py"
    assert content_hash(cached) == digest
    assert not os.stat(cached).st_mode & 0o222  # read-only
    assert executor.bytes_sent > 0
    # Another tournament (another database) with that version: the workers have it already.
    again = DaskExecutor(cluster.scheduler_address)
    try:
        summary, _, _ = play_tournament(tmp_path / "two", [newcomer, *bots[:2]], executor=again, rounds=1)
    finally:
        again.close()
    assert (summary.played, summary.errors, again.bytes_sent) == (6, 0, 0)


def test_a_corrupted_transfer_is_refused_naming_the_bot(tmp_path, bots, cluster, cache_folder, monkeypatch):
    cluster, client = cluster
    two_workers(client)
    victim = fresh_bot(tmp_path / "src", "victim")
    digest = content_hash(victim)
    honest = bundles.pack

    def damaged(path):
        bundle = honest(path)
        if Path(path).name == "victim.py":
            data = bytearray(zlib.decompress(bundle["data"]))
            data[-2] ^= 0x20  # one flipped bit on the way
            bundle = {**bundle, "data": zlib.compress(bytes(data))}
        return bundle

    monkeypatch.setattr(bundles, "pack", damaged)
    executor = DaskExecutor(cluster.scheduler_address)
    try:
        summary, result, _ = play_tournament(tmp_path / "db", [victim, *bots[:2]], executor=executor, rounds=1)
    finally:
        executor.close()
    assert (summary.played, summary.errors) == (2, 4)  # every match of victim's is refused
    errors = {error for status, error, _, _ in result["matches"].values() if status == "error"}
    assert len(errors) == 1
    (error,) = errors
    assert error.startswith(f"bot victim.py (sha256 {digest[:12]}): the copy received has sha256 ")
    assert "a damaged transfer, refused" in error
    assert not (cache_folder / digest).exists()


def test_bundles_round_trip_a_folder_bot_and_refuse_unsafe_or_damaged_ones(tmp_path):
    bot = tmp_path / "folder-bot"
    (bot / "lib").mkdir(parents=True)
    (bot / "bot.toml").write_text('run = "python3 main.py"\n')
    (bot / "main.py").write_text("print('hi')\n")
    (bot / "lib" / "helper.py").write_text("X = 1\n")
    os.chmod(bot / "main.py", 0o755)
    os.symlink("../main.py", bot / "lib" / "main-link.py")
    digest = content_hash(bot)
    bundle = bundles.pack(bot)
    assert bundles.unpack(bundle, digest, tmp_path / "copy") == digest
    assert content_hash(tmp_path / "copy") == digest
    unsafe = [
        {**bundle, "entries": [["../escape.py", "file", False, 0, ""]] + bundle["entries"]},
        {**bundle, "entries": [["/etc/passwd", "file", False, 0, ""]] + bundle["entries"]},
        {**bundle, "entries": bundle["entries"] + [["lib/up", "link", False, 0, "../../outside"]]},
        {**bundle, "name": "../x"},
        {**bundle, "data": b"not zlib"},
        {**bundle, "data": zlib.compress(zlib.decompress(bundle["data"]) + b"more")},
    ]
    for number, bad in enumerate(unsafe):
        with pytest.raises(bundles.BundleRefused, match=r"^bot "):
            bundles.unpack(bad, digest, tmp_path / f"bad{number}")
        assert not (tmp_path / f"bad{number}").exists()
    cache = bundles.BotCache(tmp_path / "cache")
    assert cache.path(digest, "folder-bot") is None            # not here, nothing sent: ask for it
    path = cache.path(digest, "folder-bot", bundle)
    assert content_hash(path) == digest and cache.hashes() == [digest]
    assert bundles.BotCache(tmp_path / "cache").path(digest, "folder-bot") == path  # another process


# ---- workers that cannot play -------------------------------------------------------------------------

def _without_bubblewrap():
    from arena.runner import sandbox

    sandbox._real_bubblewrap_problem = sandbox._bubblewrap_problem
    sandbox._bubblewrap_problem = lambda: "bubblewrap is not installed"


def _with_bubblewrap():
    from arena.runner import sandbox

    sandbox._bubblewrap_problem = getattr(sandbox, "_real_bubblewrap_problem", sandbox._bubblewrap_problem)


def test_a_worker_without_bubblewrap_is_named_and_not_used_unless_sandbox_none(tmp_path, bots, cluster,
                                                                             monkeypatch, capsys):
    cluster, client = cluster
    first, second = two_workers(client)
    client.run(_without_bubblewrap, workers=[first])
    try:
        executor = DaskExecutor(cluster.scheduler_address)
        try:
            summary, _, _ = play_tournament(tmp_path / "one", bots[:2], executor=executor, rounds=2)
        finally:
            executor.close()
        assert (summary.played, summary.errors) == (4, 0)
        assert [note for note in executor.notes if first in note] == [
            f"Dask worker {first} ({os.uname().nodename}) is not used: cannot sandbox bots: bubblewrap is not"
            " installed; install bubblewrap (apt-get install bubblewrap), or pass --sandbox none to run"
            " trusted bots without a sandbox"]
        assert f"note: Dask worker {first}" in capsys.readouterr().err
        client.run(_without_bubblewrap, workers=[second])
        summary, _, info = play_tournament(tmp_path / "two", bots[:2], executor_kind="dask",
                                           scheduler=cluster.scheduler_address)
        assert summary.problem.startswith(f"no Dask worker of {cluster.scheduler_address} can play the matches: ")
        assert "bubblewrap is not installed" in summary.problem
        assert (summary.played, summary.interrupted, info["status"]) == (0, True, "interrupted")
        monkeypatch.setenv("ARENA_SANDBOX", "none")  # asked for: the mode travels with every match
        executor = DaskExecutor(cluster.scheduler_address)
        try:
            summary, _, _ = play_tournament(tmp_path / "three", bots[:2], executor=executor)
        finally:
            executor.close()
        assert (summary.played, summary.errors, executor.notes) == (4, 0, [])
    finally:
        client.run(_with_bubblewrap)


def test_no_distributed_or_no_scheduler_is_one_line(tmp_path, bots, monkeypatch):
    with pytest.raises(ExecutorError, match=r"^cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9 \("):
        DaskExecutor("tcp://127.0.0.1:9", connect_timeout=1)
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if it were not installed
    summary, _, info = play_tournament(tmp_path, bots[:2], executor_kind="dask", scheduler="tcp://127.0.0.1:9")
    assert summary.problem == "the dask executor needs the distributed package: pip install 'arena[dask]'"
    assert (summary.played, info["status"]) == (0, "interrupted")


# ---- the command: the scheduler goes away, then resume ------------------------------------------------

def arena(db, *args, timeout=PATIENCE):
    return subprocess.run([sys.executable, "-m", "arena.cli", "--db", str(db), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def wait_for(predicate, process=None, seconds=PATIENCE):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        if process is not None:
            assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    if process is not None:
        process.kill()
        raise AssertionError(f"timed out: {process.communicate()}")
    raise AssertionError("timed out")


def finished(db) -> int:
    try:
        with Store(db, create=False) as store:
            return store.one("SELECT COUNT(*) AS n FROM matches WHERE status = 'finished'")["n"]
    except Exception:
        return 0


@pytest.mark.slow
def test_the_scheduler_going_away_stops_the_run_in_one_line_and_resume_finishes_it(tmp_path, bots, cluster):
    cluster, client = cluster
    _, reference, _ = play_tournament(tmp_path / "local", bots, rounds=2, options={"rounds": 40}, seed=8)
    dask = Path(sys.executable).parent / "dask"
    address_file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                  "--scheduler-file", str(address_file)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        wait_for(lambda: '"address"' in (address_file.read_text() if address_file.exists() else ""))
        address = json.loads(address_file.read_text())["address"]
        worker = subprocess.Popen([str(dask), "worker", address, "--nthreads", "1", "--nworkers", "1",
                                   "--no-dashboard", "--death-timeout", "5"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        db = tmp_path / "dask" / "arena.db"
        db.parent.mkdir()
        coordinator = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "--db", str(db), "tournament", "run", "--game", "toy", "--bots",
             ",".join(bots), "--players", "2", "--rounds", "2", "--option", "rounds=40", "--seed", "8",
             "--executor", "dask", "--scheduler", address],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: finished(db) >= 3, coordinator)
        scheduler.kill()
        out, err = coordinator.communicate(timeout=PATIENCE)
    finally:
        for process in (scheduler, worker):
            if process is not None:
                process.kill()
                process.wait()
    assert coordinator.returncode == 1, err
    assert "Traceback" not in err and "Traceback" not in out
    assert err.strip().splitlines()[-1] == f"Error: lost the connection to the Dask scheduler at {address}"
    assert out.strip().splitlines()[-1].endswith("left; continue with: arena tournament resume 1")
    with Store(db, create=False) as store:
        info = store.tournaments()[0]
        assert info["status"] == "interrupted" and 3 <= info["matches_finished"] < 12
        assert store.one("SELECT COUNT(*) AS n FROM match_logs")["n"] == info["matches_finished"]
    resumed = arena(db, "tournament", "resume", "1", "--executor", "dask", "--scheduler", cluster.scheduler_address)
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr
    with Store(db, create=False) as store:
        assert store.tournaments()[0]["matches_finished"] == 12
        assert outcome(store, 1) == reference  # leaderboard and logs: as if never interrupted, and local


@pytest.mark.slow
def test_ctrl_c_stops_a_dask_run_at_once_and_resume_completes_it(tmp_path, bots, cluster):
    cluster, client = cluster
    two_workers(client)
    db = tmp_path / "arena.db"
    coordinator = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "--db", str(db), "tournament", "run", "--game", "toy", "--bots",
         ",".join(bots), "--players", "2", "--rounds", "2", "--option", "rounds=60", "--seed", "8",
         "--executor", "dask", "--scheduler", cluster.scheduler_address],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: finished(db) >= 2, coordinator)
    coordinator.send_signal(signal.SIGINT)
    out, err = coordinator.communicate(timeout=PATIENCE)
    assert coordinator.returncode == 130, err
    assert "Traceback" not in err
    assert "interrupted by SIGINT" in out and "arena tournament resume 1" in out
    with Store(db, create=False) as store:
        info = store.tournaments()[0]
        assert info["status"] == "interrupted" and info["matches_pending"] > 0
        assert store.one("SELECT COUNT(*) AS n FROM match_logs")["n"] == info["matches_finished"]
    resumed = arena(db, "tournament", "resume", "1", "--executor", "dask", "--scheduler", cluster.scheduler_address)
    assert resumed.returncode == 0, resumed.stderr
    with Store(db, create=False) as store:
        assert store.tournaments()[0]["matches_finished"] == 12
