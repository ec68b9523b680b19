"""The system calls a bot may not make: a seccomp filter that bubblewrap loads for every bot.

The filter allows everything except the kernel interfaces a game bot never needs and an
attacker would reach for: new namespaces (a user namespace makes it root there, with the
kernel code that only root could reach), io_uring, other processes' memory (ptrace and
friends), kernel keyrings, BPF and perf, mounts, kernel modules and kexec, userfaultfd, and
personality flags that weaken memory protection. A denied call fails with ``EPERM`` — never a
kill — so a runtime that probes for a feature carries on without it; ``clone3`` fails with
``ENOSYS``, because its flags live in memory a filter cannot read, and C libraries then fall
back to ``clone``, whose flags the filter checks. A system call of another ABI (i386 through
``int 0x80``, x32) fails with ``EPERM`` whatever it is, so it cannot bypass the list.

The filter is built with libseccomp (the ``seccomp`` Python bindings where installed, else
``pyseccomp``, the same API over the shared library through ctypes) once per process, and
handed to bubblewrap as a compiled BPF program in a memfd (``--seccomp FD``).
"""

from __future__ import annotations

import errno
import functools
import os
import platform

# Fail with EPERM, whatever the arguments.
DENIED = (
    # entering namespaces (creating them: clone and unshare below)
    "setns",
    # io_uring: a large kernel surface, and it bypasses this filter for the calls it queues
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # other processes: their memory, their file descriptors
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # kernel keyrings
    "keyctl", "add_key", "request_key",
    # BPF programs and performance counters
    "bpf", "perf_event_open",
    # mounts, old and new API
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr", "statmount", "listmount", "open_tree_attr",
    # the kernel itself: modules, kexec, swap, accounting, its log, reboot
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "swapon", "swapoff",
    "acct", "syslog", "reboot",
    # page faults handled in user space (a classic way to win a kernel race)
    "userfaultfd",
    # files by handle, raw I/O ports, old library loading
    "open_by_handle_at", "iopl", "ioperm", "uselib", "lookup_dcookie",
)

# Numbers shared by every architecture (the unified table from 424 on), for names that an
# older libseccomp does not know yet.
_UNIFIED_NUMBERS = {"statmount": 457, "listmount": 458, "open_tree_attr": 467}

# clone() and unshare() fail with EPERM when asked for any new namespace.
NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
CLONE_NEWTIME = 0x00000080  # unshare() only: in clone()'s flags these bits are the exit signal

# personality(): the execution domain may change (PER_LINUX, PER_LINUX32), these flags may
# not. (The query personality(0xffffffff) has every bit set, so it fails too.)
PERSONALITY_FLAGS = {
    "ADDR_NO_RANDOMIZE": 0x0040000, "FDPIC_FUNCPTRS": 0x0080000, "MMAP_PAGE_ZERO": 0x0100000,
    "ADDR_COMPAT_LAYOUT": 0x0200000, "READ_IMPLIES_EXEC": 0x0400000, "ADDR_LIMIT_32BIT": 0x0800000,
    "SHORT_INODE": 0x1000000, "WHOLE_SECONDS": 0x2000000, "STICKY_TIMEOUTS": 0x4000000,
    "ADDR_LIMIT_3GB": 0x8000000,
}


class SeccompUnavailable(RuntimeError):
    """libseccomp cannot be loaded here; the message names the fix."""


def _library():
    try:
        import seccomp  # libseccomp's own bindings (Debian: python3-seccomp)
        return seccomp
    except ImportError:
        pass
    try:
        import pyseccomp
        return pyseccomp
    except (ImportError, RuntimeError) as error:  # RuntimeError: no libseccomp.so.2
        raise SeccompUnavailable(f"cannot build the bots' seccomp filter ({error}); install libseccomp"
                                 " (apt-get install libseccomp2) and arena's dependencies") from None


@functools.lru_cache(maxsize=None)
def program() -> bytes:
    """The filter as a compiled classic-BPF program for the native architecture."""
    sc = _library()
    deny = sc.ERRNO(errno.EPERM)
    rules = sc.SyscallFilter(sc.ALLOW)
    rules.set_attr(sc.Attr.ACT_BADARCH, deny)  # i386 and x32 system calls
    for name in DENIED:
        rules.add_rule(deny, _number(sc, name))
    flags_argument = 1 if platform.machine() == "s390x" else 0  # clone's flags come second there
    for flag in NAMESPACE_FLAGS.values():
        rules.add_rule(deny, "clone", sc.Arg(flags_argument, sc.MASKED_EQ, flag, flag))
        rules.add_rule(deny, "unshare", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    rules.add_rule(deny, "unshare", sc.Arg(0, sc.MASKED_EQ, CLONE_NEWTIME, CLONE_NEWTIME))
    rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for flag in PERSONALITY_FLAGS.values():
        rules.add_rule(deny, "personality", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    with os.fdopen(os.memfd_create("seccomp-filter", os.MFD_CLOEXEC), "w+b") as handle:
        rules.export_bpf(handle)
        handle.seek(0)
        return handle.read()


def _number(sc, name: str) -> int:
    number = sc.resolve_syscall(sc.Arch.NATIVE, name)
    if number < 0:
        number = _UNIFIED_NUMBERS.get(name, -1)
    if number < 0:
        raise SeccompUnavailable(f"libseccomp does not know the system call {name}")
    return number


def program_fd() -> int:
    """A fresh memfd holding `program()`, positioned at its start, inheritable (bwrap reads it)."""
    fd = os.memfd_create("bwrap-seccomp", 0)
    try:
        os.write(fd, program())
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def problem() -> str | None:
    """None when the filter can be built here; else why not."""
    try:
        program()
    except (SeccompUnavailable, OSError) as error:
        return str(error)
    return None
