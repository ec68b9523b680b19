"""Hostile bots: each tries one way to crash, hang, escape, starve or cheat, in a real match.

Every test plays a real match (sandboxed processes) of the hostile bot against an honest bot
whose file holds a planted secret, and asserts: the hostile seat's exact status, that the
honest seat finished ``ok``, that no process of the hostile bot's user is left, that no
folder or cgroup is left behind, that nothing outside its sandbox was written, and that none
of the planted secrets (a results database, another bot, a root-only file, a world-readable
host file, the project checkout, the harness's environment) could be read.

Each runs in every resource mode this machine has: cgroups (root with a writable cgroup
file system) and rlimits only.
"""

from __future__ import annotations

import os
import textwrap
import time

import pytest

from arena.runner import cgroups
from arena.runner.match import Limits, MatchSpec, play_match
from arena.runner.sandbox import SandboxUnavailable, detect
import hostile_kit as kit
from waiting import PATIENCE

try:
    detect("bubblewrap")
    HAVE_BWRAP = True
except SandboxUnavailable:
    HAVE_BWRAP = False

pytestmark = pytest.mark.skipif(not HAVE_BWRAP, reason="the hostile suite needs the bubblewrap sandbox")

RESOURCE_MODES = ["cgroup", "rlimits"] if cgroups.available() is not None else ["rlimits"]
QUICK = Limits(start_ms=4000, decision_ms=1000, bank_ms=1000)

TEMPLATE = '''
{prelude}

def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()

def on_start(message):
{on_start}

def on_request(message):
{on_request}

requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        on_start(message)
    elif message["type"] == "request":
        requests += 1
        on_request(message)
    elif message["type"] == "quit":
        break
'''

READY = 'reply({"type": "ready"})'
FIRST = 'reply({"type": "action", "index": 0})'


@pytest.fixture(params=RESOURCE_MODES)
def resources(request, monkeypatch):
    if request.param == "rlimits":
        monkeypatch.setenv("ARENA_NO_CGROUPS", "1")
    else:
        monkeypatch.delenv("ARENA_NO_CGROUPS", raising=False)
    cgroups.available.cache_clear()
    yield request.param
    cgroups.available.cache_clear()


@pytest.fixture
def arena_match(tmp_path, resources):
    """Play a hostile bot (seat 0) against the honest bot, then check everything."""
    planted = kit.plant(tmp_path)
    before_folders = set(kit.our_folders())

    def play(name, on_start=READY, on_request=FIRST, limits=QUICK, status="ok", honest_ok=True,
             opponent=None, rounds=3, check=None):
        folder = tmp_path / "hostile"
        folder.mkdir(exist_ok=True, mode=0o755)
        path = folder / f"{name}.py"
        path.write_text(TEMPLATE.format(prelude=planted.prelude(),
                                        on_start=textwrap.indent(textwrap.dedent(on_start).strip("\n"), "    "),
                                        on_request=textwrap.indent(textwrap.dedent(on_request).strip("\n"), "    ")))
        os.chmod(path, 0o644)
        spec = MatchSpec("toy", [str(path), opponent or planted.opponent], seed=7, options={"rounds": rounds},
                         limits=limits)
        result = play_match(spec)
        hostile, honest = result.seats
        assert hostile.status == status, (hostile.status, hostile.error, hostile.stderr[-2000:])
        if honest_ok:
            assert honest.status == "ok", (honest.status, honest.error)
        assert "LEAK" not in hostile.stderr, hostile.stderr
        assert planted.secret not in hostile.stderr and planted.secret not in str(result.log)
        assert "WROTE" not in hostile.stderr, hostile.stderr
        assert planted.written_outside() == []
        uid = kit.reported_uid(hostile.stderr)
        if uid is not None and uid in kit.BOT_UID_RANGE:
            assert _eventually(lambda: kit.processes_of_uid(uid) == []), kit.processes_of_uid(uid)
            assert kit.files_of_uid(uid) == []
        assert kit.our_cgroups() == []
        assert set(kit.our_folders()) <= before_folders
        if check:
            check(result)
        return result

    yield play
    kit.remove(planted)


def _eventually(condition, seconds: float = PATIENCE) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# ---- the harness never fails because of a bot ------------------------------------------------

def test_a_line_of_half_a_million_brackets_is_a_protocol_error(arena_match):
    arena_match("brackets", on_request='sys.stdout.write("[" * 500_000 + "\\n"); sys.stdout.flush()',
                status="protocol")


def test_valid_json_nested_deeper_than_the_limit_is_a_protocol_error(arena_match):
    result = arena_match("deep", on_request='''
        deep = 0
        for _ in range(200):
            deep = [deep]
        reply({"type": "action", "action": deep})''', status="protocol")
    assert "nested deeper" in result.seats[0].error


def test_a_bad_answer_to_start_nested_deeply_is_a_protocol_error(arena_match):
    arena_match("deepready", on_start='sys.stdout.write("{\\"a\\":" * 100_000 + "\\n"); sys.stdout.flush()',
                status="protocol")


def test_a_number_with_ten_thousand_digits_is_a_protocol_error(arena_match):
    arena_match("digits", on_request='sys.stdout.write("{\\"index\\": " + "9" * 10_000 + "}\\n"); sys.stdout.flush()',
                status="protocol")


def test_nan_and_infinity_are_not_json(arena_match):
    arena_match("nan", on_request='sys.stdout.write("{\\"action\\": {\\"type\\": \\"take\\", \\"amount\\": NaN}}\\n");'
                                  ' sys.stdout.flush()', status="protocol")


def test_a_lone_surrogate_in_debug_is_a_protocol_error(arena_match):
    arena_match("surrogate", on_request='sys.stdout.write("{\\"index\\": 0, \\"debug\\": \\"\\\\ud800\\"}\\n");'
                                        ' sys.stdout.flush()', status="protocol")


def test_invalid_utf8_and_nul_bytes_are_a_protocol_error(arena_match):
    arena_match("bytes", on_request='sys.stdout.buffer.write(b"\\xff\\x00\\xfe\\n"); sys.stdout.flush()',
                status="protocol")


@pytest.mark.parametrize("action", ['{"type": {"take": []}}', '[[[["take"]]]]', 'null', '1e308',
                                    '{"type": "take", "amount": 1.0}', '{"type": "take", "amount": true}',
                                    '"take 1"', '{"type": "take", "amount": 99999999999999999999999}'])
def test_garbage_actions_are_illegal(arena_match, action):
    arena_match("garbage", on_request=f'sys.stdout.write(json.dumps({{"action": json.loads({action!r})}}) + "\\n");'
                                      ' sys.stdout.flush()', status="illegal")


def test_escape_sequences_in_debug_are_stored_as_data(arena_match):
    result = arena_match("escapes", on_request='''
        sys.stderr.write("\\x1b[2J\\x1b[Haccepted: fake\\r\\n")
        reply({"type": "action", "index": 0, "debug": "\\x1b[2J\\x1b[31mred\\x07"})''')
    assert any(event.get("debug") == "\x1b[2J\x1b[31mred\x07" for event in result.log)


# ---- its cleanup cannot be broken ------------------------------------------------------------

def test_a_very_deep_tree_in_its_home_is_no_problem(arena_match):
    arena_match("deeptree", on_start='''
        base = os.getcwd()
        try:
            for i in range(3000):
                os.mkdir("d")
                os.chdir("d")
        except OSError:
            pass
        os.chdir(base)
        os.symlink("/", "root-link")
        os.mkdir("locked")
        open("locked/file\\nwith newline", "w").close()
        os.chmod("locked", 0o000)
        reply({"type": "ready"})''')


def test_a_wide_tree_with_odd_names_is_no_problem(arena_match):
    arena_match("widetree", on_start='''
        for i in range(2000):
            open(os.fsdecode(b"f\\xff%d" % i), "w").close()
        os.makedirs("a/b/c", exist_ok=True)
        os.chmod("a/b", 0o500)
        os.chmod("a", 0o500)
        reply({"type": "ready"})''')


# ---- only its own files are visible ----------------------------------------------------------

def test_it_reads_no_secret_anywhere(arena_match):
    arena_match("hunter", on_start="hunt(); try_write(); reply({'type': 'ready'})")


def test_its_command_line_binds_nothing(arena_match, tmp_path):
    folder = tmp_path / "tomlbot"
    folder.mkdir(mode=0o755)
    (folder / "bot.toml").write_text('command = ["python3", "bot.py", "/etc", "../../..", "%s"]\n' % tmp_path)
    (folder / "bot.py").write_text(kit.PRELUDE.format(secret=os.environ.get("ARENA_HOSTILE_SECRET", ""),
                                                      paths=[], outside=[]) + textwrap.dedent('''
        import os.path
        for word in sys.argv[1:]:
            target = os.path.normpath(os.path.join(os.getcwd(), word))
            if os.path.exists(os.path.join(target, "results")) or os.path.exists(os.path.join(target, "opponent")):
                leak(word)
        hunt()
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "start": print(json.dumps({"type": "ready"}), flush=True)
            elif m["type"] == "request": print(json.dumps({"index": 0}), flush=True)
            elif m["type"] == "quit": break
        '''))
    for path in (folder / "bot.toml", folder / "bot.py"):
        os.chmod(path, 0o644)
    result = play_match(MatchSpec("toy", [str(folder), str(tmp_path / "opponent" / "honest.py")], seed=1,
                                  limits=QUICK))
    assert result.seats[0].status == "ok", result.seats[0].error
    assert "LEAK" not in result.seats[0].stderr


def test_proc_shows_only_its_own_processes(arena_match):
    result = arena_match("procs", on_start='''
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        commands = [open("/proc/%d/cmdline" % p, "rb").read().replace(b"\\0", b" ").decode() for p in pids]
        sys.stderr.write("PROCS %s\\n" % json.dumps(commands))
        reply({"type": "ready"})''')
    line = next(line for line in result.seats[0].stderr.splitlines() if line.startswith("PROCS "))
    commands = __import__("json").loads(line[6:])
    assert len(commands) <= 2  # the sandbox's init (bwrap) and the bot itself
    assert not any("pytest" in c or "honest" in c or "--ro-bind" in c for c in commands)


def test_mount_tables_name_no_host_path_of_the_harness(arena_match):
    """What the kernel says of the sandbox's mounts (/proc/self/mountinfo, mounts, mountstats,
    and pid 1's) names no host path of the harness: not its temporary folder (the staged copy
    used to be bound from there, with the harness's pid in its name), not its pid, not the
    project checkout (arena's rules), not the virtual environment it runs in. See
    docs/bots.md, *What a bot can see*."""
    import sys
    import tempfile

    from arena.runner import privatefs

    if not privatefs.wanted():
        pytest.skip("a private tmpfs for staged copies needs a root harness (rootless: documented)")
    forbidden = [tempfile.gettempdir().rstrip("/") + "/", str(kit.REPO)]
    if sys.prefix != sys.base_prefix:
        forbidden.append(sys.prefix)
    pid = str(os.getpid())
    result = arena_match("mounts", on_start=f'''
        import re
        for table in ("/proc/self/mountinfo", "/proc/self/mounts", "/proc/self/mountstats", "/proc/1/mountinfo"):
            text = open(table).read()
            words = [w for line in text.splitlines() for w in line.split()[3 if table.endswith("info") else 0:]]
            for word in words:
                if any(path in word for path in {forbidden!r}) or re.search(r"(?<![0-9]){pid}(?![0-9])", word):
                    sys.stderr.write("HOSTPATH %s %s\\n" % (table, word))
        sys.stderr.write("MOUNTS %d\\n" % len(open("/proc/self/mountinfo").read().splitlines()))
        reply({{"type": "ready"}})''')
    assert "MOUNTS " in result.seats[0].stderr
    assert "HOSTPATH" not in result.seats[0].stderr, result.seats[0].stderr


def test_its_own_files_are_read_only(arena_match):
    arena_match("tamper", on_start='''
        for target in (__file__, "/bot/new", "/usr/x", "/etc/x", "/opt/arena/arena/games/x"):
            try:
                open(target, "a").write("x")
                sys.stderr.write("WROTE %s\\n" % target)
            except OSError:
                pass
        reply({"type": "ready"})''')


def test_tmp_is_private_and_writable_and_does_not_outlive_the_match(arena_match, tmp_path):
    marker = os.path.join("/tmp", "arena-hostile-state")
    arena_match("tmpwriter", on_start='''
        for folder in ("/tmp", "/var/tmp", "/dev/shm", os.environ["TMPDIR"], os.environ["HOME"]):
            open(os.path.join(folder, "state"), "w").write("kept")
        reply({"type": "ready"})''')
    arena_match("tmpreader", on_start='''
        for folder in ("/tmp", "/var/tmp", "/dev/shm"):
            if os.path.exists(os.path.join(folder, "state")):
                sys.stderr.write("WROTE kept state in %s\\n" % folder)
        reply({"type": "ready"})''')
    assert not os.path.exists(marker)


def test_setuid_programs_give_no_privileges(arena_match):
    arena_match("setuid", on_start='''
        for argv in (["su", "-c", "id"], ["sudo", "id"], ["mount", "-t", "tmpfs", "x", "/mnt"]):
            try:
                done = subprocess.run(argv, capture_output=True, timeout=5, stdin=subprocess.DEVNULL)
                if done.returncode == 0:
                    sys.stderr.write("WROTE privileged %s\\n" % argv[0])
            except (OSError, subprocess.SubprocessError):
                pass
        if os.path.exists("/etc/shadow") and readable("/etc/shadow") is not None:
            leak("/etc/shadow")
        reply({"type": "ready"})''')


def test_no_network_and_no_host_sockets(arena_match):
    arena_match("network", on_start='''
        import socket
        for family, address in ((socket.AF_INET, ("127.0.0.1", 22)), (socket.AF_INET, ("1.1.1.1", 53)),
                                (socket.AF_INET6, ("::1", 22))):
            try:
                s = socket.socket(family, socket.SOCK_STREAM)
                s.settimeout(0.5)
                s.connect(address)
                sys.stderr.write("WROTE connected %r\\n" % (address,))
            except OSError:
                pass
        for path in glob.glob("/run/*.sock") + glob.glob("/tmp/.X11-unix/*") + ["\\0/tmp/.X11-unix/X0"]:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                sys.stderr.write("WROTE unix %r\\n" % path)
            except OSError:
                pass
        reply({"type": "ready"})''')


# ---- the kernel: what the seccomp filter denies ---------------------------------------------------

# Each attempt is a raw system call (x86-64 numbers) through ctypes, as a bot in any language
# could make it; the bot reports the errno of each.
KERNEL_ATTEMPTS = '''
    import ctypes, errno
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    outcomes = {}
    def attempt(name, number, *args):
        ctypes.set_errno(0)
        result = libc.syscall(number, *[ctypes.c_long(a) for a in args])
        outcomes[name] = "allowed" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
    attempt("unshare(CLONE_NEWUSER)", 272, 0x10000000)
    attempt("unshare(CLONE_NEWNS)", 272, 0x20000)
    attempt("unshare(CLONE_NEWNET)", 272, 0x40000000)
    attempt("clone(CLONE_NEWUSER)", 56, 0x10000000 | 17, 0, 0, 0, 0)
    attempt("setns", 308, 0, 0)
    attempt("io_uring_setup", 425, 8, 0)
    attempt("ptrace(PTRACE_TRACEME)", 101, 0, 0, 0, 0)
    attempt("ptrace(PTRACE_ATTACH, 1)", 101, 16, 1, 0, 0)
    attempt("process_vm_readv", 310, 1, 0, 0, 0, 0, 0)
    attempt("keyctl", 250, 0, -3, 0, 0)
    attempt("add_key", 248, 0, 0, 0, 0, -3)
    attempt("bpf", 321, 0, 0, 0)
    attempt("perf_event_open", 298, 0, 0, -1, -1, 0)
    attempt("mount", 165, 0, 0, 0, 0, 0)
    attempt("umount2", 166, 0, 0)
    attempt("open_tree", 428, -100, 0, 0)
    attempt("fsopen", 430, 0, 0)
    attempt("userfaultfd", 323, 0)
    attempt("init_module", 175, 0, 0, 0)
    attempt("kexec_load", 246, 0, 0, 0, 0)
    attempt("personality(ADDR_NO_RANDOMIZE)", 135, 0x0040000)
    attempt("personality(READ_IMPLIES_EXEC)", 135, 0x0400000)
    attempt("x32 ABI getpid", 0x40000000 | 39)
    attempt("clone3", 435, 0, 0)
    sys.stderr.write("KERNEL " + json.dumps(outcomes) + "\\n")
    reply({"type": "ready"})'''


@pytest.mark.skipif(__import__("platform").machine() != "x86_64", reason="x86-64 system call numbers")
def test_the_kernel_interfaces_an_attacker_wants_fail_with_eperm(arena_match):
    result = arena_match("kernel", on_start=KERNEL_ATTEMPTS)
    line = next(line for line in result.seats[0].stderr.splitlines() if line.startswith("KERNEL "))
    outcomes = __import__("json").loads(line[len("KERNEL "):])
    assert outcomes.pop("clone3") == "ENOSYS"  # so that C libraries fall back to clone(), which is checked
    # x32 is refused by the filter (EPERM), or not built into this kernel at all (ENOSYS).
    assert outcomes.pop("x32 ABI getpid") in ("EPERM", "ENOSYS")
    assert len(outcomes) == 22 and outcomes == {name: "EPERM" for name in outcomes}


def test_unshare_gives_no_user_namespace(arena_match):
    result = arena_match("userns", on_start='''
        for argv in (["unshare", "-U", "id", "-u"], ["unshare", "-Ur", "id", "-u"], ["unshare", "-Urm", "true"]):
            done = subprocess.run(argv, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
            sys.stderr.write("UNSHARE %s %d %s\\n" % (argv[1], done.returncode, done.stderr.strip()))
        reply({"type": "ready"})''')
    lines = [line for line in result.seats[0].stderr.splitlines() if line.startswith("UNSHARE ")]
    assert len(lines) == 3, result.seats[0].stderr
    assert all(line.split()[2] != "0" and "Operation not permitted" in line for line in lines), lines


def test_threads_subprocesses_and_harmless_personality_calls_still_work(arena_match):
    result = arena_match("ordinary", on_start='''
        import threading, ctypes
        done = []
        threads = [threading.Thread(target=lambda: done.append(1)) for _ in range(4)]
        for thread in threads: thread.start()
        for thread in threads: thread.join()
        child = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True)
        personality = ctypes.CDLL(None, use_errno=True).personality(0)
        sys.stderr.write("ORDINARY %d %s %d\\n" % (len(done), child.stdout.strip(), personality))
        reply({"type": "ready"})''')
    assert "ORDINARY 4 42 0" in result.seats[0].stderr, result.seats[0].stderr


# ---- resources: all its processes together -----------------------------------------------------

def test_a_fork_bomb_is_bounded_and_cleaned_up(arena_match):
    arena_match("forkbomb", on_start='''
        for _ in range(500):
            try:
                if os.fork() == 0:
                    time.sleep(30)
                    os._exit(0)
            except OSError:
                break
        reply({"type": "ready"})''')


def test_a_double_forked_daemon_does_not_survive(arena_match):
    arena_match("daemon", on_start='''
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.environ.pop("ARENA_BOT_TOKEN", None)
                os.execve("/bin/sleep", ["/bin/sleep", "3600"], {})
            os._exit(0)
        reply({"type": "ready"})''')


def test_a_child_that_keeps_changing_its_pid_does_not_survive(arena_match):
    arena_match("hopper", on_start='''
        if os.fork() == 0:
            os.setsid()
            while True:
                if os.fork():
                    os._exit(0)
                time.sleep(0.005)
        reply({"type": "ready"})''')


def test_a_bot_that_kills_everything_it_can_only_kills_itself(arena_match):
    arena_match("killer", on_start='''
        reply({"type": "ready"})''', on_request='''
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        reply({"type": "action", "index": 0})''')


def test_memory_of_several_processes_counts_together(arena_match, resources):
    limits = Limits(start_ms=4000, decision_ms=8000, bank_ms=0, memory_mb=300)
    arena_match("hogs", limits=limits, on_request='''
        children = []
        for _ in range(4):
            pid = os.fork()
            if pid == 0:
                hoard = bytearray(150 << 20)
                for i in range(0, len(hoard), 4096):
                    hoard[i] = 1
                time.sleep(30)
                os._exit(0)
            children.append(pid)
        time.sleep(3)
        reply({"type": "action", "index": 0})''',
                status="limit" if resources == "cgroup" else "ok")


def test_a_single_memory_hog_is_a_limit_failure(arena_match):
    limits = Limits(start_ms=4000, decision_ms=8000, bank_ms=0, memory_mb=200)
    arena_match("hog", limits=limits, on_request='''
        hoard = [bytearray(50 << 20) for _ in range(10)]
        reply({"type": "action", "index": 0})''', status="limit")


def test_reserving_address_space_is_not_using_memory(arena_match, resources):
    arena_match("reserve", on_start='''
        import mmap
        try:
            region = mmap.mmap(-1, 8 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0))
            sys.stderr.write("RESERVED\\n")
        except OSError:
            pass
        reply({"type": "ready"})''',
                check=(lambda result: "RESERVED" in result.seats[0].stderr) if resources == "cgroup" else None)


@pytest.mark.parametrize("where", ["HOME", "/tmp", "/dev/shm"])
def test_filling_its_disk_stops_at_the_cap(arena_match, where):
    folder = 'os.environ["HOME"]' if where == "HOME" else repr(where)
    result = arena_match("filler", on_start=f'''
        written = 0
        try:
            with open(os.path.join({folder}, "fill"), "wb") as handle:
                while written < (400 << 20):
                    handle.write(b"x" * (1 << 20))
                    written += 1 << 20
        except OSError:
            pass
        sys.stderr.write("FILLED %d\\n" % written)
        reply({{"type": "ready"}})''', limits=Limits(start_ms=8000, decision_ms=1000, bank_ms=1000, disk_mb=32))
    filled = int(next(l for l in result.seats[0].stderr.splitlines() if l.startswith("FILLED")).split()[1])
    assert filled <= 33 << 20


@pytest.mark.skipif("cgroup" not in RESOURCE_MODES, reason="equal CPU shares need cgroups (root, writable cgroupfs)")
@pytest.mark.parametrize("resources", ["cgroup"], indirect=True)
def test_spinning_children_do_not_take_the_opponents_time(arena_match, resources, tmp_path):
    honest = tmp_path / "opponent" / "burner.py"
    honest.write_text(textwrap.dedent('''
        import json, sys, time
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "start":
                print(json.dumps({"type": "ready"}), flush=True)
            elif m["type"] == "request":
                began = time.process_time()
                while time.process_time() - began < 0.1:
                    pass
                print(json.dumps({"index": 0}), flush=True)
            elif m["type"] == "quit":
                break
        '''))
    os.chmod(honest, 0o644)
    limits = Limits(start_ms=5000, decision_ms=600, bank_ms=0)
    arena_match("spinner", limits=limits, opponent=str(honest), rounds=5, on_start='''
        for _ in range(12):
            if os.fork() == 0:
                while True:
                    pass
        reply({"type": "ready"})''', on_request='''
        reply({"type": "action", "index": 0})''')


# ---- no false verdicts ---------------------------------------------------------------------------

def test_closing_stdout_is_a_crash_but_a_slow_start_is_not(arena_match):
    arena_match("slowstart", on_start='''
        time.sleep(1.5)
        reply({"type": "ready"})''')
    arena_match("closer", on_request='''
        if requests == 2:
            os.close(1)
            time.sleep(5)
        reply({"type": "action", "index": 0})''', status="crash")


def test_a_bot_that_never_reads_its_input_times_out(arena_match):
    # On the CPU clock a bot that waits is stopped by the wall-time cap, 10 × 100 ms + 1 s here.
    arena_match("deaf", on_start='''
        reply({"type": "ready"})
        time.sleep(60)''', status="timeout", limits=Limits(start_ms=4000, decision_ms=100, bank_ms=0))


def test_a_perl_style_die_is_named_as_its_exit_code(arena_match):
    result = arena_match("dier", on_request='''
        sys.stderr.write("Died at bot.pl line 3.\\n")
        os._exit(255)''', status="crash")
    assert "exited with code 255" in result.seats[0].error
    assert "Died at bot.pl line 3." in result.seats[0].error


def test_a_segfault_is_named_as_a_signal(arena_match):
    result = arena_match("segv", on_request='''
        import ctypes
        ctypes.string_at(0)''', status="crash")
    assert "SIGSEGV" in result.seats[0].error
