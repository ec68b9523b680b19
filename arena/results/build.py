"""The build step of a submitted bot: ``build = "..."`` in its ``bot.toml``, run once, sandboxed.

The build runs with ``/bin/sh -c`` in the bot's folder, inside the same sandbox as a match:
system directories, the interpreters and the compilers' toolchains (a Rust toolchain of the
harness's user included) read-only; the bot's folder as a writable, size-capped ``/bot`` in
memory; no network; a time, memory and process limit. What the folder holds after a
successful build — sources and outputs — is what is stored and played; its output (stdout
and stderr, the last 64 KiB) is stored with the version. A failed build refuses the bot with
the tail of that output. In mode ``none`` (trusted bots) the build runs on a copy on the host.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from arena import scratch
from arena.results.botstore import store_copy
from arena.runner import files
from arena.runner.bots import resolve_bot
from arena.text import printable
from arena.runner.sandbox import BOT_ROOT, ResourceLimits, Sandbox, SandboxUnavailable, StageCache, detect

BUILD_SECONDS = 600
BUILD_LIMITS = ResourceLimits(memory_bytes=4 << 30, cpu_seconds=BUILD_SECONDS, processes=512,
                              file_bytes=512 << 20, open_files=4096, disk_bytes=1 << 30,
                              cpus=float(os.cpu_count() or 1))
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

    Returns its output; raises `BuildFailed` with the reason and the output."""
    try:
        protections = detect()
    except SandboxUnavailable as error:
        raise BuildFailed(str(error), "") from None
    sandbox = Sandbox(protections, BUILD_LIMITS)
    stage = StageCache()
    try:
        staged = stage.stage(resolve_bot(folder))
        if protections.mode == "bubblewrap":
            source, work, result = SOURCE, BOT_ROOT, "/out/result"
            options = [*_toolchain_binds(), "--ro-bind", staged.command.root, SOURCE,
                       "--perms", "0777", "--size", str(BUILD_LIMITS.disk_bytes), "--tmpfs", BOT_ROOT,
                       "--bind", str(out), "/out"]
        else:
            source, work, result, options = staged.command.root, str(out / "work"), str(out / "result"), []
        # cp -R, not -a: the build's own user cannot set the times of folders it does not own.
        script = (f'cp -R {source}/. {work}/ && cd {work} && {{ chmod -R u+w . 2>/dev/null; true; }} && ( {build_command} )'
                  f' && mkdir {result} && cp -R {work}/. {result}/')
        if protections.mode != "bubblewrap":
            script = f"mkdir {work} && " + script
        launch = sandbox.launch(staged, "build", extra_options=tuple(options), command=("/bin/sh", "-c", script))
        env = dict(launch.env)
        env["PATH"] = ":".join([*(os.path.join(p, "bin") for p in toolchain_paths()), env["PATH"]])
        env["CARGO_HOME"] = os.path.join(env["HOME"], ".cargo")
        code = None
        try:
            done = subprocess.run(launch.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, env=env, cwd=launch.cwd, preexec_fn=launch.preexec,
                                  pass_fds=launch.pass_fds, timeout=seconds, start_new_session=True)
            output, code = done.stdout, done.returncode
        except subprocess.TimeoutExpired as expired:
            output = expired.stdout or b""
        finally:
            launch.close()
    finally:
        stage.close()
    log = output[-LOG_BYTES:].decode("utf-8", "replace")
    if code is None:
        raise BuildFailed(f"it took longer than {seconds} s", log)
    if code != 0:
        raise BuildFailed(f"exit code {code}", log)
    if not (out / "result").is_dir():
        raise BuildFailed("it left no result", log)
    return log


def _toolchain_binds() -> list[str]:
    options = []
    for path in toolchain_paths():
        for parent in reversed(Path(path).parents):
            if str(parent) != "/":
                options += ["--perms", "0755", "--dir", str(parent)]
        options += ["--ro-bind", path, path]
    return options
