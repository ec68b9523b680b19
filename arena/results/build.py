"""The build step of a submitted bot: ``build = "..."`` in its ``bot.toml``, run once, sandboxed.

The build runs with ``/bin/sh -c`` in the bot's folder, inside the same sandbox as a match:
system directories, the interpreters and the compilers' toolchains (a Rust toolchain of the
harness's user included) read-only; the bot's folder as a writable, size-capped ``/bot`` in
memory; no network; a time, memory and process limit. Nothing of the host is writable: what
the folder holds after a successful build — sources and outputs — leaves the sandbox as one
tar stream, unpacked under the cap (`BUILD_OUTPUT_BYTES`, 1 GiB for the folder and all it
wrote), and is what is stored and played; its output (stdout and stderr, the last 64 KiB) is
stored with the version. A failed build refuses the bot with the tail of that output, and
leaves nothing. In mode ``none`` (trusted bots) the build runs on a copy on the host.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

from arena import scratch
from arena.results.botstore import store_copy
from arena.results.build_output import BadOutput, OutputTooLarge, unpack
from arena.runner import files
from arena.runner.bots import resolve_bot
from arena.text import printable
from arena.runner.sandbox import BOT_ROOT, ResourceLimits, Sandbox, SandboxUnavailable, StageCache, detect
from arena.runner.tokens import new_token

BUILD_SECONDS = 600
BUILD_LIMITS = ResourceLimits(memory_bytes=4 << 30, cpu_seconds=BUILD_SECONDS, processes=512,
                              file_bytes=512 << 20, open_files=4096, disk_bytes=1 << 30,
                              cpus=float(os.cpu_count() or 1))
BUILD_OUTPUT_BYTES = 1 << 30  # the folder and everything the build wrote, as a whole
LOG_BYTES = 64 * 1024
TAIL_LINES = 30
SOURCE = "/bot-source"


class BuildFailed(Exception):
    def __init__(self, reason: str, log: str):
        super().__init__(reason)
        self.reason, self.log = reason, log


def toolchain_paths() -> list[str]:
    """Folders of compilers installed outside the system directories (e.g. rustup's)."""
    found = []
    rustc = shutil.which("rustc")
    if rustc:
        try:
            sysroot = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True,
                                     timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            sysroot = ""
        if sysroot and os.path.isdir(sysroot) and not sysroot.startswith("/usr/"):
            found.append(sysroot)
    return found


def build_in_sandbox(store, seconds: int = BUILD_SECONDS):
    """The builder `submit` uses: ``build(stored_copy) -> (ok, message or log, (hash, relative))``."""

    def build(copy: Path):
        command = resolve_bot(copy)
        started = time.monotonic()
        work = scratch.make(scratch.BUILD, mode=0o755)
        try:
            out = work / "out"
            out.mkdir()
            os.chmod(out, 0o777)  # the build's own user writes its result here
            try:
                log = run_build(command.build, copy if copy.is_dir() else copy.parent, out, seconds)
                result = out / "result"
                os.rename(result, out / copy.name)
                digest, relative = store_copy(store.bot_store, out / copy.name)
            except BuildFailed as failure:
                tail = "\n".join(printable(failure.log).rstrip().splitlines()[-TAIL_LINES:])
                return False, (f"the build of {copy.name} failed: {failure.reason} after"
                               f" {time.monotonic() - started:.1f} s; last lines of its output:\n{tail}"), None
            except (OSError, files.BotFilesError) as error:
                return False, f"the build of {copy.name} left something that cannot be stored: {error}", None
        finally:
            files.remove_tree(work)
        return True, log, (digest, relative)

    return build


def run_build(build_command: str, folder: Path, out: Path, seconds: int = BUILD_SECONDS) -> str:
    """Run ``build_command`` over a writable copy of ``folder``; the result is ``out/result``.

    Returns its output; raises `BuildFailed` with the reason and the output (leaving no
    ``out/result``)."""
    try:
        protections = detect()
    except SandboxUnavailable as error:
        raise BuildFailed(str(error), "") from None
    sandbox = Sandbox(protections, BUILD_LIMITS)
    stage = StageCache()
    try:
        staged = stage.stage(resolve_bot(folder))
        if protections.mode == "bubblewrap":
            return _build_in_sandbox(sandbox, staged, build_command, out, seconds)
        return _build_on_host(sandbox, staged, build_command, out, seconds)
    except BaseException:
        files.remove_tree(out / "result")
        raise
    finally:
        stage.close()


def _build_in_sandbox(sandbox: Sandbox, staged, build_command: str, out: Path, seconds: int) -> str:
    """The build in the sandbox: the folder is a size-capped ``/bot`` in memory, and nothing of
    the host is writable; the built folder leaves as a tar stream on the script's standard
    output (the build's own output goes to its standard error), unpacked under the cap."""
    cap = BUILD_OUTPUT_BYTES
    # Room beyond the cap, so that a build going over it is seen going over it (and refused)
    # rather than stopped by a full folder it may ignore.
    room = cap + cap // 16
    options = [*_toolchain_binds(), "--ro-bind", staged.command.root, SOURCE,
               "--perms", "0777", "--size", str(room), "--tmpfs", BOT_ROOT]
    # cp -R, not -a: the build's own user cannot set the times of folders it does not own.
    # Hard links go as files (as cp -R copies them), so the stream holds none.
    script = (f"exec 3>&1 1>&2; cp -R {SOURCE}/. {BOT_ROOT}/ && cd {BOT_ROOT} && {{ chmod -R u+w . 2>/dev/null; true; }}"
              f" && ( {build_command} ) 3>&- && cd / && tar -C {BOT_ROOT} --hard-dereference -cf - . >&3")
    # Its own token: builds run side by side (`submit_many`), and stopping one kills by token.
    launch = sandbox.launch(staged, f"build-{new_token()}", extra_options=tuple(options),
                            command=("/bin/sh", "-c", script))
    log, problem, timed_out, code = bytearray(), None, threading.Event(), None
    try:
        process = subprocess.Popen(launch.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=_build_env(launch), cwd=launch.cwd,
                                   preexec_fn=launch.preexec, pass_fds=launch.pass_fds, start_new_session=True)
        launch.started()

        def stop() -> None:
            launch.kill(process.pid)

        def expire() -> None:
            timed_out.set()
            stop()

        reader = threading.Thread(target=_keep_tail, args=(process.stderr, log), daemon=True)
        reader.start()
        watchdog = threading.Timer(seconds, expire)
        watchdog.start()
        try:
            try:
                unpack(process.stdout, out / "result", cap)
            except (OutputTooLarge, BadOutput) as error:
                problem = error
                stop()
            code = process.wait()
        finally:
            watchdog.cancel()
            stop()
            process.wait()
            reader.join()
            process.stdout.close()
            process.stderr.close()
    finally:
        launch.close()
    text = bytes(log).decode("utf-8", "replace")
    if isinstance(problem, OutputTooLarge):
        raise BuildFailed(f"the folder and what it wrote are over the {cap >> 20} MiB cap", text)
    if timed_out.is_set():
        raise BuildFailed(f"it took longer than {seconds} s", text)
    if code != 0:
        raise BuildFailed(f"exit code {code}", text)
    if problem is not None:
        raise BuildFailed(f"it left something that cannot be stored: {problem}", text)
    return text


def _keep_tail(stream, log: bytearray) -> None:
    while chunk := stream.read1(1 << 16):
        log += chunk
        del log[:-LOG_BYTES]


def _build_on_host(sandbox: Sandbox, staged, build_command: str, out: Path, seconds: int) -> str:
    """Mode none (trusted bots): the build runs on a copy on the host; its folder is checked
    against the cap afterwards."""
    source, work, result = staged.command.root, str(out / "work"), str(out / "result")
    script = (f'mkdir {work} && cp -R {source}/. {work}/ && cd {work} && ( {build_command} )'
              f' && mkdir {result} && cp -R {work}/. {result}/')
    launch = sandbox.launch(staged, f"build-{new_token()}", command=("/bin/sh", "-c", script))
    code = None
    try:
        done = subprocess.run(launch.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=_build_env(launch), cwd=launch.cwd,
                              preexec_fn=launch.preexec, pass_fds=launch.pass_fds, timeout=seconds,
                              start_new_session=True)
        output, code = done.stdout, done.returncode
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout or b""
    finally:
        launch.close()
    log = output[-LOG_BYTES:].decode("utf-8", "replace")
    if code is None:
        raise BuildFailed(f"it took longer than {seconds} s", log)
    if code != 0:
        raise BuildFailed(f"exit code {code}", log)
    if not (out / "result").is_dir():
        raise BuildFailed("it left no result", log)
    if _size(out / "result") > BUILD_OUTPUT_BYTES:
        raise BuildFailed(f"the folder and what it wrote are over the {BUILD_OUTPUT_BYTES >> 20} MiB cap", log)
    return log


def _build_env(launch) -> dict:
    env = dict(launch.env)
    env["PATH"] = ":".join([*(os.path.join(p, "bin") for p in toolchain_paths()), env["PATH"]])
    env["CARGO_HOME"] = os.path.join(env["HOME"], ".cargo")
    return env


def _size(folder: Path) -> int:
    total = 0
    for parent, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(parent, name)).st_size
            except OSError:
                continue
    return total


def _toolchain_binds() -> list[str]:
    options = []
    for path in toolchain_paths():
        for parent in reversed(Path(path).parents):
            if str(parent) != "/":
                options += ["--perms", "0755", "--dir", str(parent)]
        options += ["--ro-bind", path, path]
    return options
