"""One bot process: start it in its sandbox, exchange JSON lines under deadlines, stop it for good.

The harness never blocks on a bot: stdin, stdout and stderr are non-blocking pipes served by
one ``selectors`` loop (with the process's pidfd, so an exit wakes it at once), so a bot that
stops reading, floods its output or hangs only ever costs its own deadline. Every failure
surfaces as a ``BotFailure`` carrying the status the match records (timeout, crash, protocol,
limit). `stop` ends every process of the bot (through its cgroup where there is one), reaps,
and releases the sandbox; it may be called any number of times. Knows nothing of games.
"""

from __future__ import annotations

import errno
import fcntl
import os
import selectors
import signal
import struct
import subprocess
import termios
import time
from dataclasses import dataclass, field

from arena.runner import errorline
from arena.runner.tokens import pids_with_token
from arena.text import printable

STDERR_HEAD = 32 * 1024
STDERR_TAIL = 32 * 1024
ABANDON_CHECK_S = 0.25  # how often a slow reply is checked for a bot that closed its stdout
CRASH_SETTLE_S = 0.5    # how long a dying bot is given to finish dying, to classify its end
READ_CHUNK = 1 << 16
STDERR_BURST = 16       # reads of stderr per wake-up, so a flood cannot starve stdout
SETTLE_FIRST_S = 0.0002  # after `end`: the first pause between looks at a bot (doubling ...)
SETTLE_MAX_PAUSE_S = 0.01  # ... up to this), until it waits for its next message
# Where a sleeping task of a bot waits when it waits for input (kernel function names, as
# /proc/<pid>/wchan shows them; a pipe read is `pipe_read`, or `anon_pipe_read` on 6.x).
INPUT_WAITS = ("pipe_read", "poll", "select")

# What a program prints when an allocation fails (without cgroups: under the address-space limit).
OUT_OF_MEMORY_SIGNS = ("MemoryError", "out of memory", "Cannot allocate memory", "bad_alloc",
                       "heap out of memory", "Fatal process out of memory", "failed to allocate",
                       "OutOfMemoryError")
MAX_SIGNAL = 64


class BotFailure(Exception):
    """The bot broke the protocol or a limit; ``status`` is what the match records."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class DeadlinePassed(BotFailure):
    """The deadline given to `send_line` or `receive` passed (a ``timeout``, unless the
    caller's clock says the bot may go on: the CPU clock waits in several deadlines)."""

    def __init__(self, message: str):
        super().__init__("timeout", message)


@dataclass
class StderrCapture:
    """Keeps the first and the last 32 KiB of a stream and counts what was dropped.

    Bytes are numbered from the process's first one (``total`` is the next number, never
    reset), so that a match can cut the stream into its decisions (`piece`)."""

    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    total: int = 0  # bytes ever added (cleared or not): tells whether a read found anything
    start: int = 0  # the number of the first byte of ``head`` (bytes before it were cleared)

    def add(self, data: bytes) -> None:
        self.total += len(data)
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

    def piece(self, begin: int, end: int) -> str:
        """What is kept of bytes ``begin`` to ``end`` (numbers as in ``total``): the bytes of
        one decision, with a note where the middle of the stream was dropped."""
        head_end = self.start + len(self.head)
        tail_begin = self.total - len(self.tail)
        parts = []
        if begin < head_end:
            parts.append(bytes(self.head[max(0, begin - self.start):min(end, head_end) - self.start]))
        lost = min(end, tail_begin) - max(begin, head_end)
        if lost > 0:
            parts.append(f"\n[... {lost} bytes of stderr dropped ...]\n".encode())
        if end > tail_begin and end > head_end:
            parts.append(bytes(self.tail[max(begin, tail_begin, head_end) - tail_begin:end - tail_begin]))
        return b"".join(parts).decode("utf-8", "replace")

    def last_line(self, limit: int = 300) -> str:
        """The line that explains a crash (the exception's line for the usual runtimes, see
        `arena.runner.errorline`), printable and cut."""
        data = bytes(self.head[-8192:]) + b"\n" + bytes(self.tail[-16384:]) if self.tail else bytes(self.head)
        line = errorline.meaningful_line(data.decode("utf-8", "replace"))
        line = printable(line, keep_newlines=False)
        return line if len(line) <= limit else line[:limit] + "..."

    def clear(self) -> None:
        self.head.clear()
        self.tail.clear()
        self.dropped = 0
        self.start = self.total


def exit_text(status: int, signal_coded: bool) -> str:
    """Words for an exit status: negative = killed by that signal; with ``signal_coded``, a
    code above 128 that names a signal is read as one (bubblewrap reports 128 + N)."""
    if signal_coded and 128 < status <= 128 + MAX_SIGNAL:
        status = -(status - 128)
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"killed by {name}"
    return f"exited with code {status}"


class BotProcess:
    """A running bot. ``start``, then ``send`` and ``receive`` per message, then ``stop``.

    ``launch`` is what the sandbox built for this process (`arena.runner.sandbox.Launch`:
    argv, environment, its group; `kill`, `close`). The transport sits below the sandbox
    and does not import it.
    """

    def __init__(self, launch, max_line_bytes: int, max_output_bytes: int, label: str = "bot"):
        self.launch = launch
        self.label = label
        self.max_line_bytes = max_line_bytes
        self.max_output_bytes = max_output_bytes
        self.token = launch.token
        self.memory_limit = launch.limits.memory_bytes
        self.stderr = StderrCapture()
        self.output_bytes = 0
        self.lines: list[bytes] = []  # complete lines read but not yet consumed
        self._partial = bytearray()
        self._stdout_open = True
        self._stderr_open = True
        self.popen: subprocess.Popen | None = None
        self.exit_status: int | None = None
        self.peak_rss_kib = 0
        self.wait_seconds = 0.0  # time spent blocked waiting for the bot (for benchmarks)
        self._selector: selectors.BaseSelector | None = None
        self._pidfd: int | None = None
        self._stopped = False
        self.started_at = 0.0
        self._abandon_check_at: float | None = None  # while a reply is awaited

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> None:
        launch = self.launch
        try:
            self.popen = subprocess.Popen(
                launch.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=launch.cwd, env=launch.env, preexec_fn=launch.preexec, start_new_session=True,
                close_fds=True, pass_fds=launch.pass_fds)
        except (OSError, subprocess.SubprocessError) as error:
            launch.close()
            self._stopped = True
            reason = getattr(error, "strerror", None) or str(error)
            raise BotFailure("crash", f"could not start {launch.argv[0]}: {reason}") from None
        launch.started(self.popen.pid)
        self.started_at = time.monotonic()
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            os.set_blocking(stream.fileno(), False)
        self._stdout_inode = os.fstat(self.popen.stdout.fileno()).st_ino
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.popen.stdout.fileno(), selectors.EVENT_READ, "stdout")
        self._selector.register(self.popen.stderr.fileno(), selectors.EVENT_READ, "stderr")
        try:
            self._pidfd = os.pidfd_open(self.popen.pid)
            self._selector.register(self._pidfd, selectors.EVENT_READ, "exit")
        except (AttributeError, OSError):
            self._pidfd = None  # old kernel: exits are noticed by polling

    # -- only the bot on move runs (the sandbox's group, or its process groups) -----------

    def freeze(self) -> None:
        """Pause every process of the bot until `thaw` (a no-op before start and after stop)."""
        if self.popen is not None and not self._stopped:
            self.launch.freeze()

    def thaw(self) -> None:
        if self.popen is not None and not self._stopped:
            self.launch.thaw()

    def cpu_ns(self) -> int | None:
        """CPU time of all the bot's processes so far, in nanoseconds (None: not readable here)."""
        return self.launch.cpu_ns()

    @property
    def alive(self) -> bool:
        return self.popen is not None and not self._stopped and self._reap() is None

    def stop(self) -> None:
        """End every process of the bot, reap it, collect its stderr, release the sandbox.

        Safe to call twice, and on a process that never started.
        """
        if self._stopped:
            return
        self._stopped = True
        try:
            if self.popen is not None:
                self.launch.thaw()  # a paused process is woken before anything else is done to it
                self._close_stdin()
                if self._reap() is None or self.launch.group is not None:
                    self.launch.kill(self.popen.pid)
                self._reap_blocking()
                self._final_read()
        finally:
            self._close_pipes()
            self.launch.close()

    def _reap_blocking(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while self._reap() is None:
            if time.monotonic() >= deadline:
                try:
                    os.kill(self.popen.pid, signal.SIGKILL)
                except OSError:
                    pass
                deadline = time.monotonic() + timeout
            self._wait_exit_event(0.05)

    def _close_pipes(self) -> None:
        if self._selector is not None:
            try:
                self._selector.close()
            except (OSError, ValueError):
                pass
        if self._pidfd is not None:
            try:
                os.close(self._pidfd)
            except OSError:
                pass
            self._pidfd = None
        if self.popen is not None:
            for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass

    def _close_stdin(self) -> None:
        try:
            self.popen.stdin.close()
        except (OSError, ValueError):
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

    def _wait_exit_event(self, timeout: float) -> None:
        if self._pidfd is not None:
            try:
                selectors.select.select([self._pidfd], [], [], timeout)
                return
            except (OSError, ValueError):
                pass
        time.sleep(min(timeout, 0.005))

    # -- messages -----------------------------------------------------------------------

    def send_line(self, data: bytes, deadline: float, thaw: bool = False) -> None:
        """Write one line; the bot must take it before ``deadline`` (monotonic seconds).

        With ``thaw`` the bot is thawed once the line is in the pipe (or as soon as the pipe
        is full): written while the bot is frozen, the line wakes it only once, with the thaw
        (a wake-up costs microseconds, more in a virtual machine)."""
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
                if thaw:
                    self.launch.thaw()  # so that a bot that is dying can finish (see `_crash`)
                raise self._crash("closed its stdin") from None
            if thaw:
                self.launch.thaw()
                thaw = False
            # The bot is not reading: keep serving its output while we wait for room.
            if not self._wait(deadline, write_fd=fd):
                raise DeadlinePassed("did not read its input in time")
        if thaw:
            self.launch.thaw()

    def receive(self, deadline: float) -> bytes:
        """The next complete line from the bot, without the newline. A caller may wait for one
        line in several calls (a clock that looks at the CPU time in between): the checks for
        an abandoned stdout keep their pace across them."""
        if self._abandon_check_at is None:
            self._abandon_check_at = time.monotonic() + ABANDON_CHECK_S
        while not self.lines:
            if not self._stdout_open:
                raise self._crash("closed its stdout")
            now = time.monotonic()
            if now >= self._abandon_check_at:
                if self._stdout_abandoned():
                    raise self._crash("closed its stdout")
                self._abandon_check_at = now + ABANDON_CHECK_S
            if not self._wait(min(deadline, self._abandon_check_at)) and time.monotonic() >= deadline:
                # A reply already sitting in the pipe came in time, even if we look late
                # (seats are read one after the other).
                self._drain(0)
                if not self.lines:
                    raise DeadlinePassed("no reply in time")
        self._abandon_check_at = None
        return self.lines.pop(0)

    def _stdout_abandoned(self) -> bool:
        """True when no process of the bot holds its stdout any more.

        The sandbox's own outer process keeps a copy of the pipe, so a bot that closes stdout
        but keeps running never produces end-of-file; look at who holds it. A bot whose
        processes cannot be seen yet (its sandbox is still starting) has not abandoned it.
        """
        if self.launch.protections.mode != "bubblewrap":
            return False  # the bot's own processes are the only holders: EOF tells
        target = f"pipe:[{self._stdout_inode}]"
        bot_pids = self._bot_pids()
        if not bot_pids:
            return False
        for pid in bot_pids:
            try:
                if any(os.readlink(f"/proc/{pid}/fd/{fd}") == target for fd in os.listdir(f"/proc/{pid}/fd")):
                    return False
            except OSError:
                return False  # cannot tell (it is changing): assume held
        return True

    def _members(self) -> list[int]:
        """Every process of the bot that this machine shows (the sandbox's own included)."""
        return _group_pids(self.launch.group) if self.launch.group is not None else pids_with_token(self.token)

    def _bot_pids(self, members: list[int] | None = None) -> list[int]:
        """The bot's own processes: under bubblewrap, not the sandbox's two (bwrap outside and
        the init inside, a child of the first)."""
        members = self._members() if members is None else members
        if self.launch.protections.mode != "bubblewrap":
            return members
        wrapper = self.popen.pid
        return [pid for pid in members if pid != wrapper and _parent_of(pid) != wrapper]

    def wait_for_exit(self, deadline: float) -> bool:
        """Serve output until the process exits or ``deadline`` passes; True if it exited."""
        try:
            while self._reap() is None and time.monotonic() < deadline:
                self._drain(max(0.0, min(0.05, deadline - time.monotonic())))
        except BotFailure:
            pass  # over a limit while quitting: it is being stopped anyway
        return self.exit_status is not None

    def has_unrequested_output(self, within: float = 0.0) -> bool:
        """True if the bot wrote a line beyond its reply (waiting up to ``within`` seconds)."""
        if within <= 0:
            # Asked twice per decision: one non-blocking read of stdout, no poll (stderr and
            # an exit are served by the next wait).
            if not self.lines and self._stdout_open:
                self._read_stdout()
            return bool(self.lines)
        deadline = time.monotonic() + within
        self._drain(0)
        while not self.lines and self._stdout_open and time.monotonic() < deadline:
            self._drain(max(0.0, deadline - time.monotonic()))
        return bool(self.lines)

    def _crash(self, what: str) -> BotFailure:
        """The failure of a bot that stopped talking: its exit, memory, or signal named."""
        self.wait_for_exit(time.monotonic() + CRASH_SETTLE_S)
        status = self.exit_status
        if self._out_of_memory():
            return BotFailure("limit", f"ran out of memory (limit {self.memory_limit >> 20} MiB); {what}")
        if status is None:
            return BotFailure("crash", what)
        signal_coded = self.launch.protections.mode == "bubblewrap"
        if status == -signal.SIGXCPU or (signal_coded and status == 128 + signal.SIGXCPU):
            return BotFailure("timeout", "used up its CPU time limit")
        explanation = self.stderr.last_line()
        return BotFailure("crash", f"{what}: {exit_text(status, signal_coded)}"
                          + (f" (stderr: {explanation})" if explanation else ""))

    def _out_of_memory(self) -> bool:
        if self.launch.group is not None:
            return self.launch.out_of_memory()
        if self.peak_rss_kib * 1024 >= 0.9 * self.memory_limit:
            return True
        tail = bytes(self.stderr.tail or self.stderr.head)[-4096:].decode("utf-8", "replace")
        return any(sign in tail for sign in OUT_OF_MEMORY_SIGNS)

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
        self._serve(events)
        return True

    def _drain(self, timeout: float) -> None:
        self._serve(self._selector.select(timeout))

    def _serve(self, events) -> None:
        for key, _ in events:
            if key.data == "stdout":
                self._read_stdout()
            elif key.data == "stderr":
                self._read_stderr()
            elif key.data == "exit":
                self._selector.unregister(key.fd)  # reaped where it matters; never wake again
                self._reap()
                self._drain_after_exit()

    def _drain_after_exit(self) -> None:
        """The process is gone: take what is left in its pipes (its sandbox may keep them open)."""
        if self._stdout_open:
            self._read_stdout()
        if self._stderr_open:
            self._read_stderr()

    def _final_read(self) -> None:
        """Collect what the dead process left in its pipes (stderr matters for the log)."""
        try:
            self._drain(0)
        except (BotFailure, OSError, ValueError):
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
                self._unregister(fd)
                return
            self.output_bytes += len(chunk)
            if self.output_bytes > self.max_output_bytes:
                raise BotFailure("limit", f"wrote more than {self.max_output_bytes} bytes to stdout")
            self._split_lines(chunk)

    def _unregister(self, fd: int) -> None:
        try:
            self._selector.unregister(fd)
        except (KeyError, ValueError):
            pass

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

    def stderr_mark(self) -> int:
        """Read what the bot has written to stderr so far and return the number of the next
        byte (`StderrCapture.piece`): called while the bot waits (frozen, or reading its
        input), everything before the mark was written before now."""
        if self._stderr_open and self.popen is not None and not self._stopped:
            try:
                for _ in range(64):  # a bot writing on and on is cut at 64 MiB: the rest is the next piece's
                    before = self.stderr.total
                    self._read_stderr()
                    if self.stderr.total == before or not self._stderr_open:
                        break
            except (OSError, ValueError):
                pass
        return self.stderr.total

    def _read_stderr(self) -> None:
        fd = self.popen.stderr.fileno()
        for _ in range(STDERR_BURST):
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._stderr_open = False
                self._unregister(fd)
                return
            self.stderr.add(chunk)

    # -- between matches (reuse) --------------------------------------------------------

    def settle(self, deadline: float) -> bool:
        """After ``end``: serve the bot until it has taken every line it was sent and waits for
        the next one, nothing of it running — then all it wrote while it handled the match is
        read (and belongs to the match). True when it waits so; False when it ended, closed
        its stdout, wrote to stdout, went over a limit or was still busy at ``deadline``."""
        pause = SETTLE_FIRST_S
        try:
            while True:
                self._drain(0)
                if self._reap() is not None or not self._stdout_open or self.lines:
                    return False
                if not self._stdin_unread() and self._waiting_for_input():
                    # Whatever it wrote before it began to wait is in its pipes by now.
                    before = (self.stderr.total, self.output_bytes)
                    self._read_stderr()
                    self._read_stdout()
                    if (self.stderr.total, self.output_bytes) == before:
                        return not self.lines
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._drain(min(pause, remaining))  # wakes at once on output or exit
                pause = min(pause * 2, SETTLE_MAX_PAUSE_S)
        except (BotFailure, OSError, ValueError):
            return False

    def _stdin_unread(self) -> int:
        """Bytes sent to the bot that it has not read yet."""
        try:
            return struct.unpack("i", fcntl.ioctl(self.popen.stdin.fileno(), termios.FIONREAD, b"\0" * 4))[0]
        except (OSError, ValueError):
            return 0

    def _waiting_for_input(self) -> bool:
        """True when no task of the bot runs and one waits for input (a pipe read or a poll).

        Where the kernel does not say where a task sleeps, a sleeping task is taken as waiting;
        where it shows none of the bot's processes, that the bot took all its input is all there
        is to go on."""
        members = self._members()
        if not members:
            return self._reap() is None
        waiting = False
        for pid in self._bot_pids(members):
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue  # gone: an exit is noticed through its pidfd
            for tid in tids:
                state, wchan = _task_state(pid, tid)
                if state in ("Z", "X", ""):
                    continue
                if state not in ("S", "I"):
                    return False  # running, in the disk's queue, or stopped: not done yet
                if wchan in ("", "0") or any(name in wchan for name in INPUT_WAITS):
                    waiting = True
        return waiting

    def ready(self) -> bool:
        """A kept process may be given its next match: it runs, and its stdout is open and
        holds nothing (checked without waiting)."""
        if not self.alive:
            return False
        try:
            if self.has_unrequested_output():
                return False
        except BotFailure:
            return False
        return self._stdout_open

    def reset_for_next_match(self) -> None:
        """A reused process starts its next match with fresh counters and stderr. What it wrote
        to stderr while it waited between matches belongs to no match and is dropped."""
        try:
            for _ in range(64):
                before = self.stderr.total
                self._read_stderr()
                if self.stderr.total == before:
                    break
        except (OSError, ValueError):
            pass
        self.stderr.clear()
        self.output_bytes = 0


def _parent_of(pid: int) -> int:
    """The parent pid (0 when the process is gone): bwrap's own init has bwrap as parent."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _group_pids(group) -> list[int]:
    """The processes of a bot's cgroup, from one controller's list (each holds all of them)."""
    for folder in group.folders.values():
        try:
            with open(os.path.join(folder, "cgroup.procs"), "rb") as handle:
                return [int(word) for word in handle.read().split()]
        except (OSError, ValueError):
            continue
    return []


def _task_state(pid: int, tid: str) -> tuple[str, str]:
    """(state letter, kernel function it sleeps in) of one task; ("", "") when it is gone."""
    try:
        with open(f"/proc/{pid}/task/{tid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return "", ""
    if state not in ("S", "I"):
        return state, ""
    try:
        with open(f"/proc/{pid}/task/{tid}/wchan") as handle:
            return state, handle.read().strip()
    except OSError:
        return state, ""
