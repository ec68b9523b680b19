"""Control groups for bots: memory, processes and CPU for all of a bot's processes together.

Each bot process tree gets a group of its own (v1: one per controller, as on machines with
separate ``memory``, ``pids``, ``cpu``, ``cpuacct`` and ``freezer`` mounts; v2: one group in
the unified tree), created below the harness's own group, named ``arena-<harness pid>-<n>``
so that groups of harness processes running at the same time never collide. On a hybrid
machine (v1 controllers plus a cgroup2 tree mounted beside them, e.g. at
``/sys/fs/cgroup/unified``) the bot also joins a group in the cgroup2 tree: it needs no
controller there and gives the cheap ``cgroup.freeze`` and ``cgroup.kill``.

The group is how a bot is paused while it is not deciding (`freeze`, `thaw`: v2
``cgroup.freeze``, about 5 µs a write, else the v1 freezer, about 150 µs), how the CPU time
of all its processes together is read (`cpu_ns`: v1 ``cpuacct.usage``, else v2 ``cpu.stat``;
through a descriptor kept open, about 1-2 µs), and how it is killed: thawed first, then v2
``cgroup.kill``, else freeze, SIGKILL every member, thaw — no process escapes by changing
its session, process group, pid or environment.

Needs write access to the cgroup file system (root, or a delegated v2 subtree);
`available()` says whether this machine has it, and the sandbox falls back to rlimits
when it does not. Knows nothing of bots or games.
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from arena import settings
from arena.pids import alive as process_alive

CGROUP_ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")
V1_REQUIRED = ("memory", "pids", "cpu")
V2_REQUIRED = ("memory", "pids", "cpu")
CPU_PERIOD_US = 100_000
PREFIX = "arena-"
UNIFIED = "unified"  # the key of the cgroup2 folder in `Hierarchy.bases` and `BotGroup.folders`
CONFINED = "bot"     # the cgroup2 child group that `BotGroup.confine` moves the bot's own processes to
_counter = itertools.count()


class CgroupError(OSError):
    """The cgroup file system refused an operation."""


@dataclass(frozen=True)
class Hierarchy:
    """Where this process may create bot groups: cgroup v1 (a folder per controller) or v2."""

    version: int
    bases: dict  # controller -> folder under which groups are made (v2: one entry "unified")

    def describe(self) -> str:
        if self.version == 2:
            return f"cgroup v2 ({self.bases[UNIFIED]})"
        hybrid = f" + cgroup v2 ({self.bases[UNIFIED]})" if UNIFIED in self.bases else ""
        return "cgroup v1 (" + ", ".join(sorted(c for c in self.bases if c != UNIFIED)) + ")" + hybrid

    def freezer(self) -> str | None:
        """How bots are paused: "cgroup v2" (``cgroup.freeze``), "cgroup v1" or None."""
        if UNIFIED in self.bases:
            return "cgroup v2"
        return "cgroup v1" if "freezer" in self.bases else None

    def cpu_counter(self) -> str | None:
        """Where the CPU time of a bot's processes is read, or None."""
        if "cpuacct" in self.bases:
            return "cgroup v1 cpuacct.usage"
        return "cgroup v2 cpu.stat" if UNIFIED in self.bases else None


def _own_paths() -> dict[str, str]:
    """controller (v1) or "" (v2) -> this process's group path, from /proc/self/cgroup."""
    paths = {}
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path
    return paths


def _mounts() -> dict[str, Path]:
    """controller -> mount point of its v1 hierarchy, plus "" -> the v2 mount, if any."""
    found: dict[str, Path] = {}
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(fields) < 5 or len(tail) < 3:
                continue
            mount_point = Path(fields[4].replace("\\040", " "))
            if tail[0] == "cgroup2":
                found.setdefault("", mount_point)
            elif tail[0] == "cgroup":
                for option in tail[2].split(","):
                    if option in V1_CONTROLLERS:
                        found.setdefault(option, mount_point)
    return found


def _writable_folder(folder: Path) -> bool:
    probe = folder / f"{PREFIX}probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        probe.rmdir()
    except OSError:
        pass
    return True


@functools.lru_cache(maxsize=1)
def available() -> Hierarchy | None:
    """The hierarchy bot groups can be made in on this machine, or None (then: rlimits)."""
    if settings.flag("ARENA_NO_CGROUPS"):
        return None  # for tests of the fallback, and for machines where groups misbehave
    try:
        mounts, own = _mounts(), _own_paths()
    except OSError:
        return None
    if all(c in mounts for c in V1_REQUIRED):
        bases = {}
        for controller in V1_CONTROLLERS:
            if controller in mounts and controller in own:
                base = mounts[controller] / own[controller].lstrip("/")
                if _writable_folder(base):
                    bases[controller] = base
        if not all(c in bases for c in V1_REQUIRED):
            return None
        if "" in mounts and "" in own:  # hybrid: a cgroup2 tree beside the v1 controllers
            base = mounts[""] / own[""].lstrip("/")
            if (base / "cgroup.procs").exists() and _writable_folder(base):
                bases[UNIFIED] = base
        return Hierarchy(1, bases)
    if "" in mounts and "" in own:
        base = mounts[""] / own[""].lstrip("/")
        try:
            enabled = (base / "cgroup.subtree_control").read_text().split()
        except OSError:
            return None
        if all(c in enabled for c in V2_REQUIRED) and _writable_folder(base):
            return Hierarchy(2, {UNIFIED: base})
    return None


def cpu_readable() -> bool:
    """Whether the CPU time of all of a bot's processes can be read here (the CPU clock)."""
    hierarchy = available()
    return hierarchy is not None and hierarchy.cpu_counter() is not None


@dataclass(frozen=True)
class GroupLimits:
    memory_bytes: int
    processes: int
    cpus: float  # CPU time per wall second across all the group's processes (1.0 = one core)


class BotGroup:
    """One bot's group. ``create`` it, let the child join it before exec, ``kill`` and ``remove``."""

    def __init__(self, hierarchy: Hierarchy, limits: GroupLimits, owner_pid: int | None = None):
        self.hierarchy = hierarchy
        self.limits = limits
        name = f"{PREFIX}{owner_pid or os.getpid()}-{next(_counter)}-{os.urandom(3).hex()}"
        self.folders = {controller: base / name for controller, base in hierarchy.bases.items()}
        self.created = False
        self._kept: dict = {}
        self._oom_text: str | None = None  # memory.oom_control / memory.events as last read
        self._oom_kills = 0
        self.frozen = False  # as asked by `freeze` / `thaw`
        self._freeze_fd: int | None = None
        self._cpu_fd: int | None = None
        self.confined: Path | None = None  # see `confine`

    # -- life cycle -----------------------------------------------------------------------

    def create(self) -> None:
        try:
            for folder in self.folders.values():
                folder.mkdir()
            self.created = True
            if self.hierarchy.version == 1:
                self._write("memory", "memory.limit_in_bytes", self.limits.memory_bytes)
                self._write_optional("memory", "memory.memsw.limit_in_bytes", self.limits.memory_bytes)
                self._write("pids", "pids.max", self.limits.processes)
                self._write("cpu", "cpu.cfs_period_us", CPU_PERIOD_US)
                self._write("cpu", "cpu.cfs_quota_us", max(1000, int(self.limits.cpus * CPU_PERIOD_US)))
            else:
                self._write(UNIFIED, "memory.max", self.limits.memory_bytes)
                self._write_optional(UNIFIED, "memory.swap.max", 0)
                self._write(UNIFIED, "pids.max", self.limits.processes)
                self._write(UNIFIED, "cpu.max",
                            f"{max(1000, int(self.limits.cpus * CPU_PERIOD_US))} {CPU_PERIOD_US}")
        except OSError as error:
            self.remove()
            raise CgroupError(error.errno, f"cannot set up a cgroup for a bot: {error.strerror}") from None

    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a child writes "0" into to join (before exec)."""
        return [str(folder / "cgroup.procs") for folder in self.folders.values()]

    def members(self) -> list[int]:
        pids: set[int] = set()
        folders = list(self.folders.values())
        if UNIFIED in self.folders:
            folders.append(self.folders[UNIFIED] / CONFINED)  # where it exists (see `confine`)
        for folder in folders:
            try:
                pids.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                continue
        return sorted(pids)

    def confine(self, leave: set[int]) -> bool:
        """Move every member but ``leave`` (the sandbox's own idle processes) to a child of the
        cgroup2 group, which `freeze` then freezes alone: freezing or thawing a process wakes
        it, so a group of three costs three wake-ups at every freeze and every thaw. What the
        moved processes start follows them; limits and counters still cover them all (they
        are the parent group's and the v1 groups'). False where there is no cgroup2 group."""
        unified = self.folders.get(UNIFIED)
        if unified is None or self.confined is not None or self.frozen:
            return False
        child = unified / CONFINED
        try:
            child.mkdir()
            for _ in range(20):  # a process forked meanwhile is moved on the next round
                moving = [pid for pid in map(int, (unified / "cgroup.procs").read_text().split()) if pid not in leave]
                if not moving:
                    break
                for pid in moving:
                    try:
                        (child / "cgroup.procs").write_text(str(pid))
                    except ProcessLookupError:
                        continue
        except OSError:
            return False
        self.confined = child
        if self._freeze_fd is not None:
            os.close(self._freeze_fd)
            self._freeze_fd = None
        return True

    def kill(self, timeout: float = 5.0) -> bool:
        """SIGKILL every process of the group and wait until it is empty; True when empty.
        A frozen group is thawed first (a v1-frozen process dies only once thawed)."""
        if not self.created:
            return True
        self.thaw()
        deadline = time.monotonic() + timeout
        if self._kill_all():
            while self.members():
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.001)
            return True
        while True:
            members = self.members()
            if not members:
                return True
            frozen = self._freeze_v1_and_wait(True)
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            if frozen:
                self._freeze_v1_and_wait(False)
            if time.monotonic() >= deadline:
                return not self.members()
            time.sleep(0.001)

    def _kill_all(self) -> bool:
        """v2 ``cgroup.kill`` (kernel 5.14+): every member, and any process it forks meanwhile."""
        folder = self.folders.get(UNIFIED)
        if folder is None:
            return False
        try:
            (folder / "cgroup.kill").write_text("1")
            return True
        except OSError:
            return False

    # -- only the bot on move runs ------------------------------------------------------

    def freeze(self) -> None:
        """Stop every process of the group where it stands (it cannot tell, and uses no CPU).

        Not waited for: v2 freezing completes within microseconds of the write (`is_frozen`
        says when), and what a process does meanwhile is in no decision's CPU time."""
        if not self.frozen and self._write_freeze(True):
            self.frozen = True

    def thaw(self) -> None:
        if self.frozen:
            self._write_freeze(False)
            self.frozen = False

    def is_frozen(self) -> bool:
        """Whether the kernel has frozen every member that `freeze` freezes (not only been asked to)."""
        if self.confined is not None:
            try:
                return "frozen 1" in (self.confined / "cgroup.events").read_text()
            except OSError:
                return False
        if UNIFIED in self.folders:
            return "frozen 1" in self._read(UNIFIED, "cgroup.events")
        return self._read("freezer", "freezer.state").strip() == "FROZEN"

    def _write_freeze(self, frozen: bool) -> bool:
        if self._freeze_fd is None:
            if self.confined is not None:
                path = self.confined / "cgroup.freeze"
            elif UNIFIED in self.folders:
                path = self.folders[UNIFIED] / "cgroup.freeze"
            elif "freezer" in self.folders:
                path = self.folders["freezer"] / "freezer.state"
            else:
                return False
            try:
                self._freeze_fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            except OSError:
                return False
        if UNIFIED in self.folders:
            value = b"1" if frozen else b"0"
        else:
            value = b"FROZEN" if frozen else b"THAWED"
        try:
            os.write(self._freeze_fd, value)
            return True
        except OSError:
            return False

    def remove(self) -> None:
        """Remove the (empty) group's folders; harmless when already gone."""
        for fd in [*self._kept.values(), self._freeze_fd, self._cpu_fd]:
            try:
                if fd is not None:
                    os.close(fd)
            except OSError:
                pass
        self._kept.clear()
        self._freeze_fd = self._cpu_fd = None
        self.frozen = False
        self.confined = None
        folders = list(self.folders.values())
        if UNIFIED in self.folders:
            folders.insert(0, self.folders[UNIFIED] / CONFINED)  # the child first (see `confine`)
        for folder in folders:
            for _ in range(200):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)  # the last member is still being torn down
        self.created = False

    # -- what happened inside -------------------------------------------------------------

    def memory_peak(self) -> int:
        if self.hierarchy.version == 1:
            return self._read_int("memory", "memory.max_usage_in_bytes")
        return self._read_int("unified", "memory.peak")

    def out_of_memory_kills(self) -> int:
        """How often the kernel's OOM killer struck inside the group (cheap: asked per decision,
        so the file is read through a kept descriptor and parsed only when it changed)."""
        name = ("memory", "memory.oom_control") if self.hierarchy.version == 1 else ("unified", "memory.events")
        text = self._read_kept(*name)
        if text == self._oom_text:
            return self._oom_kills
        counts = dict(line.split() for line in text.splitlines() if len(line.split()) == 2)
        if self.hierarchy.version == 2 or "oom_kill" in counts:
            kills = int(counts.get("oom_kill", 0))
        else:
            # Old kernels without the counter: having hit the limit is the best sign there is.
            kills = int(self._read_int("memory", "memory.failcnt") > 0 and counts.get("under_oom") == "1")
        if kills or "oom_kill" in counts:  # a counter that only grows: safe to remember
            self._oom_text, self._oom_kills = text, kills
        return kills

    def _read_kept(self, controller: str, name: str) -> str:
        """Read a file through a descriptor kept open for the group's life."""
        key = (controller, name)
        fd = self._kept.get(key)
        try:
            if fd is None:
                fd = self._kept[key] = os.open(self.folders[controller] / name, os.O_RDONLY | os.O_CLOEXEC)
            return os.pread(fd, 4096, 0).decode()
        except (OSError, KeyError):
            return ""

    def cpu_seconds(self) -> float:
        """CPU time used by every process the group has had (0.0 when it cannot be read)."""
        return (self.cpu_ns() or 0) / 1e9

    def cpu_ns(self) -> int | None:
        """CPU time in nanoseconds of all the group's processes, living and gone (asked twice
        per decision: one ``pread`` of a descriptor kept open). None when unreadable."""
        fd = self._cpu_fd
        try:
            if fd is None:
                if "cpuacct" in self.folders:
                    path = self.folders["cpuacct"] / "cpuacct.usage"
                elif UNIFIED in self.folders:
                    path = self.folders[UNIFIED] / "cpu.stat"
                else:
                    return None
                fd = self._cpu_fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            text = os.pread(fd, 512, 0)
        except OSError:
            return None
        if "cpuacct" in self.folders:
            return _first_int(text)
        start = text.find(b"usage_usec ")  # the first line of cpu.stat
        if start < 0:
            return None
        end = text.find(b"\n", start)
        return int(text[start + 11:end if end >= 0 else None]) * 1000

    # -- helpers --------------------------------------------------------------------------

    def _freeze_v1_and_wait(self, frozen: bool) -> bool:
        """The v1 freezer, waiting (briefly) until every member is really stopped: for `kill`."""
        folder = self.folders.get("freezer")
        if folder is None:
            return False
        try:
            (folder / "freezer.state").write_text("FROZEN" if frozen else "THAWED")
            if frozen:
                for _ in range(100):
                    if (folder / "freezer.state").read_text().strip() == "FROZEN":
                        break
                    time.sleep(0.0005)
            return True
        except OSError:
            return False

    def _write(self, controller: str, name: str, value) -> None:
        (self.folders[controller] / name).write_text(str(value))

    def _write_optional(self, controller: str, name: str, value) -> None:
        try:
            self._write(controller, name, value)
        except OSError:
            pass  # e.g. no swap accounting on this kernel

    def _read(self, controller: str, name: str) -> str:
        try:
            return (self.folders[controller] / name).read_text()
        except (OSError, KeyError):
            return ""

    def _read_int(self, controller: str, name: str) -> int:
        return _first_int(self._read(controller, name))


def _first_int(text) -> int:
    try:
        return int(text.split()[0])
    except (ValueError, IndexError):
        return 0


def join(procs_files: list[str]) -> None:
    """In a child before exec: move this process into the group (all descendants follow)."""
    for path in procs_files:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)


def remove_stale(hierarchy: Hierarchy | None = None) -> int:
    """Kill and remove groups left by harness processes that died (``kill -9``); returns how many."""
    hierarchy = hierarchy or available()
    if hierarchy is None:
        return 0
    removed = 0
    names: set[str] = set()
    for base in hierarchy.bases.values():
        try:
            names.update(entry.name for entry in os.scandir(base) if entry.name.startswith(PREFIX))
        except OSError:
            continue
    for name in names:
        owner = name[len(PREFIX):].split("-", 1)[0]
        if not owner.isdigit() or process_alive(int(owner)):
            continue
        group = BotGroup.__new__(BotGroup)
        group.hierarchy, group.limits, group._kept = hierarchy, None, {}
        group.frozen, group._freeze_fd, group._cpu_fd = True, None, None  # it may be: thaw before killing
        group.confined = None  # a frozen child is killed all the same (cgroup.kill, SIGKILL)
        group.folders = {c: base / name for c, base in hierarchy.bases.items() if (base / name).exists()}
        group.created = True
        group.kill(timeout=2.0)
        group.remove()
        removed += 1
    return removed
