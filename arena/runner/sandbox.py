"""The sandbox a bot runs in: which mode this machine offers, and everything needed to start one
bot process inside it.

Two modes:

* ``bubblewrap`` (the default; required for untrusted bots) — the bot sees the system
  directories, its interpreter and arena's pure game rules read-only, its own files read-only
  at ``/bot``, and nothing else of the host: nothing named on its command line or in its
  ``bot.toml``, no results, no other bots, no project checkout. Writable: a size-capped
  private home (its working directory) and ``/tmp``. Own PID namespace (``/proc`` shows only
  its processes, it is pid 1; its host-wide files that show the machine's load are synthetic,
  `arena.runner.hostview`), no network, own IPC and UTS namespaces; it dies with the harness.
  A seccomp filter (`arena.runner.seccomp`) denies the kernel interfaces a bot never needs.
* ``none`` — asked for explicitly (``--sandbox none``), for trusted bots only: no isolation;
  resource limits, a scratch directory and a minimal environment.

Resources are per bot, all its processes together, through a cgroup where the machine allows
it (`arena.runner.cgroups`): resident memory, processes, CPU (an equal share, capped); else
through rlimits per process. When the harness runs as root each bot process runs as an
unprivileged user of its own (`arena.runner.uids`). Where bubblewrap cannot run, untrusted
bots are refused with one line naming the fix (`SandboxUnavailable`).

Knows nothing of games or of the protocol.
"""

from __future__ import annotations

import ctypes
import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, fields
from pathlib import Path

from arena import scratch as scratch_folders
from arena import settings
from arena.runner import cgroups, files, hostview, privatefs, seccomp, uids
from arena.runner.freezing import SignalFreezer
from arena.runner.tokens import kill_by_token
from arena.runner.bots import BotCommand

MODES = ("bubblewrap", "none")
# Read-only system paths a bot may need: interpreters, shared libraries, certificates.
SYSTEM_PATHS = ("/usr", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
BOT_ROOT = "/bot"            # where a bot's own files are inside the sandbox
BOT_HOME = "/home/bot"       # its working directory and HOME inside the sandbox
ENGINE_ROOT = "/opt/arena"   # arena's pure game rules, importable as `arena.games`
INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap)"
_PR_SET_PDEATHSIG = 1


class SandboxUnavailable(RuntimeError):
    """This machine cannot sandbox bots in the mode asked for; the message names the fix."""


class BotChanged(RuntimeError):
    """A bot's files no longer have the content hash they were stored with."""


@dataclass(frozen=True)
class ResourceLimits:
    """Per-bot limits: all its processes together where cgroups allow, else per process."""

    memory_bytes: int = 1 << 30
    cpu_seconds: int = 300      # CPU time: per process without cgroups (rlimit; SIGXCPU at the
                                # limit); with a cgroup the match counts all its processes together
    processes: int = 64
    file_bytes: int = 16 << 20  # largest file it may write
    open_files: int = 256
    disk_bytes: int = 64 << 20  # its home and its /tmp, each (bubblewrap)
    cpus: float = 1.0           # CPU time per wall second, all processes together (cgroups)


@dataclass(frozen=True)
class Protections:
    """What the sandbox does on this machine; stored with every match."""

    mode: str                   # bubblewrap | none
    filesystem: str             # own-files-only | none
    network_isolated: bool
    pid_namespace: bool
    separate_user: bool
    resources: str              # cgroup v1 | cgroup v2 | rlimits
    memory: str                 # resident (cgroup) | address space (rlimit)

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}  # plain values: no deep copy


def _is_root() -> bool:
    return os.geteuid() == 0


# ---- which mode ------------------------------------------------------------------------------

def requested_mode() -> str:
    """The mode asked for with ``--sandbox`` / ``ARENA_SANDBOX`` (default: bubblewrap)."""
    try:
        return settings.sandbox_mode()
    except settings.SettingError as error:
        raise SandboxUnavailable(str(error)) from None


@functools.lru_cache(maxsize=None)
def _bubblewrap_problem() -> str | None:
    """None when bubblewrap runs here; else why not, in a few words."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed"
    if seccomp.problem():
        return seccomp.problem()
    probe = Sandbox(Protections("bubblewrap", "own-files-only", True, True, _is_root(),
                                "rlimits", "address space"), ResourceLimits())
    argv = probe.wrap(BotCommand("/bin/true", ("/bin/true",), "executable", "/bin"), None, uid=_probe_uid())
    try:
        done = subprocess.run(argv, capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as error:
        return f"bubblewrap does not start ({error})"
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return "bubblewrap does not work here (" + (reason[-1] if reason else f"exit {done.returncode}") + ")"
    return None


def _probe_uid() -> int | None:
    return uids.BOT_UID_BASE if _is_root() else None


def detect(mode: str | None = None) -> Protections:
    """The protections of ``mode`` (default: the requested one) on this machine.

    Raises `SandboxUnavailable` when bubblewrap is asked for and cannot run.
    """
    mode = mode or requested_mode()
    hierarchy = cgroups.available()
    resources = f"cgroup v{hierarchy.version}" if hierarchy else "rlimits"
    memory = "resident (cgroup)" if hierarchy else "address space (rlimit)"
    if mode == "none":
        return Protections("none", "none", False, False, False, resources, memory)
    problem = _bubblewrap_problem()
    if problem:
        raise SandboxUnavailable(f"cannot sandbox bots: {problem}; {INSTALL_HINT}, "
                                 "or pass --sandbox none to run trusted bots without a sandbox")
    return Protections("bubblewrap", "own-files-only", True, True, _is_root(), resources, memory)


# ---- staged copies ----------------------------------------------------------------------------

@dataclass(frozen=True)
class StagedBot:
    """A clean, read-only copy of a bot that the sandbox binds at ``/bot``."""

    command: BotCommand   # relocated into the copy
    content_hash: str
    engine: str | None = None  # arena's rules copied beside it (`privatefs`), else bound from the checkout


class StageCache:
    """Per-process copies of bots, made once per version (content) and reused for each match.

    Before each use the original's files are looked at again (names, sizes, inodes, change
    times); when anything changed its hash is computed again, so a changed stored copy is
    caught (`BotChanged`) before it plays.

    As root the folder is a tmpfs private to this process (`arena.runner.privatefs`), holding
    a copy of arena's rules too (``engine``), so that ``mountinfo`` in the sandbox shows no
    host path of them.
    """

    def __init__(self, folder: str | os.PathLike | None = None):
        self._folder = Path(folder) if folder else None
        self._by_path: dict[str, tuple[tuple, StagedBot]] = {}
        self._ready = False
        self._private = False
        self.engine: str | None = None

    @property
    def folder(self) -> Path:
        if self._folder is None:
            self._folder = scratch_folders.make(scratch_folders.STAGE, mode=0o755)
        elif not self._folder.exists():
            self._folder.mkdir(mode=0o755, parents=True)
        if self._private and not privatefs.owned():
            raise RuntimeError("staged copies on a private tmpfs are used by the thread that made them")
        if not self._ready:
            self._ready = True
            self._private = privatefs.mount_private(self._folder)
            if self._private:
                init_file, _ = _engine_sources()
                self.engine = str(privatefs.copy_engine(self._folder / ".engine", init_file.parent))
        return self._folder

    def stage(self, bot: BotCommand, expected_hash: str | None = None) -> StagedBot:
        root, entries = files.scan(bot.path)
        fingerprint = tuple((e.relative, e.kind, e.size, e.target, _stat_key(root, e)) for e in entries)
        cached = self._by_path.get(bot.path)
        if cached is not None and cached[0] == fingerprint:
            staged = cached[1]
        else:
            staged = self._copy(bot)
            self._by_path[bot.path] = (fingerprint, staged)
        if expected_hash is not None and staged.content_hash != expected_hash:
            raise BotChanged(f"the stored copy of {bot.path} has changed: sha256 {staged.content_hash[:12]},"
                             f" recorded {expected_hash[:12]}")
        return staged

    def _copy(self, bot: BotCommand) -> StagedBot:
        scratch = Path(tempfile.mkdtemp(prefix="copy-", dir=self.folder))
        target = scratch / "bot"
        digest = files.copy_bot(bot.path, target)
        final = self.folder / digest
        if final.exists():
            files.remove_tree(scratch)
        else:
            os.rename(target, final)
            os.rmdir(scratch)
        return StagedBot(relocate(bot, str(final)), digest, self.engine)

    def close(self) -> None:
        if self._folder is not None:
            if self._private:
                privatefs.unmount(self._folder)
            files.remove_tree(self._folder)
            self._folder = None
        self._ready = self._private = False
        self.engine = None
        self._by_path.clear()


def _stat_key(root: Path, entry: files.Entry) -> tuple:
    info = os.lstat(root if root.is_file() else root / entry.relative)
    return info.st_ino, info.st_mtime_ns, info.st_ctime_ns


def relocate(bot: BotCommand, new_root: str) -> BotCommand:
    """The same bot with its own files under ``new_root`` (words of its command follow)."""
    old = bot.root.rstrip("/")

    def move(word: str) -> str:
        if word == old:
            return new_root
        if word.startswith(old + "/"):
            return new_root + word[len(old):]
        return word

    is_file = os.path.isfile(bot.path) and not os.path.isdir(bot.path)
    path = os.path.join(new_root, os.path.basename(bot.path)) if is_file else new_root
    return BotCommand(path, tuple(move(word) for word in bot.argv), bot.language, new_root, bot.matches, bot.build,
                      bot.games)


# ---- one sandbox per bot version and worker -----------------------------------------------------

def _interpreter_prefixes() -> list[Path]:
    """Install folders of the interpreters arena runs bots with (Python, Node.js). Not the
    virtual environment arena runs in (`arena.runner.bots.python`)."""
    prefixes = {Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parent.parent}
    node = shutil.which("node") or shutil.which("nodejs")
    if node:
        prefixes.add(Path(os.path.realpath(node)).parent.parent)
    return sorted(prefixes)


def _engine_sources() -> tuple[Path, Path]:
    """arena's package ``__init__`` and its pure-rules ``games`` package, for bots to import."""
    package = Path(__file__).resolve().parents[1]
    return package / "__init__.py", package / "games"


def _engine_binds(engine: str | None) -> list[str]:
    """Bind arena's rules at ``ENGINE_ROOT``: the copy ``engine`` (an ``arena`` folder), else
    this checkout's."""
    if engine is not None:
        init_file, games = Path(engine) / "__init__.py", Path(engine) / "games"
    else:
        init_file, games = _engine_sources()
        if not games.is_dir():
            return []
    return ["--ro-bind", str(init_file), f"{ENGINE_ROOT}/arena/__init__.py",
            "--ro-bind", str(games), f"{ENGINE_ROOT}/arena/games"]


class Sandbox:
    """Builds the command line that starts a bot in the sandbox, and the per-process extras.

    Made once per set of limits and reused for every bot process (the bubblewrap argument list
    is computed once per staged bot).
    """

    def __init__(self, protections: Protections, limits: ResourceLimits):
        self.protections = protections
        self.limits = limits
        self._common: list[str] | None = None

    # -- the command line ---------------------------------------------------------------------

    def wrap(self, staged: BotCommand, scratch: Path | None, uid: int | None,
             extra_options: tuple[str, ...] = (), command: tuple[str, ...] | None = None,
             engine: str | None = None) -> list[str]:
        """The full argv for one process of ``staged`` (``scratch``: its home in mode none).

        Under bubblewrap these are bwrap's arguments; `Launch` hands them to bwrap through a
        file descriptor (``--args``), so that the sandbox's init process, which a bot can see
        as its pid 1, shows no host paths on its command line. ``engine``: arena's rules copied
        with the staged bot (`StagedBot.engine`), else those of this checkout are bound."""
        if self.protections.mode == "none":
            return list(command or staged.argv)
        inside = relocate(staged, BOT_ROOT)
        argv = self._bubblewrap_common(uid is not None) + [*_engine_binds(engine), "--ro-bind", staged.root, BOT_ROOT,
                                                           *extra_options, "--"]
        if uid is not None:
            argv += ["setpriv", f"--reuid={uid}", f"--regid={uids.BOT_GID}", "--clear-groups",
                     "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
        return argv + list(command or inside.argv)

    def _bubblewrap_common(self, privileged: bool) -> list[str]:
        if self._common is not None:
            return self._common
        size = str(self.limits.disk_bytes)
        argv = ["bwrap", "--die-with-parent", "--new-session"]
        if privileged:
            # As root, bwrap runs without a user namespace so it can bind what root can read;
            # `setpriv` then becomes the bot's own unprivileged user and drops every capability.
            argv += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                     "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        else:
            argv += ["--unshare-all"]
        made: set[str] = set()

        def parents(path: str) -> list[str]:
            # bwrap makes missing parents of a bind 0700, which the bot's user could not walk.
            words = []
            for parent in reversed(Path(path).parents):
                if str(parent) != "/" and str(parent) not in made:
                    made.add(str(parent))
                    words += ["--perms", "0755", "--dir", str(parent)]
            return words

        argv += ["--dev", "/dev", "--proc", "/proc",
                 "--perms", "01777", "--size", size, "--tmpfs", "/tmp",
                 "--perms", "01777", "--size", size, "--tmpfs", "/dev/shm",
                 *parents(BOT_HOME), "--perms", "0777", "--size", size, "--tmpfs", BOT_HOME,
                 *parents("/var/tmp"), "--symlink", "/tmp", "/var/tmp"]
        bound: list[Path] = []
        for path in [Path(p) for p in SYSTEM_PATHS] + _interpreter_prefixes():
            if not path.exists() or any(path == b or b in path.parents for b in bound):
                continue
            if path.is_symlink() and str(path) in SYSTEM_PATHS:
                argv += ["--symlink", os.readlink(path), str(path)]
            else:
                argv += [*parents(str(path)), "--ro-bind", str(path), str(path)]
            bound.append(path)
        argv += [*parents(f"{ENGINE_ROOT}/arena/games"), "--chdir", BOT_HOME]
        self._common = argv
        return argv

    # -- the environment ---------------------------------------------------------------------

    def environment(self, home: str, token: str) -> dict[str, str]:
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "TMPDIR": "/tmp" if self.protections.mode == "bubblewrap" else os.path.join(home, "tmp"),
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",  # a deterministic bot stays deterministic across runs
            "ARENA_BOT_TOKEN": token,  # how the harness finds a bot's processes without cgroups
        } | {"PYTHONPATH": ENGINE_ROOT if self.protections.mode == "bubblewrap" else str(_engine_sources()[1].parents[1])}

    # -- one process ---------------------------------------------------------------------------

    def launch(self, staged: StagedBot, token: str, work_folder: Path | None = None,
               owner_pid: int | None = None, extra_options: tuple[str, ...] = (),
               command: tuple[str, ...] | None = None) -> "Launch":
        """Everything needed to start one process of ``staged``: argv, environment, its group.

        ``extra_options`` are more bubblewrap options (mounts); ``command`` replaces the bot's
        own command (the build step uses both)."""
        return Launch(self, staged, token, work_folder, owner_pid, extra_options, command)


# Joins the bot's cgroups (v1: one per controller), then runs the rest of its arguments. A
# shell and util-linux's `prlimit` do in the child what Python code after fork would do
# (which is slow, and unsafe in a process with threads).
_JOIN_CGROUPS = ('for f; do shift; [ "$f" = -- ] && break; echo 0 > "$f" 2>/dev/null ||'
                 ' { echo "arena: cannot join the bot\'s cgroup $f" >&2; exit 125; }; done; exec "$@"')


def _rlimit_words(limits: ResourceLimits, cgroup: bool, own_user: bool) -> list[str]:
    """``prlimit`` options for the per-process limits (capped by this process's hard limits)."""
    def capped(kind: int, soft: int, hard: int | None = None) -> str:
        ceiling = resource.getrlimit(kind)[1]
        hard = soft if hard is None else hard
        if ceiling != resource.RLIM_INFINITY:
            soft, hard = min(soft, ceiling), min(hard, ceiling)
        return f"{soft}:{hard}"

    words = [f"--fsize={capped(resource.RLIMIT_FSIZE, limits.file_bytes)}",
             f"--nofile={capped(resource.RLIMIT_NOFILE, limits.open_files)}", "--core=0:0"]
    # With a cgroup the memory limit is on resident memory, all processes together; runtimes
    # that reserve much address space (the JVM, Go, V8) then start under the default limit.
    # The CPU time is counted there too (the match applies `cpu_seconds`): an RLIMIT_CPU would
    # make the kernel keep each process's CPU time per tick, so a bot reading its own CPU time
    # (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`) would see it in steps of 1-10 ms.
    if not cgroup:
        words.insert(0, f"--cpu={capped(resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1)}")
        words.append(f"--as={capped(resource.RLIMIT_AS, limits.memory_bytes)}")
        if own_user:
            # RLIMIT_NPROC counts every process of the real user id, so it bounds this bot
            # only when the bot has a user id of its own; a cgroup's pids.max does it better.
            words.append(f"--nproc={capped(resource.RLIMIT_NPROC, limits.processes)}")
    return words


class Launch:
    """One bot process's sandbox: its command line, environment, group, user and scratch.

    ``argv`` starts with what joins the bot's cgroup and sets its rlimits (a shell and
    ``prlimit``), then bubblewrap (whose options travel through a memfd, ``pass_fds``), then
    the bot. `kill` ends every process of the bot; `close` releases the rest.
    """

    def __init__(self, sandbox: Sandbox, staged: StagedBot, token: str, work_folder: Path | None,
                 owner_pid: int | None, extra_options: tuple[str, ...] = (), command: tuple[str, ...] | None = None):
        self.sandbox = sandbox
        self.protections = sandbox.protections
        self.limits = sandbox.limits
        self.token = token
        self.group: cgroups.BotGroup | None = None
        self.uid: uids.BotUid | None = None
        self.args_fd: int | None = None
        self.seccomp_fd: int | None = None
        self.data_fds: list[int] = []  # the synthetic /proc files bubblewrap copies in (`hostview`)
        self.scratch: Path | None = None
        self._python_preexec = False
        self._signal_freezer: SignalFreezer | None = None
        self._leader: int | None = None  # the process started (bubblewrap's outer process)
        self._confined = False
        try:
            hierarchy = cgroups.available()
            if hierarchy is not None:
                self.group = cgroups.BotGroup(hierarchy, cgroups.GroupLimits(
                    self.limits.memory_bytes, self.limits.processes, self.limits.cpus), owner_pid)
                self.group.create()
            if self.protections.separate_user:
                self.uid = uids.BotUid()
            if self.protections.mode == "none":
                self.scratch = scratch_folders.make(scratch_folders.SCRATCH, work_folder)
                (self.scratch / "tmp").mkdir()
                home = str(self.scratch)
            else:
                home = BOT_HOME
                masks, self.data_fds = hostview.bubblewrap_options(self.limits.memory_bytes)
                extra_options = (*masks, *extra_options)
            argv = sandbox.wrap(staged.command, self.scratch, self.uid.uid if self.uid else None,
                                extra_options, command, staged.engine)
            if self.protections.mode == "bubblewrap":
                self.args_fd = os.memfd_create("bwrap-args", 0)  # not close-on-exec: bwrap reads it
                self.seccomp_fd = seccomp.program_fd()  # the system calls it may not make
                split = argv.index("--")
                words = argv[1:split] + ["--seccomp", str(self.seccomp_fd)]
                os.write(self.args_fd, b"".join(word.encode() + b"\0" for word in words))
                os.lseek(self.args_fd, 0, os.SEEK_SET)
                argv = [argv[0], "--args", str(self.args_fd)] + argv[split:]
            prlimit = shutil.which("prlimit")
            if prlimit is None:
                self._python_preexec = True  # no util-linux here: limits are set after fork
            else:
                self._python_preexec = False
                argv = [prlimit, *_rlimit_words(self.limits, self.group is not None, self.uid is not None), "--", *argv]
                if self.group is not None:
                    argv = ["/bin/sh", "-c", _JOIN_CGROUPS, "arena-launch", *self.group.procs_files(), "--", *argv]
            self.argv = argv
            self.env = sandbox.environment(home, token)
            self.cwd = str(self.scratch) if self.scratch else "/"
        except BaseException:
            self.close()
            raise
        self._procs_files = self.group.procs_files() if self.group else []

    @property
    def preexec(self):
        """What runs in the child before exec: nothing, unless this machine has no ``prlimit``."""
        return self._preexec if self._python_preexec else None

    def _preexec(self) -> None:
        if self._procs_files:
            cgroups.join(self._procs_files)
        _apply_limits(self.limits, cgroup=self.group is not None, own_user=self.uid is not None)
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass

    # -- only the bot on move runs ------------------------------------------------------------

    def freeze(self) -> None:
        """Pause every process of the bot (its cgroup; without one, its process groups)."""
        if self.group is not None:
            if not self._confined and self._leader is not None and self.protections.mode == "bubblewrap":
                # Once, when it is first paused (the bot runs by then): the sandbox's own two
                # processes, which only wait, are left out of what is frozen and thawed.
                self._confined = True
                self.group.confine(_sandbox_processes(self._leader, self.group.members()))
            self.group.freeze()
        elif self._signal_freezer is not None:
            self._signal_freezer.freeze()

    def thaw(self) -> None:
        if self.group is not None:
            self.group.thaw()
        elif self._signal_freezer is not None:
            self._signal_freezer.thaw()

    @property
    def frozen(self) -> bool:
        if self.group is not None:
            return self.group.frozen
        return self._signal_freezer is not None and self._signal_freezer.frozen

    def cpu_ns(self) -> int | None:
        """CPU time of all the bot's processes so far (nanoseconds), or None without a cgroup."""
        return self.group.cpu_ns() if self.group is not None else None

    def kill(self, pid: int | None) -> None:
        """SIGKILL every process of the bot: its whole group, else its process group and every
        process carrying its token. A paused bot is thawed first."""
        if self.group is not None:
            self.group.kill()  # thaws first
            return
        if self._signal_freezer is not None:
            self._signal_freezer.thaw()
        if pid is not None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        for _ in range(100):
            if not kill_by_token(self.token):
                break

    def out_of_memory(self) -> bool:
        return self.group is not None and self.group.out_of_memory_kills() > 0

    def memory_peak(self) -> int:
        return self.group.memory_peak() if self.group is not None else 0

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return tuple(fd for fd in (self.args_fd, self.seccomp_fd) if fd is not None) + tuple(self.data_fds)

    def started(self, pid: int | None = None) -> None:
        """The process is running (as ``pid``): the arguments, the filter and the synthetic
        files were handed over."""
        if pid is not None:
            self._leader = pid
        if pid is not None and self.group is None:
            self._signal_freezer = SignalFreezer(self.token)
            self._signal_freezer.leader = pid
        for name in ("args_fd", "seccomp_fd"):
            if getattr(self, name) is not None:
                os.close(getattr(self, name))
                setattr(self, name, None)
        for fd in self.data_fds:
            os.close(fd)
        self.data_fds = []

    def close(self) -> None:
        """Remove the group, free the user id, remove the scratch directory (idempotent)."""
        self.started()
        if self.group is not None:
            self.group.kill()
            self.group.remove()
            self.group = None
        if self.uid is not None:
            self.uid.release()
            self.uid = None
        if self.scratch is not None:
            try:
                files.remove_tree(self.scratch)
            except OSError:
                pass
            self.scratch = None


def _sandbox_processes(leader: int, members: list[int]) -> set[int]:
    """bubblewrap's own processes among a bot's: the one started, and its child (the sandbox's
    init, pid 1 inside); the bot is that init's child."""
    found = {leader}
    for pid in members:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                if int(handle.read().rsplit(b")", 1)[1].split()[1]) == leader:
                    found.add(pid)
        except (OSError, ValueError, IndexError):
            continue
    return found


def _apply_limits(limits: ResourceLimits, cgroup: bool, own_user: bool) -> None:
    def cap(kind: int, value: int) -> None:
        soft, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY and value != resource.RLIM_INFINITY:
            value = min(value, hard)
        elif hard != resource.RLIM_INFINITY:
            value = hard
        resource.setrlimit(kind, (value, value))

    # With a cgroup the memory limit is on resident memory, all processes together; runtimes
    # that reserve much address space (the JVM, Go, V8) then start under the default limit.
    cap(resource.RLIMIT_AS, resource.RLIM_INFINITY if cgroup else limits.memory_bytes)
    # CPU: SIGXCPU at the soft limit (recognisable as the CPU limit), SIGKILL a second later;
    # with a cgroup the match counts it (see `_rlimit_words`).
    if not cgroup:
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        hard = limits.cpu_seconds + 1 if hard == resource.RLIM_INFINITY else min(hard, limits.cpu_seconds + 1)
        resource.setrlimit(resource.RLIMIT_CPU, (min(limits.cpu_seconds, hard), hard))
    cap(resource.RLIMIT_FSIZE, limits.file_bytes)
    cap(resource.RLIMIT_NOFILE, limits.open_files)
    cap(resource.RLIMIT_CORE, 0)
    if own_user and not cgroup:
        # RLIMIT_NPROC counts every process of the real user id, so it bounds this bot only
        # when the bot has a user id of its own; a cgroup's pids.max does it better.
        cap(resource.RLIMIT_NPROC, limits.processes)


__all__ = ["BOT_HOME", "BOT_ROOT", "BotChanged", "Launch", "MODES", "Protections", "ResourceLimits", "Sandbox",
           "SandboxUnavailable", "StageCache", "StagedBot", "detect", "relocate", "requested_mode"]
