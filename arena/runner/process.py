"""One bot process: start it sandboxed, exchange JSON lines under deadlines, stop it for good.

The harness never blocks on a bot: stdin, stdout and stderr are non-blocking pipes served by
one ``selectors`` loop, so a bot that stops reading, floods its output or hangs only ever
costs its own deadline. Every failure surfaces as a ``BotFailure`` carrying the status the
match records (timeout, crash, protocol, limit). Knows nothing of games.
"""

from __future__ import annotations

import errno
import json
import os
import selectors
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field

from arena.runner import sandbox
from arena.runner.bots import BotCommand

STDERR_HEAD = 32 * 1024
STDERR_TAIL = 32 * 1024
STOP_GRACE_S = 1.0
ABANDON_CHECK_S = 0.25  # how often a slow reply is checked for a bot that closed its stdout
READ_CHUNK = 1 << 16
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # one line, UTF-8

# What a program prints when an allocation fails under the address-space limit.
OUT_OF_MEMORY_SIGNS = ("MemoryError", "out of memory", "Cannot allocate memory", "bad_alloc",
                       "heap out of memory", "Fatal process out of memory", "failed to allocate")


class BotFailure(Exception):
    """The bot broke the protocol or a limit; ``status`` is what the match records."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class StderrCapture:
    """Keeps the first and the last 32 KiB of a stream and counts what was dropped."""

    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def add(self, data: bytes) -> None:
        room = STDERR_HEAD - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            excess = len(self.tail) - STDERR_TAIL
            if excess > 0:
                del self.tail[:excess]
                self.dropped += excess

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes of stderr dropped ...]\n" if self.dropped else ""
        return (bytes(self.head).decode("utf-8", "replace") + middle
                + bytes(self.tail).decode("utf-8", "replace"))


class BotProcess:
    """A running bot. Use ``start``, then ``send`` and ``receive`` per message, then ``stop``."""

    def __init__(self, bot: BotCommand, seat: int, limits: sandbox.ResourceLimits,
                 max_line_bytes: int, max_output_bytes: int,
                 protections: sandbox.Protections | None = None):
        self.bot = bot
        self.seat = seat
        self.max_line_bytes = max_line_bytes
        self.max_output_bytes = max_output_bytes
        self.token = uuid.uuid4().hex
        self.memory_limit = limits.memory_bytes
        self.prepared = sandbox.prepare(bot, seat, self.token, limits, protections)
        self.stderr = StderrCapture()
        self.output_bytes = 0
        self.lines: list[bytes] = []  # complete lines read but not yet consumed
        self._partial = bytearray()
        self._stdout_open = True
        self.popen: subprocess.Popen | None = None
        self.exit_status: int | None = None
        self.peak_rss_kib = 0
        self.wait_seconds = 0.0  # time spent blocked waiting for the bot (for benchmarks)

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> None:
        prepared = self.prepared
        try:
            self.popen = subprocess.Popen(
                prepared.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=prepared.cwd, env=prepared.env, preexec_fn=prepared.preexec,
                start_new_session=True, close_fds=True)
        except OSError as error:
            raise BotFailure("crash", f"could not start {self.bot.argv[0]}: {error.strerror}") from None
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            os.set_blocking(stream.fileno(), False)
        self._stdout_inode = os.fstat(self.popen.stdout.fileno()).st_ino
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.popen.stdout.fileno(), selectors.EVENT_READ, "stdout")
        self._selector.register(self.popen.stderr.fileno(), selectors.EVENT_READ, "stderr")

    def stop(self) -> None:
        """Ask nicely is the caller's job; this ends the whole process tree, reaps, cleans up."""
        if self.popen is not None:
            self._close_stdin()
            self._signal_group(signal.SIGTERM)
            self.wait_for_exit(time.monotonic() + STOP_GRACE_S)
            self._signal_group(signal.SIGKILL)
            while self._reap() is None:
                time.sleep(0.005)
            # Descendants that left the process group (double forks), or a namespace still
            # being torn down: kill until none is left, so stop() returns with nothing alive.
            give_up = time.monotonic() + 5.0
            while kill_by_token(self.token) and time.monotonic() < give_up:
                time.sleep(0.01)
            self._final_read()
            for name in ("stdout", "stderr"):
                getattr(self.popen, name).close()
            self._selector.close()
        self.prepared.remove_directories()

    def _signal_group(self, signum: int) -> None:
        try:
            os.killpg(self.popen.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass

    def _close_stdin(self) -> None:
        try:
            self.popen.stdin.close()
        except OSError:
            pass

    def _reap(self) -> int | None:
        """Collect the exit status without blocking; also records peak memory."""
        if self.exit_status is not None:
            return self.exit_status
        try:
            pid, status, usage = os.wait4(self.popen.pid, os.WNOHANG)
        except ChildProcessError:
            self.exit_status = self.popen.returncode if self.popen.returncode is not None else -1
            return self.exit_status
        if pid == 0:
            return None
        self.exit_status = os.waitstatus_to_exitcode(status)
        self.popen.returncode = self.exit_status
        self.peak_rss_kib = usage.ru_maxrss
        return self.exit_status

    # -- messages -----------------------------------------------------------------------

    def send(self, message: dict, deadline: float) -> None:
        self.send_line(_ENCODER.encode(message).encode() + b"\n", deadline)

    def send_line(self, data: bytes, deadline: float) -> None:
        """Write one line; the bot must take it before ``deadline`` (monotonic seconds)."""
        view = memoryview(data)
        fd = self.popen.stdin.fileno()
        while view:
            try:
                written = os.write(fd, view)
                view = view[written:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError):
                raise self._crash("closed its stdin") from None
            # The bot is not reading: keep serving its output while we wait for room.
            if not self._wait(deadline, write_fd=fd):
                raise BotFailure("timeout", "did not read its input in time")

    def receive(self, deadline: float) -> bytes:
        """The next complete line from the bot, without the newline."""
        next_check = time.monotonic() + ABANDON_CHECK_S
        while not self.lines:
            if not self._stdout_open:
                raise self._crash("closed its stdout")
            if time.monotonic() >= next_check:
                if self._stdout_abandoned():
                    raise self._crash("closed its stdout")
                next_check = time.monotonic() + ABANDON_CHECK_S
            if not self._wait(min(deadline, next_check)) and time.monotonic() >= deadline:
                # A reply already sitting in the pipe came in time, even if we look late
                # (seats start in parallel but are read one after the other).
                self._drain(0)
                if not self.lines:
                    raise BotFailure("timeout", "no reply in time")
        return self.lines.pop(0)

    def _stdout_abandoned(self) -> bool:
        """True when no process of the bot holds its stdout any more.

        Under bubblewrap the sandbox's own processes keep a copy of the pipe, so a bot that
        closes stdout but keeps running never produces end-of-file; look at who holds it.
        """
        if self.prepared.protections.mode != "bubblewrap":
            return False  # the bot's own processes are the only holders: EOF tells
        target = f"pipe:[{self._stdout_inode}]"
        wrapper = self.popen.pid
        for pid in pids_with_token(self.token):
            try:
                if pid == wrapper or _parent_of(pid) == wrapper:
                    continue  # bwrap itself and its init inside the namespace
                if any(os.readlink(f"/proc/{pid}/fd/{fd}") == target for fd in os.listdir(f"/proc/{pid}/fd")):
                    return False
            except OSError:
                return False  # cannot tell (not allowed to look, or it is changing): assume held
        return True

    def wait_for_exit(self, deadline: float) -> bool:
        """Serve output until the process exits or ``deadline`` passes; True if it exited."""
        try:
            while self._reap() is None and time.monotonic() < deadline:
                self._drain(0.01)
        except BotFailure:
            pass  # over a limit while quitting: it is being stopped anyway
        return self.exit_status is not None

    def has_unrequested_output(self, within: float = 0.0) -> bool:
        """True if the bot wrote a line beyond its reply (waiting up to ``within`` seconds)."""
        deadline = time.monotonic() + within
        self._drain(0)
        while not self.lines and self._stdout_open and time.monotonic() < deadline:
            self._drain(max(0.0, deadline - time.monotonic()))
        return bool(self.lines)

    def _crash(self, what: str) -> BotFailure:
        # Give the process a moment to finish dying so the exit status can be classified.
        self.wait_for_exit(time.monotonic() + 0.5)
        status = self.exit_status
        if status is not None and status > 128 and self.prepared.protections.mode == "bubblewrap":
            status = -(status - 128)  # bwrap reports a child killed by signal N as 128 + N
        if self._out_of_memory():
            return BotFailure("limit", f"ran out of memory (limit {self._memory_limit_text()}); {what}")
        if status is None:
            return BotFailure("crash", what)
        if status < 0:
            try:
                name = signal.Signals(-status).name
            except ValueError:
                name = f"signal {-status}"
            if -status == signal.SIGXCPU:
                return BotFailure("timeout", "used up its CPU time limit")
            return BotFailure("crash", f"{what}: killed by {name}")
        return BotFailure("crash", f"{what}: exited with code {status}")

    def _out_of_memory(self) -> bool:
        if self.peak_rss_kib * 1024 >= 0.9 * self.memory_limit:
            return True
        tail = bytes(self.stderr.tail or self.stderr.head)[-4096:].decode("utf-8", "replace")
        return any(sign in tail for sign in OUT_OF_MEMORY_SIGNS)

    def _memory_limit_text(self) -> str:
        return f"{self.memory_limit >> 20} MiB"

    # -- the I/O loop -------------------------------------------------------------------

    def _wait(self, deadline: float, write_fd: int | None = None) -> bool:
        """Serve the bot's output until something changes; False when the deadline passed."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        if write_fd is not None:
            self._selector.register(write_fd, selectors.EVENT_WRITE, "stdin")
        began = time.perf_counter()
        try:
            events = self._selector.select(remaining)
        finally:
            self.wait_seconds += time.perf_counter() - began
            if write_fd is not None:
                self._selector.unregister(write_fd)
        for key, _ in events:
            if key.data == "stdout":
                self._read_stdout()
            elif key.data == "stderr":
                self._read_stderr()
        return True

    def _drain(self, timeout: float) -> None:
        for key, _ in self._selector.select(timeout):
            if key.data == "stdout":
                self._read_stdout()
            elif key.data == "stderr":
                self._read_stderr()

    def _final_read(self) -> None:
        """Collect what the dead process left in its pipes (stderr matters for the log)."""
        try:
            self._drain(0)
        except BotFailure:
            pass

    def _read_stdout(self) -> None:
        fd = self.popen.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                return
            except OSError as error:
                if error.errno == errno.EINTR:
                    continue
                chunk = b""
            if not chunk:
                self._stdout_open = False
                self._selector.unregister(fd)
                return
            self.output_bytes += len(chunk)
            if self.output_bytes > self.max_output_bytes:
                raise BotFailure("limit", f"wrote more than {self.max_output_bytes} bytes to stdout")
            self._split_lines(chunk)

    def _split_lines(self, chunk: bytes) -> None:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._partial += chunk[start:]
                if len(self._partial) > self.max_line_bytes:
                    raise BotFailure("protocol", f"line longer than {self.max_line_bytes} bytes")
                return
            piece = chunk[start:end]
            if self._partial:
                piece = bytes(self._partial) + piece
                self._partial.clear()
            if len(piece) > self.max_line_bytes:
                raise BotFailure("protocol", f"line longer than {self.max_line_bytes} bytes")
            self.lines.append(piece)
            start = end + 1

    def _read_stderr(self) -> None:
        fd = self.popen.stderr.fileno()
        # Bounded per call, so a stderr flood cannot starve the stdout we are waiting for.
        for _ in range(16):
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._selector.unregister(fd)
                return
            self.stderr.add(chunk)


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as handle:
        return int(handle.read().rsplit(b")", 1)[1].split()[1])


def pids_with_token(token: str) -> list[int]:
    """Live processes whose environment carries ``token`` (zombies have no environment)."""
    needle = f"ARENA_BOT_TOKEN={token}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as handle:
                if needle in handle.read():
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


def kill_by_token(token: str) -> int:
    """SIGKILL every process whose environment carries ``token`` (a double-forked child that
    left the process group included). Returns how many were signalled."""
    killed = 0
    for pid in pids_with_token(token):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except OSError:
            continue
    return killed
