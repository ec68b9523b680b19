"""`arena doctor`: what this machine offers bots — sandbox, resource control, limits, runtimes."""

from __future__ import annotations

import os
import shutil
import subprocess

from arena.runner import cgroups
from arena.runner.bots import python as bots_python
from arena.runner.sandbox import INSTALL_HINT, SandboxUnavailable, detect, requested_mode
from arena.runner.uids import BOT_UID_BASE

RUNTIMES = (("python3", ["--version"]), ("node", ["--version"]), ("java", ["-version"]),
            ("g++", ["--version"]), ("cargo", ["--version"]), ("perl", ["-e", "print $^V"]))


def _yes(flag: bool, detail: str = "") -> str:
    return ("yes" if flag else "NO") + (f" ({detail})" if detail else "")


def _version(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        return (done.stdout.strip() or done.stderr.strip()).splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "?"


def report() -> tuple[list[str], bool]:
    """The lines `arena doctor` prints, and whether untrusted bots can be played here."""
    from arena.runner.match import Limits

    limits = Limits()
    bwrap = shutil.which("bwrap")
    hierarchy = cgroups.available()
    lines = [f"bubblewrap ............. {bwrap + ' (' + _version([bwrap, '--version']) + ')' if bwrap else 'not installed (' + INSTALL_HINT + ')'}"]
    try:
        protections = detect(requested_mode())
        ok = True
    except SandboxUnavailable as error:
        lines.append(f"sandbox mode ........... NONE AVAILABLE: {error}")
        protections, ok = detect("none"), False
    else:
        lines.append(f"sandbox mode ........... {protections.mode}"
                     + (" (asked for with --sandbox none: NO isolation, for trusted bots only)"
                        if protections.mode == "none" else ""))
    if ok and protections.mode == "bubblewrap":
        lines += [
            "  files ................ its own files read-only at /bot; system directories, interpreters"
            " and arena's game rules read-only; nothing else of the host",
            f"  writable ............. its home /home/bot and a private /tmp ({limits.disk_mb} MiB each, in memory)",
            "  network .............. none (a loopback of its own)",
            "  processes ............ own PID namespace: /proc shows only its own; all die with it",
            "  system calls ......... seccomp: no new namespaces, io_uring, ptrace, keyrings, BPF, perf,"
            " mounts, modules, other ABIs (EPERM)",
            "  machine load ......... hidden: /proc/stat, loadavg, uptime, meminfo and the other host-wide counters"
            " are synthetic (the kernel's sysinfo call still gives load averages)",
            f"  user ................. {_yes(protections.separate_user, f'an unprivileged uid of its own, from {BOT_UID_BASE}') if os.geteuid() == 0 else 'the harness user, in a user namespace'}",
        ]
    lines += [
        f"resource control ....... {hierarchy.describe() if hierarchy else 'rlimits per process (no writable cgroup hierarchy; run as root for cgroups)'}",
        f"  memory ............... {limits.memory_mb} MiB " + ("resident, all its processes together" if hierarchy
                                                            else "address space per process (runtimes such as the JVM need flags)"),
        f"  processes ............ {limits.processes}" + ("" if hierarchy or os.geteuid() == 0 else " (not enforced: no uid of its own)"),
        f"  CPU .................. {limits.cpus:g} core(s) at most, an equal share with other bots" if hierarchy
        else "  CPU .................. no share control (cgroups unavailable)",
        f"  CPU time ............. {limits.cpu_seconds} s "
        + ("for all its processes together (counted from its cgroup)" if hierarchy and hierarchy.cpu_counter()
           else "per process") + "; files up to 16 MiB; 256 open files; no core files",
        "  environment .......... minimal (PATH, HOME, LANG, TMPDIR, PYTHON*, ARENA_BOT_TOKEN)",
        *_clock_lines(hierarchy),
    ]
    return _runtime_lines(lines), ok


def _clock_lines(hierarchy) -> list[str]:
    """Which clock matches run on here, and how a bot that is not deciding is paused."""
    from arena.runner import clock

    counter = hierarchy.cpu_counter() if hierarchy else None
    if counter:
        charged = (f"cpu by default: CPU time of all the bot's processes ({counter}); wall-time cap"
                   f" {clock.WALL_FACTOR} × (allowance + bank left) + {clock.WALL_GRACE_S:g} s; --clock wall available")
    else:
        charged = ("wall only: no cgroups, so the CPU time of all of a bot's processes cannot be read"
                   " (every match records clock = wall; run as root with a writable cgroup file system for cpu)")
    freezer = hierarchy.freezer() if hierarchy else None
    paused = (f"frozen through its cgroup ({freezer} freezer)" if freezer
              else "stopped with SIGSTOP/SIGCONT to its process groups (a process that leaves them escapes; no cgroups)")
    return [f"clock .................. {charged}",
            f"  off its turn ......... a bot that is not deciding is {paused}"]


def _runtime_lines(lines: list[str]) -> list[str]:
    for name, flags in RUNTIMES:
        found = bots_python() if name == "python3" else shutil.which(name)
        label = "python (bots' python)" if name == "python3" else name
        lines.append(f"{label + ' ':.<23} {found + ' (' + _version([found] + flags) + ')' if found else 'not found'}")
    return lines
