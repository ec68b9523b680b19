"""The build step (`build = "..."` in bot.toml): run once at submission, in the sandbox, with
limits; its result is what is stored and played; a failing build refuses the bot with its
output; `arena check` reports on a built bot."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.results.build import BuildFailed, run_build
from arena.results.store import Store
from arena.results.submit import SubmitError, submit
from arena.runner.bots import BotError
from arena.runner.check import check

C_BOT = r'''
#include <stdio.h>
#include <string.h>
int main(void) {
    static char line[1 << 20];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"start\"")) printf("{\"type\":\"ready\",\"matches\":\"many\"}\n");
        else if (strstr(line, "\"type\":\"request\"")) printf("{\"index\":0}\n");
        else if (strstr(line, "\"type\":\"quit\"")) break;
        fflush(stdout);
    }
    return 0;
}
'''

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")


def c_bot(folder: Path, build: str = "cc -O2 -o bot main.c") -> Path:
    folder.mkdir(parents=True)
    (folder / "main.c").write_text(C_BOT)
    (folder / "bot.toml").write_text(f'command = "./bot"\nbuild = "{build}"\nlanguage = "c"\n')
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    for parent in folder.parents:
        if str(parent).startswith("/tmp/"):
            parent.chmod(parent.stat().st_mode | 0o711)
    return folder


@needs_cc
def test_a_c_bot_is_built_at_submission_and_its_build_is_what_plays(tmp_path):
    folder = c_bot(tmp_path / "cbot")
    with Store(tmp_path / "arena.db") as store:
        outcome = submit(store, folder, "toy")
        copy = store.bot_path(outcome.version)
        assert (copy / "bot").is_file() and os.access(copy / "bot", os.X_OK)
        assert not (folder / "bot").exists()  # built in the sandbox, not in the source folder
        assert outcome.version["stored_hash"] != outcome.version["content_hash"]
        assert outcome.validation["status"] == "ok"
        again = submit(store, folder, "toy")
        assert not again.created  # the same source is the same version


@needs_cc
def test_a_failing_build_refuses_the_bot_with_the_end_of_its_output(tmp_path):
    folder = c_bot(tmp_path / "broken")
    (folder / "main.c").write_text("int main(void) { this is not C; }\n")
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(SubmitError) as refused:
            submit(store, folder, "toy")
        assert "the build of broken failed: exit code 1" in str(refused.value)
        assert "error" in str(refused.value)
        assert store.bot_versions() == [] and (not store.bot_store.exists() or list(store.bot_store.iterdir()) == [])


def test_a_build_cannot_write_outside_its_folder_or_reach_the_network(tmp_path):
    folder = tmp_path / "sneaky"
    folder.mkdir()
    (folder / "bot.toml").write_text('command = "./bot.sh"\n')
    (folder / "bot.sh").write_text("#!/bin/sh\n")
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    for path in (folder, folder / "bot.toml", folder / "bot.sh"):
        path.chmod(0o755)
    target = tmp_path / "outside"
    script = (f"touch {target} 2>/dev/null; echo > /etc/arena-build-test 2>/dev/null;"
              " (exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null; echo built > note")
    log = run_build(script, folder, out, seconds=60)
    assert not target.exists() and not os.path.exists("/etc/arena-build-test")
    assert (out / "result" / "note").read_text().strip() == "built"
    assert isinstance(log, str)


def test_a_build_that_takes_too_long_is_stopped(tmp_path):
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "bot.toml").write_text('command = "./bot.sh"\n')
    for path in (folder, folder / "bot.toml"):
        path.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    with pytest.raises(BuildFailed, match="took longer than 2 s"):
        run_build("sleep 30", folder, out, seconds=2)


@needs_cc
def test_check_reports_on_a_built_bot(tmp_path):
    folder = c_bot(tmp_path / "checked")
    with Store(tmp_path / "arena.db") as store:
        copy = store.bot_path(submit(store, folder, "toy").version)
    findings = check(str(copy), "toy")
    assert all(f.ok for f in findings), [f.line() for f in findings]
    assert any("reuse: plays many matches per process" in f.what for f in findings)


@needs_cc
def test_a_bot_path_in_a_tournament_is_built_like_a_submission(tmp_path):
    from arena.tournament import TournamentConfig, create, run

    first, second = c_bot(tmp_path / "first"), c_bot(tmp_path / "second", build="cc -O1 -o bot main.c")
    with Store(tmp_path / "arena.db") as store:
        tournament_id = create(store, TournamentConfig(game="toy", bots=[str(first), str(second)], players=2, seed=1))
        summary = run(store, tournament_id, workers=1)
        assert summary.played == 2 and summary.failures == 0
        assert not (first / "bot").exists()


def test_an_unbuilt_bot_is_refused_with_its_build_command(tmp_path):
    from arena.runner.match import MatchSpec, play_match

    folder = c_bot(tmp_path / "cbot")
    with pytest.raises(BotError, match="does not exist yet: build the bot first .*cc -O2 -o bot main.c"):
        play_match(MatchSpec("toy", [str(folder), str(folder)], 1))


# ---- the build's output is capped and unpacked beneath its folder -----------------------------

def test_a_build_that_writes_over_the_cap_is_refused_and_leaves_nothing(tmp_path, monkeypatch):
    """Attack: a build wrote three 400 MB files to `/out`, a host folder, and was accepted
    (1,144 MiB on the host's disk). Now nothing of the host is writable and the folder with all
    it wrote is capped (1 GiB; 8 MiB here): over it the bot is refused, and nothing is left."""
    import tempfile

    from arena import scratch
    from arena.results import build

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setattr(build, "BUILD_OUTPUT_BYTES", 8 << 20)
    folder = tmp_path / "filler"
    folder.mkdir()
    (folder / "bot.toml").write_text('command = "python3 bot.py"\nbuild = "sh fill.sh"\n')
    shutil.copy(Path(__file__).resolve().parents[1] / "bots" / "random.py", folder / "bot.py")
    (folder / "fill.sh").write_text(
        "for i in 1 2 3; do head -c 3000000 /dev/zero > /out/big$i && echo wrote /out/big$i; done\n"
        "for i in 1 2 3; do head -c 3000000 /dev/zero > big$i; done\n"
        "true\n")
    for path in (folder, *folder.iterdir(), *[p for p in tmp_path.parents if str(p).startswith("/tmp/")]):
        path.chmod(path.stat().st_mode | 0o755)
    tmp.chmod(0o755)
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(SubmitError) as refused:
            submit(store, folder, "toy")
        assert "the build of filler failed: the folder and what it wrote are over the 8 MiB cap" in str(refused.value)
        assert "wrote /out" not in str(refused.value)  # /out is no host folder any more
        assert store.bot_versions() == []
        assert not store.bot_store.exists() or list(store.bot_store.iterdir()) == []
    assert [e.name for e in os.scandir(tmp) if e.name.startswith(scratch.TEMPORARY_PREFIXES)] == []


def test_a_build_stream_cannot_write_outside_its_folder_whatever_it_holds(tmp_path):
    """Attack: the built folder leaves the sandbox as a tar stream the build controls; links it
    holds (a chain `y -> .`, `x -> y/../..`, then a file under `x/`), absolute or `..` names,
    hard links and special files must never write outside the folder."""
    import io
    import tarfile

    from arena.results.build_output import BadOutput, OutputTooLarge, unpack

    def stream(*members) -> io.BytesIO:
        data = io.BytesIO()
        with tarfile.open(fileobj=data, mode="w") as archive:
            for name, kind, extra in members:
                info = tarfile.TarInfo(name)
                info.type = kind
                if kind == tarfile.SYMTYPE or kind == tarfile.LNKTYPE:
                    info.linkname = extra
                    archive.addfile(info)
                elif kind == tarfile.REGTYPE:
                    info.size = len(extra)
                    archive.addfile(info, io.BytesIO(extra))
                else:
                    archive.addfile(info)
        data.seek(0)
        return data

    outside = tmp_path / "outside"
    outside.mkdir()
    attacks = [
        [("y", tarfile.SYMTYPE, "."), ("x", tarfile.SYMTYPE, "y/../.."), ("x/outside/escaped", tarfile.REGTYPE, b"!")],
        [("link", tarfile.SYMTYPE, str(outside)), ("link/escaped", tarfile.REGTYPE, b"!")],
        [("../outside/escaped", tarfile.REGTYPE, b"!")],
        [("/tmp/escaped-by-a-build", tarfile.REGTYPE, b"!")],
        [("hard", tarfile.LNKTYPE, "../outside/escaped")],
        [("fifo", tarfile.FIFOTYPE, None)],
        [("twice", tarfile.REGTYPE, b"1"), ("twice", tarfile.REGTYPE, b"2")],
    ]
    for number, members in enumerate(attacks):
        with pytest.raises(BadOutput):
            unpack(stream(*members), tmp_path / f"result{number}", 1 << 20)
        assert list(outside.iterdir()) == [] and not os.path.exists("/tmp/escaped-by-a-build")
    with pytest.raises(OutputTooLarge):
        unpack(stream(("big", tarfile.REGTYPE, b"x" * 20000)), tmp_path / "big", 10000)
    good = stream(("bin", tarfile.DIRTYPE, None), ("bin/bot", tarfile.REGTYPE, b"#!/bin/sh\n"),
                  ("latest", tarfile.SYMTYPE, "bin/bot"))
    unpack(good, tmp_path / "good", 1 << 20)
    assert (tmp_path / "good" / "bin" / "bot").read_bytes() == b"#!/bin/sh\n"
    assert os.readlink(tmp_path / "good" / "latest") == "bin/bot"


def test_builds_side_by_side_do_not_stop_each_other(tmp_path):
    """Seen in CI: `arena submit` of three kits at once; the first build to end was stopped by
    its token, which every build shared, and that killed the other two (exit code -9)."""
    from arena.results.submit import submit_many

    quick, slow = tmp_path / "quick", tmp_path / "slow"
    for folder, build in ((quick, "true"), (slow, "sleep 2 && touch built")):
        folder.mkdir()
        (folder / "bot.toml").write_text(f'command = "python3 bot.py"\nbuild = "{build}"\n')
        shutil.copy(Path(__file__).resolve().parents[1] / "bots" / "random.py", folder / "bot.py")
    with Store(tmp_path / "arena.db") as store:
        outcomes, _ = submit_many(store, [quick, slow], "toy", jobs=2)
    assert [o.error for o in outcomes] == [None, None]
