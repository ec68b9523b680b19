"""What a sandboxed bot sees of the machine's load in /proc: nothing.

``/proc`` in the sandbox is a procfs of the bot's own PID namespace, so it lists only the
bot's processes, but a few of its files are the whole machine's: CPU time per core
(``stat``), the load average, the idle time (``uptime``), scheduler, interrupt, paging and
disk counters, free memory, pressure stall information. A bot reading them could watch the
machine (and so its opponent) think. The sandbox binds the synthetic, read-only copies made
here over them: the same format, every counter at zero, the load at 0.00, the memory its
own limit; ``/proc/pressure`` is an empty folder.

Knows nothing of bots: the sandbox asks for the bubblewrap options.
"""

from __future__ import annotations

import os

PRESSURE = "/proc/pressure"


def _online_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _boot_time() -> int:
    try:
        with open("/proc/stat") as handle:
            for line in handle:
                if line.startswith("btime "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _memory_total_kib() -> int:
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _uptime() -> float:
    try:
        with open("/proc/uptime") as handle:
            return float(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0


def synthetic_files(memory_bytes: int) -> dict[str, bytes]:
    """/proc path -> the content a bot reads there instead of the machine's."""
    cpus = _online_cpus()
    idle_cpu = " 0 0 0 0 0 0 0 0 0 0\n"
    stat = ("cpu " + idle_cpu + "".join(f"cpu{n}" + idle_cpu for n in range(cpus))
            + f"intr 0\nctxt 0\nbtime {_boot_time()}\nprocesses 0\nprocs_running 1\nprocs_blocked 0\n"
            + "softirq 0 0 0 0 0 0 0 0 0 0 0\n")
    header = " " * 11 + "".join(f"{'CPU' + str(n):>11}" for n in range(cpus)) + "\n"
    total = _memory_total_kib()
    own = min(total, memory_bytes >> 10) if total else memory_bytes >> 10
    meminfo = "".join(f"{name + ':':<16}{value:>8} kB\n" for name, value in (
        ("MemTotal", total or own), ("MemFree", own), ("MemAvailable", own), ("Buffers", 0), ("Cached", 0),
        ("SwapCached", 0), ("SwapTotal", 0), ("SwapFree", 0)))
    return {
        "/proc/stat": stat.encode(),
        "/proc/loadavg": b"0.00 0.00 0.00 1/1 1\n",
        "/proc/uptime": f"{_uptime():.2f} 0.00\n".encode(),
        "/proc/schedstat": b"version 15\ntimestamp 0\n",
        "/proc/softirqs": header.encode(),
        "/proc/interrupts": header.encode(),
        "/proc/vmstat": b"",
        "/proc/diskstats": b"",
        "/proc/meminfo": meminfo.encode(),
    }


def bubblewrap_options(memory_bytes: int) -> tuple[list[str], list[int]]:
    """The bubblewrap options that put the synthetic files in place (they come after
    ``--proc``), and the descriptors they read from: the caller passes them to bubblewrap
    and closes them once it has started."""
    words: list[str] = []
    fds: list[int] = []
    try:
        for path, content in synthetic_files(memory_bytes).items():
            if not os.path.exists(path):
                continue
            fd = os.memfd_create("arena-proc", 0)  # inherited by bubblewrap, which copies it
            fds.append(fd)
            os.write(fd, content)
            os.lseek(fd, 0, os.SEEK_SET)
            words += ["--perms", "0444", "--ro-bind-data", str(fd), path]  # readable by the bot's own user
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    if os.path.isdir(PRESSURE):
        words += ["--tmpfs", PRESSURE, "--remount-ro", PRESSURE]
    return words, fds
