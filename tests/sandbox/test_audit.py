"""An attacker's audit of the Solve sandbox (issue 19's promises), one test per attack.

Each test runs a hostile program through ``run_python`` (or, for the kernel layers alone, with
the in-process guard left out, ``guard=False``) and asserts that the promise holds: a failing
test is a successful attack. Programs that need native code (raw system calls, a 32-bit
``int 0x80``) get ``ctypes`` by binding libffi into the minimal root (``native`` below): that
models an attacker who got past the interpreter, so only the kernel stands in the way.
"""

from __future__ import annotations

import errno
import fcntl
import json
import threading
from pathlib import Path

import pytest
from helpers.sandbox_programs import LIMITS, native, run

from docqa.sandbox import SandboxLimits, SandboxResult, machine
from docqa.sandbox import isolation as isolation_module

pytestmark = pytest.mark.skipif(
    not machine.current().available, reason="no kernel isolation on this machine"
)

CHILD = Path(isolation_module.__file__).with_name("child.py")


# --- host files, environment, other processes' /proc ------------------------------------------


@pytest.mark.parametrize("guard", [True, False])
def test_host_files_environment_and_proc_are_invisible(monkeypatch, guard):
    monkeypatch.setenv("DOCQA_AUDIT_SECRET", "sk-audit-4242")
    code = """
import os
seen = {}
for path in ["/etc/hostname", "/etc/passwd", "/proc/1/environ", "/proc/self/environ",
             "/proc/1/cmdline", "/root/.bashrc", "/work/main/pyproject.toml", "/tmp", "/home",
             "/sys/kernel", "/run"]:
    try:
        with open(path, "rb") as handle:
            seen[path] = handle.read(200).decode("latin-1")
    except OSError as error:
        seen[path] = type(error).__name__
os.lseek(0, 0, 0)
request = os.read(0, 1 << 20)
result = {"seen": seen, "env": dict(os.environ),
          "secret_in_request": ("sk-audit-" + "4242").encode() in request}
"""
    outcome = run(code, guard=guard)
    assert outcome.kind == "ok", outcome
    for path, what in outcome.result["seen"].items():
        assert what in ("FileNotFoundError", "PermissionError", "IsADirectoryError"), path
    assert "sk-audit-4242" not in json.dumps(outcome.result["env"])
    assert set(outcome.result["env"]) <= {"LC_ALL", "PWD"}
    assert not outcome.result["secret_in_request"]


def test_root_holds_only_the_interpreter_and_its_libraries():
    code = """
import os
found = []
def walk(path, depth):
    for entry in os.scandir(path):
        found.append(entry.path)
        if entry.is_dir(follow_symlinks=False) and depth < 6 and "python3." not in entry.name:
            walk(entry.path, depth + 1)
walk("/", 0)
result = found
"""
    outcome = run(code, guard=False)
    assert outcome.kind == "ok", outcome
    allowed = ("/box", "/sandbox", "/usr", "/lib", "/lib64", "/root", "/opt", "/bin")
    for path in outcome.result:
        assert path.startswith(allowed), path
        assert not path.startswith(("/etc", "/proc", "/dev", "/sys", "/tmp", "/work", "/home"))
    # only files the interpreter maps, its stdlib and child.py: no repository, no dotfiles
    assert not [p for p in outcome.result if "/work/" in p or p.endswith((".env", "rc"))]


@pytest.mark.parametrize("guard", [True, False])
def test_cannot_write_outside_the_box(guard):
    code = f"""
import os
out = {{}}
for path in ["/evil", "/sandbox/child.py", "{CHILD}", "/root/x", "/usr/x", "/box/../x"]:
    try:
        with open(path, "a") as handle:
            handle.write("pwned")
        out[path] = "written"
    except OSError as error:
        out[path] = type(error).__name__
with open("/box/mine", "w") as handle:
    out["box"] = handle.write("ok")
result = out
"""
    before = CHILD.read_bytes()
    outcome = run(code, guard=guard)
    assert outcome.kind == "ok", outcome
    assert "written" not in outcome.result.values(), outcome.result
    assert outcome.result["box"] == 2
    assert CHILD.read_bytes() == before


def test_links_devices_and_fifos_in_the_box_are_refused_by_the_kernel():
    code = """
import os
out = {}
attempts = {
    "symlink": lambda: os.symlink("/etc/passwd", "/box/link"),
    "hardlink": lambda: os.link("/sandbox/child.py", "/box/hard"),
    "rename_in": lambda: os.rename("/sandbox/child.py", "/box/child.py"),
    "mkdir": lambda: os.mkdir("/box/folder"),
    "chmod": lambda: os.chmod("/box", 0o777),
    "exec_file": lambda: os.open("/box/x", os.O_CREAT | os.O_WRONLY, 0o755),
    "dev": lambda: os.listdir("/dev"),
    "tty": lambda: os.open("/dev/tty", os.O_RDWR),
}
for name, attempt in attempts.items():
    try:
        attempt()
        out[name] = "done"
    except OSError as error:
        out[name] = type(error).__name__
result = out
"""
    outcome = run(code, guard=False)
    assert outcome.kind == "ok", outcome
    assert "done" not in outcome.result.values(), outcome.result


def test_mknod_is_a_forbidden_call():
    outcome = run("import os\nos.mkfifo('/box/fifo')", guard=False)
    assert outcome.kind == "forbidden", outcome


# --- network --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "family",
    [
        "socket.AF_INET, socket.SOCK_STREAM",
        "socket.AF_INET6, socket.SOCK_DGRAM",
        "socket.AF_UNIX, socket.SOCK_STREAM",
        "socket.AF_NETLINK, socket.SOCK_RAW, 0",
    ],
)
def test_every_socket_family_is_a_forbidden_call(family):
    code = f"import socket\ns = socket.socket({family})\ns.connect(('127.0.0.1', 22))"
    outcome = run(code, guard=False)
    assert outcome.kind == "forbidden", outcome


def test_abstract_unix_socket_and_socketpair_are_forbidden():
    code = "import socket\na, b = socket.socketpair()"
    assert run(code, guard=False).kind == "forbidden"
    outcome = run("import socket\nsocket.socket(socket.AF_UNIX).connect('\\0x')", guard=True)
    assert outcome.kind == "error"
    assert outcome.blocked  # the guard: no import of socket


# --- other processes ------------------------------------------------------------------------


def test_signals_to_anyone_fail():
    code = """
import _thread, os, signal
out = {}
for name, attempt in {
    "kill_all": lambda: os.kill(-1, signal.SIGKILL),
    "kill_parent": lambda: os.kill(os.getppid() or 0, signal.SIGKILL),
    "kill_2": lambda: os.kill(2, signal.SIGKILL),
    "killpg": lambda: os.killpg(0, signal.SIGKILL),
    "self_xcpu": lambda: signal.raise_signal(signal.SIGXCPU),
    "self_sys": lambda: signal.pthread_kill(_thread.get_ident(), signal.SIGSYS),
}.items():
    try:
        attempt()
        out[name] = "sent"
    except OSError as error:
        out[name] = type(error).__name__
result = out
"""
    outcome = run(code, guard=False)
    assert outcome.kind == "ok", outcome
    assert "sent" not in outcome.result.values(), outcome.result


@pytest.mark.parametrize(
    "call",
    [
        "sc(101, 16, 1, 0, 0)",  # ptrace(PTRACE_ATTACH, 1)
        "sc(310, 1, 0, 1, 0, 1, 0)",  # process_vm_readv
        "sc(434, 1, 0)",  # pidfd_open
        "sc(424, 3, 9, 0, 0)",  # pidfd_send_signal
        "sc(56, 17, 0, 0, 0, 0)",  # clone (fork)
        "sc(272, 0x10000000)",  # unshare(CLONE_NEWUSER)
        "sc(165, 0, 0, 0, 0, 0)",  # mount
        "sc(425, 8, 0)",  # io_uring_setup
    ],
)
def test_native_escapes_are_killed_by_seccomp(call):
    outcome = native(f"result = {call}")
    assert outcome.kind == "forbidden", outcome


def test_32bit_system_call_abi_is_killed():
    code = """
import mmap
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(bytes([0xB8, 0x14, 0, 0, 0, 0xCD, 0x80, 0xC3]))  # mov eax, 20 (getpid); int 0x80
address = ctypes.addressof(ctypes.c_char.from_buffer(page))
result = ctypes.CFUNCTYPE(ctypes.c_int)(address)()
"""
    assert native(code).kind == "forbidden"


def test_native_calls_that_reach_out_fail_with_eperm():
    code = """
import errno
buffer = ctypes.create_string_buffer(256)
address = ctypes.addressof(buffer)
calls = {
    "kill(-1)": (62, -1, 9),
    "tgkill": (234, 1, 1, 31),
    "rt_sigqueueinfo": (129, 1, 31, address),
    "setuid(0)": (105, 0),
    "setresuid": (117, 0, 0, 0),
    "capset": (126, address, address),
    "prctl(seccomp)": (157, 22, 0),
    "setrlimit": (160, 0, address),
    "prlimit64(other)": (302, 2, 9, address, 0),
    "ioctl(TIOCSTI)": (16, 0, 0x5412, address),
    "ioctl(TIOCSTI,1)": (16, 1, 0x5412, address),
    "clock_settime": (227, 0, address),
    "settimeofday": (164, address, 0),
    "adjtimex": (159, address),
    "memfd_create": (319, address, 0),
    "openat2": (437, -100, address, address, 24),
    "fchmod": (91, 0, 0o4755),
    "setsid": (112,),
    "setpgid": (109, 0, 0),
    "syslog": (103, 3, address, 256),
    "inotify_init1": (294, 0),
    "sendfile": (40, 1, 0, 0, 10),
    "sysinfo": (99, address),
    "statfs": (137, ctypes.addressof(ctypes.create_string_buffer(b"/usr")), address),
    "fstatfs": (138, 0, address),
    "open_by_handle_at": (304, 0, address, 0),
    "flock(stdin)": (73, 0, 2),
    "x32 getpid": (0x40000000 + 39,),
}
result = {name: sc(*call) for name, call in calls.items()}
"""
    outcome = native(code)
    assert outcome.kind == "ok", outcome
    for name, (value, error) in outcome.result.items():
        assert value == -1, (name, value, error)


def test_two_sandboxes_cannot_touch_each_other():
    """The first sleeps; the second signals every pid it can name and looks for the first."""
    results: dict[str, SandboxResult] = {}
    sleeper = "import time\nopen('/box/secret', 'w').write('s')\ntime.sleep(1.5)\nresult = 'alive'"
    attacker = """
import os, signal
hits = []
for pid in [-1, 0, 1, 2, 3, 4, 5, 10, 100]:
    try:
        os.kill(pid, signal.SIGKILL)
        hits.append(pid)
    except OSError:
        pass
result = {"hits": hits, "box": os.listdir("/box")}
"""

    def start(name: str, code: str) -> None:
        results[name] = run(code, guard=False)

    first = threading.Thread(target=start, args=("sleeper", sleeper))
    first.start()
    start("attacker", attacker)
    first.join()
    assert results["sleeper"].kind == "ok"
    assert results["sleeper"].result == "alive"
    assert results["attacker"].result == {"hits": [], "box": []}


def test_file_locks_are_no_channel_to_the_host_or_another_sandbox():
    """A lock on a file of the minimal root is a lock on the host's file: a program that can
    take or test one can talk to another sandbox (or see a host process) through it."""
    code = """
import fcntl, os, struct
fd = os.open("/sandbox/child.py", os.O_RDONLY)
out = {}
try:
    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    out["flock"] = "taken"
except OSError as error:
    out["flock"] = error.errno
probe = struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0)
for name, command in {"getlk": fcntl.F_GETLK, "setlk": fcntl.F_SETLK,
                      "ofd_getlk": 36, "ofd_setlk": 37}.items():
    try:
        answer = fcntl.fcntl(fd, command, probe)
        out[name] = struct.unpack("hhqqi", answer)[0]
    except OSError as error:
        out[name] = error.errno
for name, command, argument in [("setown", fcntl.F_SETOWN, 1), ("setsig", 10, 9),
                                ("notify", 1026, 0), ("setlease", 1024, 0)]:
    try:
        fcntl.fcntl(fd, command, argument)
        out[name] = "done"
    except OSError as error:
        out[name] = error.errno
result = out
"""
    with open(CHILD, "rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        outcome = run(code, guard=False)
    assert outcome.kind == "ok", outcome
    # refused outright (EPERM), not "would block" (which tells the host's lock is there)
    for name, value in outcome.result.items():
        assert value == errno.EPERM, (name, value)


FUTEX_SIDE = """
import time
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
fd = os.open("/sandbox/child.py", os.O_RDONLY)
address = libc.mmap(None, 4096, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED: the host's page
value = ctypes.c_int.from_address(address).value
"""
FUTEX_WAITER = (
    FUTEX_SIDE
    + """
timeout = (ctypes.c_long * 2)(6, 0)
result = sc(202, address, 0, value, ctypes.addressof(timeout))  # FUTEX_WAIT, shared
"""
)
FUTEX_WAKER = (
    FUTEX_SIDE
    + """
woken, start = (0, 0), time.monotonic()
while time.monotonic() - start < 6:
    woken = sc(202, address, 1, 1)  # FUTEX_WAKE, shared
    if woken[0] != 0:
        break
    time.sleep(0.01)
result = woken
"""
)


def test_shared_futexes_are_no_channel_between_sandboxes():
    """A futex on a shared mapping of a file is keyed by the file's page: two sandboxes that map
    the same file of the minimal root could wake each other (a channel between programs that
    must not meet). Only process-private futexes (what the interpreter uses) are allowed."""
    results: dict[str, SandboxResult] = {}

    def start(name: str, code: str) -> None:
        results[name] = native(code)

    waiter = threading.Thread(target=start, args=("waiter", FUTEX_WAITER))
    waiter.start()
    start("waker", FUTEX_WAKER)
    waiter.join()
    assert results["waker"].kind == "ok", results["waker"]
    assert results["waiter"].kind == "ok", results["waiter"]
    # the wake reached nobody and the wait ended by itself: refused outright
    assert results["waker"].result == [-1, errno.EPERM]
    assert results["waiter"].result == [-1, errno.EPERM]


# --- the in-process guard (second layer) ------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "import ctypes",
        "import _ctypes",
        "(lambda: 0).__code__.replace(co_code=b'd\\xff\\x00\\x00S\\x00')",
        "import marshal\nmarshal.loads(b'\\xe3')",
        "f = lambda: 0\nf.__code__ = compile('1', 's', 'eval')",
        "import os\nos.execv('/proc/self/exe', ['python'])",
        "open('/sandbox/child.py').read()",
    ],
)
def test_guard_refuses_the_ways_to_native_code(code):
    outcome = run(code)
    assert outcome.kind == "error", outcome
    assert outcome.blocked, outcome


def test_a_second_audit_hook_is_not_added():
    outcome = run("import sys\nsys.addaudithook(lambda *a: None)\nresult = 1")
    assert outcome.blocked == ("sys.addaudithook",)  # refused, and silently not added


def test_guard_removed_through_traceback_frames_leaves_the_kernel():
    """The audit hook's state is reachable from the frames of a refusal's traceback; with its
    path checks cleared, the kernel still shows nothing of the host."""
    code = """
try:
    open("/etc/passwd")
except PermissionError as error:
    tb = error.__traceback__
    while tb:
        local = tb.tb_frame.f_locals
        if "path_events" in local:
            local["path_events"].clear()
        tb = tb.tb_next
out = {}
for path in ["/etc/passwd", "/proc/self/environ", "/sandbox/child.py"]:
    try:
        out[path] = len(open(path).read())
    except OSError as error:
        out[path] = type(error).__name__
result = out
"""
    outcome = run(code)
    assert outcome.kind == "ok", outcome
    assert outcome.result["/etc/passwd"] == "FileNotFoundError"
    assert outcome.result["/proc/self/environ"] == "FileNotFoundError"


def test_execve_of_a_fresh_interpreter_stays_in_the_sandbox():
    """execve must stay allowed (bwrap starts the interpreter under the filter): a program
    that runs a fresh interpreter (no audit hook, every stdlib module) meets the same kernel."""
    code = """
import os, sys
script = (
    "import os, sys\\n"
    "try:\\n"
    "    open('/etc/passwd')\\n"
    "    os._exit(7)\\n"
    "except OSError:\\n"
    "    pass\\n"
    "import socket\\n"
    "socket.socket()\\n"
)
os.execv(sys.executable, [sys.executable, "-I", "-S", "-c", script])
"""
    outcome = run(code, guard=False)
    assert outcome.kind == "forbidden", outcome


# --- limits ---------------------------------------------------------------------------------


def test_thread_and_fork_bombs_are_forbidden():
    assert run("import os\nwhile True:\n    os.fork()", guard=False).kind == "forbidden"
    outcome = run("import _thread\n_thread.start_new_thread(print, ())", guard=False)
    assert outcome.kind == "forbidden"
    guarded = run("import os\nos.fork()")
    assert guarded.kind == "error"
    assert guarded.blocked


def test_memory_cpu_wall_and_disk_limits():
    small = SandboxLimits(wall_seconds=20, memory_mb=128, cpu_seconds=1, box_mb=2, file_mb=1)
    assert run("x = bytearray(1 << 30)", limits=small).kind == "memory_limit"
    assert run("while True:\n    pass", limits=small, guard=False).kind == "cpu_limit"
    clock = SandboxLimits(wall_seconds=1.5, cpu_seconds=5)
    timed = run("import time\ntime.sleep(30)", limits=clock, guard=False)
    assert timed.kind == "timeout"
    assert timed.seconds < 10
    code = """
import os
written = []
for index in range(5):
    try:
        with open(f"/box/f{index}", "wb") as handle:
            handle.write(b"x" * (1 << 20))
        written.append(index)
    except OSError as error:
        written.append(type(error).__name__)
result = written
"""
    filled = run(code, limits=small, guard=False)
    assert (
        filled.kind == "ok"
        and "OSError" in filled.result
        or "FileTooLarge" not in str(filled.result)
    )
    assert sum(isinstance(item, int) for item in filled.result) <= 2


def test_closing_the_pipes_and_sleeping_is_a_timeout_not_a_hang():
    code = (
        "import os, time\nfor fd in range(64):\n    try:\n        os.close(fd)\n"
        "    except OSError:\n        pass\ntime.sleep(60)"
    )
    outcome = run(code, limits=SandboxLimits(wall_seconds=1.5), guard=False)
    assert outcome.kind == "timeout"


# --- output and outcome ---------------------------------------------------------------------


def test_huge_deep_and_invalid_output_is_capped_and_clean():
    code = """
import os
print("x" * 10_000_000)
print("\\ud800 lone surrogate")
os.write(1, b"\\xff\\xfe invalid utf-8 " * 100)
deep = []
for _ in range(100_000):
    deep = [deep]
result = {"\\udcff key": "\\ud83d", "deep": deep}
"""
    outcome = run(code)
    assert outcome.kind == "ok", outcome
    assert len(outcome.stdout) <= LIMITS.output_chars + 100
    assert "repr" in outcome.result  # too deep for JSON: its repr, cut


def test_look_alike_result_markers_on_stdout_decide_nothing():
    code = (
        'import os\nprint(\'{"kind": "ok", "result": "42", "stdout": "", "error": "",'
        ' "stdout_dropped": 0}\')\n'
        "os.write(1, b'{\"kind\": \"ok\"}')\nraise ValueError('real error')"
    )
    outcome = run(code)
    assert outcome.kind == "error"
    assert "real error" in outcome.error


@pytest.mark.parametrize("status", [1, 128 + 31, 128 + 24, 128 + 9, 255, 0x100])
def test_exit_statuses_cannot_claim_a_signal_or_a_limit(status):
    outcome = run(f"import os\nos._exit({status})", guard=False)
    assert outcome.kind == "crash", outcome


def test_forged_values_document_cannot_make_the_caller_raise():
    """The program can write its own values document on the result descriptor; a count of
    dropped characters with 4300 digits made the caller's f-string raise ValueError."""
    code = """
import json, os
fd = json.loads(os.pread(0, 1 << 20, 0))["result_fd"]
nines = int("9" * 4300)
document = {"kind": "ok", "result": "1", "stdout": "y" * 5000, "error": "",
            "stdout_dropped": nines}
os.write(fd, json.dumps(document).encode())
os._exit(0)
"""
    outcome = run(code)  # must not raise
    assert outcome.kind in ("ok", "crash")
    assert len(outcome.stdout) <= LIMITS.output_chars + 100


def test_nan_and_infinite_results_round_trip():
    outcome = run("result = [float('nan'), float('inf'), 10 ** 4000]")
    assert outcome.kind == "ok"
    json.dumps(outcome.result)


def test_no_files_are_left_behind(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    run("open('/box/a', 'w').write('x' * 1000)\nimport os\nos._exit(3)", guard=False)
    assert list(tmp_path.iterdir()) == []


def test_inherited_descriptors_are_the_request_and_three_pipes():
    code = """
import os, stat
found = {}
for fd in range(1024):
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        continue
    found[fd] = "fifo" if stat.S_ISFIFO(mode) else "file" if stat.S_ISREG(mode) else "other"
try:
    os.write(0, b"x")
    found["write_stdin"] = "written"
except OSError as error:
    found["write_stdin"] = type(error).__name__
result = found
"""
    outcome = run(code, guard=False)
    assert outcome.kind == "ok", outcome
    found = outcome.result
    assert found.pop("write_stdin") == "OSError"  # the request: read-only
    assert found.pop("0") == "file"
    assert set(found.values()) == {"fifo"}  # the console and the two channels
    assert len(found) == 4  # 1, 2, the values and the refusals


# --- what the kernel cannot vouch for (documented, not fixed: see the report) ----------------
# The program runs in the process that reports its values and the guard's refusals, so what
# travels on those descriptors is the program's own word. Only timeout, cpu_limit, forbidden
# and crash (and seconds, cpu_seconds) are read from what the kernel counts.


@pytest.mark.xfail(strict=True, reason="memory_limit is the child's report, not the kernel's")
def test_memory_limit_cannot_be_claimed_without_memory():
    outcome = run("raise MemoryError")
    assert outcome.kind != "memory_limit"


@pytest.mark.xfail(strict=True, reason="the refusal pipe is open in the program's own process")
def test_refusals_cannot_be_forged():
    code = """
import json, os
fd = json.loads(os.pread(0, 1 << 20, 0))["refusal_fd"]
os.write(fd, b"socket.socket\\n")
result = 1
"""
    assert run(code).blocked == ()


@pytest.mark.xfail(strict=True, reason="the refusal pipe is open in the program's own process")
def test_refusals_cannot_be_hidden():
    code = """
import json, os
os.close(json.loads(os.pread(0, 1 << 20, 0))["refusal_fd"])
try:
    open("/etc/passwd")
except OSError:
    pass
result = 1
"""
    assert run(code).blocked != ()


def test_empty_files_cannot_take_memory_beyond_the_limits():
    """tmpfs counts bytes, not inodes: without ``nr_inodes`` empty files cost ~1 KB of kernel
    memory each, outside RLIMIT_AS and box_mb (measured: 275 744 files, about 200 MB of slab,
    in 5 s of wall time); the box the launcher mounts has an inode limit."""
    code = """
import os, time
count, start = 0, time.monotonic()
try:
    while time.monotonic() - start < 1.5 and count < 20_000:
        os.close(os.open(f"/box/{count}", os.O_CREAT | os.O_WRONLY, 0o600))
        count += 1
except OSError:
    pass
result = count
"""
    assert run(code, guard=False).result < 20_000
