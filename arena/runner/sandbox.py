"""The sandbox a bot process runs in: which protections this machine offers, and how to apply them.

Three modes, strongest first:

* ``bubblewrap`` — ``bwrap`` is installed and works: read-only system directories, the bot's
  own files read-only, a fresh scratch directory as the only writable place (plus a private
  ``/tmp``), no network, its own PID namespace (so every descendant dies with it), dies with
  the harness, a new session.
* ``unshare`` — no bubblewrap, but we are root: ``unshare`` gives a private network and PID
  namespace.
* ``limits-only`` — neither: resource limits, a scratch directory and a minimal environment.

In every mode the bot gets resource limits (memory, CPU seconds, processes, file size, open
files, no core files) and, when the harness runs as root, an unprivileged user id of its own.
Knows nothing of games or of the protocol.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from arena.runner.bots import BotCommand

# Unprivileged user ids for bots when the harness runs as root: one per (harness process,
# seat) so one bot's process limit never starves another bot running in parallel.
BOT_UID_BASE = 200_000
BOT_UID_SLOTS = 50_000
BOT_GID = 65534  # nogroup

# Read-only system paths a bot may need: interpreters, shared libraries, certificates.
SYSTEM_PATHS = ("/usr", "/etc", "/opt", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")


@dataclass(frozen=True)
class ResourceLimits:
    """Per-bot-process kernel limits (``setrlimit``)."""

    memory_bytes: int = 1 << 30  # address space
    cpu_seconds: int = 300
    processes: int = 64  # only enforceable with a uid of the bot's own
    file_bytes: int = 16 << 20
    open_files: int = 256


@dataclass(frozen=True)
class Protections:
    """What the sandbox can do on this machine; stored with every match."""

    mode: str  # bubblewrap | unshare | limits-only
    network_isolated: bool
    filesystem: str  # read-only | user-permissions | none
    pid_namespace: bool
    separate_user: bool
    resource_limits: bool = True
    scratch_directory: bool = True
    minimal_environment: bool = True

    def as_dict(self) -> dict:
        return asdict(self)


def _is_root() -> bool:
    return os.geteuid() == 0


@functools.lru_cache(maxsize=1)
def _bubblewrap_works() -> bool:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = BotCommand("/", ("true",), "executable", "/")
    scratch = Path(tempfile.mkdtemp(prefix="arena-probe-"))
    uid = bot_uid(0) if _is_root() else None
    argv = _bubblewrap_argv(probe, scratch, uid)
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _drop_privileges(uid: int = BOT_UID_BASE) -> None:
    os.setgroups([])
    os.setgid(BOT_GID)
    os.setuid(uid)


@functools.lru_cache(maxsize=1)
def detect_protections() -> Protections:
    """Probe this machine once per process and report the strongest available mode."""
    root = _is_root()
    if _bubblewrap_works():
        return Protections("bubblewrap", True, "read-only", True, root)
    if root and shutil.which("unshare"):
        return Protections("unshare", True, "user-permissions", True, True)
    return Protections("limits-only", False, "user-permissions" if root else "none", False, root)


def bot_uid(seat: int) -> int:
    """A user id of the bot's own, stable for this harness process and seat."""
    return BOT_UID_BASE + ((os.getpid() * 8 + seat) % BOT_UID_SLOTS)


def _readable_paths(bot: BotCommand) -> list[Path]:
    paths = [Path(p) for p in SYSTEM_PATHS if os.path.exists(p)]
    for prefix in {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}:
        paths.append(Path(prefix))
    paths.append(Path(bot.root))
    for word in bot.argv:
        if os.path.isabs(word) and os.path.exists(word):
            paths.append(Path(os.path.realpath(word)).parent)
    return paths


def _bubblewrap_argv(bot: BotCommand, scratch: Path, uid: int | None) -> list[str]:
    """The bwrap command line.

    As root, bwrap runs privileged (no user namespace) so it can bind paths such as a Python
    installed under ``/root``, and ``setpriv`` then switches to the bot's own unprivileged
    user, which drops every capability. Otherwise bwrap makes a user namespace itself.
    """
    argv = ["bwrap", "--die-with-parent", "--new-session"]
    if uid is None:
        argv += ["--unshare-all"]
    else:
        argv += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                 "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--dir", "/var/tmp"]
    bound: list[Path] = []
    made: set[Path] = set()
    for path in sorted(set(_readable_paths(bot)), key=lambda p: len(p.parts)):
        if any(path == b or b in path.parents for b in bound):
            continue
        if path.is_symlink() and str(path) in SYSTEM_PATHS:
            argv += ["--symlink", os.readlink(path), str(path)]
            bound.append(path)
            continue
        # Only bound paths exist in the sandbox; their parents are created walkable (bwrap
        # would make them 0700), so e.g. /root shows nothing but the Python inside it.
        for parent in reversed(path.parents):
            if parent != Path("/") and parent not in made:
                argv += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        argv += ["--ro-bind", str(path), str(path)]
        bound.append(path)
    for parent in reversed(scratch.parents):
        if parent not in (Path("/"), Path("/tmp")) and parent not in made:
            argv += ["--perms", "0755", "--dir", str(parent)]
            made.add(parent)
    argv += ["--bind", str(scratch), str(scratch), "--chdir", str(scratch), "--setenv", "HOME", str(scratch), "--"]
    if uid is not None:
        argv += ["setpriv", f"--reuid={uid}", f"--regid={BOT_GID}", "--clear-groups", "--"]
    return argv + list(bot.argv)


def _unshare_argv(bot: BotCommand, uid: int) -> list[str]:
    return ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount", "--mount-proc",
            "--setgid", str(BOT_GID), "--setuid", str(uid), "--"] + list(bot.argv)


@dataclass
class PreparedBot:
    """Everything ``subprocess.Popen`` needs to start a sandboxed bot."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    scratch: Path
    preexec: object  # a callable run in the child before exec
    protections: Protections
    staging: Path | None = None  # a readable copy of the bot, when its own files were not

    def remove_directories(self) -> None:
        """Remove the scratch directory (and the staged copy of the bot, if any)."""
        for path in (self.scratch, self.staging):
            if path is not None:
                shutil.rmtree(path, ignore_errors=True)


def prepare(bot: BotCommand, seat: int, token: str, limits: ResourceLimits,
            protections: Protections | None = None) -> PreparedBot:
    """Create the scratch directory and the command line for one bot process."""
    protections = protections or detect_protections()
    scratch = Path(tempfile.mkdtemp(prefix=f"arena-seat{seat}-"))
    uid = bot_uid(seat) if protections.separate_user else None
    staging = None
    if uid is not None:
        os.chown(scratch, uid, BOT_GID)
        if not _reachable_by_others(bot, walk_parents=protections.mode != "bubblewrap"):
            bot, staging = _stage(bot)
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(scratch),
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",  # a deterministic bot stays deterministic across runs
        "ARENA_BOT_TOKEN": token,  # lets the harness find every process of this bot
    }
    if protections.mode == "bubblewrap":
        argv = _bubblewrap_argv(bot, scratch, uid)
    elif protections.mode == "unshare":
        argv = _unshare_argv(bot, uid)
    else:
        argv = list(bot.argv)

    def preexec() -> None:
        _apply_limits(limits, own_user=uid is not None)
        if uid is not None and protections.mode == "limits-only":
            _drop_privileges(uid)

    return PreparedBot(argv, env, str(scratch), scratch, preexec, protections, staging)


def _reachable_by_others(bot: BotCommand, walk_parents: bool) -> bool:
    """Whether a user of its own can read every file of the bot (and walk to it)."""
    root = Path(bot.root)
    files = [Path(word) for word in bot.argv[1:] if word.startswith(bot.root)] or [Path(bot.path)]
    if Path(bot.path).is_dir():
        files = [Path(folder) / name for folder, _, names in os.walk(bot.path) for name in names]
    folders = {f.parent for f in files} | ({root} if root.is_dir() else set())
    if walk_parents:
        folders |= {p for f in files for p in f.parents}
    return (all(os.stat(f).st_mode & 0o004 for f in files)
            and all(os.stat(d).st_mode & 0o005 == 0o005 for d in folders if d != Path("/")))


def _stage(bot: BotCommand) -> tuple[BotCommand, Path]:
    """Copy a bot its user could not read into a world-readable folder; returns the new command."""
    staging = Path(tempfile.mkdtemp(prefix="arena-bot-"))
    source = Path(bot.path)
    target = staging / source.name
    if source.is_dir():
        shutil.copytree(source, target, symlinks=True)
        old_root, new_root = str(source), str(target)
    else:
        shutil.copy2(source, target)
        old_root, new_root = str(source), str(target)
    for folder, dirs, names in os.walk(staging):
        os.chmod(folder, 0o755)
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755 if os.stat(path).st_mode & 0o100 else 0o644)
    argv = tuple(word.replace(old_root, new_root, 1) if word.startswith(old_root) else word for word in bot.argv)
    root = new_root if source.is_dir() else str(staging)
    return BotCommand(new_root, argv, bot.language, root), staging


def _apply_limits(limits: ResourceLimits, own_user: bool) -> None:
    def cap(kind: int, value: int) -> None:
        soft, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, value))

    cap(resource.RLIMIT_AS, limits.memory_bytes)
    # CPU: SIGXCPU at the soft limit (recognisable as the CPU limit), SIGKILL a second later.
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    hard = limits.cpu_seconds + 1 if hard == resource.RLIM_INFINITY else min(hard, limits.cpu_seconds + 1)
    resource.setrlimit(resource.RLIMIT_CPU, (min(limits.cpu_seconds, hard), hard))
    cap(resource.RLIMIT_FSIZE, limits.file_bytes)
    cap(resource.RLIMIT_NOFILE, limits.open_files)
    cap(resource.RLIMIT_CORE, 0)
    if own_user:
        # RLIMIT_NPROC counts every process of the real user id, so it only bounds this
        # bot when the bot has a user id of its own.
        cap(resource.RLIMIT_NPROC, limits.processes)
