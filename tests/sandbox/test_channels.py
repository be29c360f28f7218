"""The system-call channels of issue 27: what a program that got past the audit hook could
still use to reach another sandbox, forge its outcome, make a device node, run native code from
its box or cost the caller CPU. Each test but the one that reads the limits (it checks that
moving them before bubblewrap kept them) fails on the sandbox as it was before (bce9b4f); the
two box tests need the box mounted ``noexec`` by the launcher of ``isolation.py``.

Programs run with ``guard=False`` (what a program that cleared the audit hook meets: the kernel
alone) or through ``native`` (raw system calls through ctypes, ``helpers.sandbox_programs``)."""

from __future__ import annotations

import errno
import os
import resource
import struct

import pytest
from helpers.sandbox_programs import native, run

from docqa.sandbox import SandboxLimits, machine
from docqa.sandbox.isolation import elf_interpreter

pytestmark = pytest.mark.skipif(
    not machine.current().available, reason="no kernel isolation on this machine"
)

ROOMY = SandboxLimits(wall_seconds=30)


# --- anonymous inodes: the machine-wide pipe inode counter -------------------------------------


def test_pipes_are_refused_and_the_sandbox_own_pipes_still_work():
    """A pipe's inode number comes from a counter every process of the machine advances
    (``get_next_ino``): one sandbox making pipes and another reading ``st_ino`` of its own is a
    channel between runs that must not meet. The program gets no new pipe; the three the
    sandbox made before it started (values, refusals, console) carry its outcome as before."""
    code = """
import os
out = {}
for name, make in (("pipe", os.pipe), ("pipe2", lambda: os.pipe2(os.O_CLOEXEC))):
    try:
        make()
        out[name] = "made"
    except OSError as error:
        out[name] = error.errno
print("printed")
result = out
"""
    outcome = run(code, limits=ROOMY, guard=False)
    assert outcome.kind == "ok", outcome
    assert outcome.result == {"pipe": errno.EPERM, "pipe2": errno.EPERM}
    assert outcome.stdout.strip() == "printed"


def test_no_call_allocates_an_anonymous_inode_from_the_shared_counter():
    """pipe, eventfd, inotify, timerfd, signalfd, epoll, memfd and memfd_secret all fail with
    EPERM (sockets, userfaultfd, io_uring, pidfd, perf and bpf are killed: ``test_audit``)."""
    code = """
mask = ctypes.create_string_buffer(8)
name = ctypes.create_string_buffer(b"x")
fds = ctypes.create_string_buffer(8)
calls = {
    "pipe": (22, ctypes.addressof(fds)),
    "pipe2": (293, ctypes.addressof(fds), 0),
    "eventfd": (284, 0),
    "eventfd2": (290, 0, 0),
    "inotify_init": (253,),
    "inotify_init1": (294, 0),
    "timerfd_create": (283, 1, 0),
    "signalfd4": (289, -1, ctypes.addressof(mask), 8, 0),
    "epoll_create1": (291, 0),
    "memfd_create": (319, ctypes.addressof(name), 0),
    "memfd_secret": (447, 0),
    "fanotify_init": (300, 0, 0),
}
result = {call: sc(*args) for call, args in calls.items()}
"""
    outcome = native(code, ROOMY)
    assert outcome.kind == "ok", outcome
    assert all(value == [-1, errno.EPERM] for value in outcome.result.values()), outcome.result


# --- the page cache: mincore and madvise ---------------------------------------------------------


def test_no_call_reads_or_evicts_the_page_cache_state():
    """mincore tells which pages of a file of the shared root are in the page cache (another
    run's reads, or the host's, seen across time); cachestat and preadv2(RWF_NOWAIT) tell the
    same; fadvise(DONTNEED) and process_madvise evict pages, readahead loads them."""
    code = """
import mmap, sys, os
handle = open(sys.executable, "rb")
fd = handle.fileno()
# a copy-on-write view of the interpreter's first page (writable, so ctypes takes its address)
view = mmap.mmap(fd, 4096, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_WRITE)
address = ctypes.addressof(ctypes.c_char.from_buffer(view))
buffer = ctypes.create_string_buffer(4096)
vector = (ctypes.c_uint64 * 2)(ctypes.addressof(buffer), 4096)
range_ = (ctypes.c_uint64 * 2)(0, 4096)
stat = ctypes.create_string_buffer(64)
calls = {
    "mincore": (27, address, 4096, ctypes.addressof(buffer)),
    "fadvise64(DONTNEED)": (221, fd, 0, 4096, 4),
    "readahead": (187, fd, 0, 4096),
    "cachestat": (451, fd, ctypes.addressof(range_), ctypes.addressof(stat), 0),
    "preadv2(RWF_NOWAIT)": (327, fd, ctypes.addressof(vector), 1, 0, 0, 8),
    "process_madvise": (440, 0, ctypes.addressof(vector), 1, 21, 0),
}
result = {name: sc(*args) for name, args in calls.items()}
"""
    outcome = native(code, ROOMY)
    assert outcome.kind == "ok", outcome
    assert outcome.result == dict.fromkeys(outcome.result, [-1, errno.EPERM]), outcome.result


MADVISE = """
import mmap, sys
handle = open(sys.executable, "rb")
shared = mmap.mmap(handle.fileno(), 4096, prot=mmap.PROT_READ)
private = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE)
private[0] = 1
out = {}
for name, advice in ADVICE.items():
    mapping = private if name == "FREE" else shared
    try:
        mapping.madvise(advice)
        out[name] = "done"
    except OSError as error:
        out[name] = error.errno
result = out
"""
#: MADV_* numbers (Python 3.11's mmap names only some of them)
REFUSED = {"WILLNEED": 3, "COLD": 20, "PAGEOUT": 21, "POPULATE_READ": 22}
ALLOWED = {"NORMAL": 0, "RANDOM": 1, "SEQUENTIAL": 2, "DONTNEED": 4, "FREE": 8}


def test_madvise_takes_only_advice_that_leaves_the_page_cache_alone():
    """Evicting a page of a shared file (PAGEOUT, COLD) or reading it in (WILLNEED,
    POPULATE_READ) is how a program would write to the page cache that another run reads; the
    advice an allocator gives about its own memory stays allowed."""
    code = f"ADVICE = {dict(REFUSED, **ALLOWED)!r}\n" + MADVISE
    outcome = run(code, limits=ROOMY, guard=False)
    assert outcome.kind == "ok", outcome
    assert {name: outcome.result[name] for name in REFUSED} == dict.fromkeys(REFUSED, errno.EPERM)
    assert {name: outcome.result[name] for name in ALLOWED} == dict.fromkeys(ALLOWED, "done")


def test_same_page_merging_is_refused():
    outcome = native(
        "import mmap\npage = mmap.mmap(-1, 4096)\n"
        "address = ctypes.addressof(ctypes.c_char.from_buffer(page))\n"
        "result = [sc(28, address, 4096, 12), sc(28, address, 4096, 25)]",  # MERGEABLE, COLLAPSE
        ROOMY,
    )
    assert outcome.kind == "ok", outcome
    assert outcome.result == [[-1, errno.EPERM], [-1, errno.EPERM]]


# --- rlimits: set before bubblewrap starts, never changed by the program --------------------------


def test_the_limits_are_in_force_from_the_start_and_can_be_read():
    limits = SandboxLimits(
        cpu_seconds=7, memory_mb=300, file_mb=2, max_open_files=40, wall_seconds=30
    )
    code = """
import resource
result = {name: list(resource.getrlimit(getattr(resource, name)))
          for name in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE")}
"""
    outcome = run(code, limits=limits, guard=False)
    assert outcome.kind == "ok", outcome
    assert outcome.result == {
        "RLIMIT_CPU": [7, 7],
        "RLIMIT_AS": [300 << 20] * 2,
        "RLIMIT_FSIZE": [2 << 20] * 2,
        "RLIMIT_NOFILE": [40, 40],
        "RLIMIT_CORE": [0, 0],
    }


def test_a_program_cannot_change_its_limits():
    code = """
import resource
out = {}
for name, change in (
    ("setrlimit", lambda: resource.setrlimit(resource.RLIMIT_CPU, (1, 1))),
    ("prlimit", lambda: resource.prlimit(0, resource.RLIMIT_AS, (1 << 26, 1 << 26))),
    ("nofile", lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (3, 3))),
):
    try:
        change()
        out[name] = "changed"
    except (OSError, ValueError) as error:
        out[name] = type(error).__name__
out["cpu"] = list(resource.getrlimit(resource.RLIMIT_CPU))
result = out
"""
    outcome = run(code, limits=SandboxLimits(cpu_seconds=5, wall_seconds=30), guard=False)
    assert outcome.kind == "ok", outcome
    assert outcome.result["cpu"] == [5, 5]
    assert "changed" not in outcome.result.values(), outcome.result


def test_a_cpu_limit_outcome_cannot_be_forged_by_lowering_the_limit():
    """The parent says ``cpu_limit`` when the kernel killed the program with at least half its
    CPU limit used. A program that lowers its own RLIMIT_CPU to 3 s of its 4 is killed there:
    before, that read as "used more than 4 s of CPU time" after 3 s."""
    code = """
import resource
try:
    resource.prlimit(0, resource.RLIMIT_CPU, (3, 3))
except (OSError, ValueError) as error:
    result = "refused: " + type(error).__name__
else:
    while True:
        pass
"""
    limits = SandboxLimits(cpu_seconds=4, wall_seconds=30)
    outcome = run(code, limits=limits, guard=False)
    assert outcome.kind == "ok", outcome
    assert outcome.result.startswith("refused")


# --- renameat2: no whiteout device node ----------------------------------------------------------


def test_renameat2_cannot_make_a_whiteout_device():
    code = """
import os, stat
open("/box/a", "w").close()
open("/box/c", "w").close()
at = -100
def rename(old, new, flags):
    old, new = ctypes.create_string_buffer(old), ctypes.create_string_buffer(new)
    return sc(316, at, ctypes.addressof(old), at, ctypes.addressof(new), flags)
out = {
    "whiteout": rename(b"/box/a", b"/box/b", 4),
    "exchange": rename(b"/box/a", b"/box/c", 2),
    "noreplace": rename(b"/box/a", b"/box/d", 1),
    "plain": rename(b"/box/d", b"/box/e", 0),
}
out["devices"] = [n for n in os.listdir("/box") if not stat.S_ISREG(os.lstat("/box/" + n).st_mode)]
out["files"] = sorted(os.listdir("/box"))
result = out
"""
    outcome = native(code, ROOMY)
    assert outcome.kind == "ok", outcome
    assert outcome.result["whiteout"] == [-1, errno.EPERM]
    assert outcome.result["exchange"] == [-1, errno.EPERM]
    assert outcome.result["noreplace"] == [0, 0]
    assert outcome.result["plain"] == [0, 0]
    assert outcome.result["devices"] == []
    assert outcome.result["files"] == ["c", "e"]


# --- native code from the box --------------------------------------------------------------------


def preload_object(status: int) -> bytes:
    """A minimal x86-64 shared object (320 bytes) whose DT_INIT calls exit_group(status): what
    a program would write into its box to run native code through the bound dynamic loader
    (``ld.so --preload /box/x.so python`` maps it executable; the file needs no x bit)."""
    code = bytes([0xB8, 231, 0, 0, 0, 0xBF, status, 0, 0, 0, 0x0F, 0x05]).ljust(16, b"\x90")
    code_at = 64 + 2 * 56
    symtab_at = code_at + 16  # one null symbol
    strtab_at = symtab_at + 24  # ""
    dynamic_at = strtab_at + 8
    entries = [(12, code_at), (5, strtab_at), (6, symtab_at), (10, 1), (11, 24), (0, 0)]
    dynamic = b"".join(struct.pack("<qQ", tag, value) for tag, value in entries)
    size = dynamic_at + len(dynamic)
    header = struct.pack(
        "<4sBBBBB7xHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, 3, 62, 1, 0, 64, 0, 0, 64, 56, 2,
        64, 0, 0,
    )  # fmt: skip
    load = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, size, size, 0x1000)
    length = len(dynamic)
    dyn = struct.pack("<IIQQQQQQ", 2, 4, dynamic_at, dynamic_at, dynamic_at, length, length, 8)
    return header + load + dyn + code + bytes(32) + dynamic


def test_a_box_file_does_not_run_as_native_code_through_the_loader():
    """A 0600 file in the box, mapped by the bound dynamic loader: before, its code ran (the
    sandbox exited with the status it chose)."""
    loader = elf_interpreter(os.path.realpath(os.sys.executable))
    if not loader:
        pytest.skip("a static interpreter: no dynamic loader is bound")
    code = f"""
import os, sys
with open("/box/x.so", "wb") as handle:
    handle.write({preload_object(42)!r})
os.execv({loader!r}, [{loader!r}, "--preload", "/box/x.so", sys.executable, "-S", "-c", "pass"])
"""
    outcome = run(code, limits=ROOMY, guard=False)
    assert outcome.kind == "crash", outcome
    assert "status 42" not in outcome.error, outcome


def test_a_box_file_cannot_be_mapped_executable():
    code = """
import mmap
with open("/box/code", "wb") as handle:
    handle.write(bytes(4096))
handle = open("/box/code", "rb")
try:
    mmap.mmap(handle.fileno(), 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC)
    result = "mapped"
except OSError as error:
    result = error.errno
"""
    outcome = run(code, limits=ROOMY, guard=False)
    assert outcome.kind == "ok", outcome
    assert outcome.result == errno.EPERM


# --- the caller's CPU -----------------------------------------------------------------------------


def test_a_pipe_flood_costs_the_caller_little_cpu():
    """A program writing as fast as it can on every descriptor it holds (and resting only when
    no write goes through): the caller reads each pipe up to its cap and then closes it. Before,
    the caller read all of it: 2.2 s of its CPU for a 10 s run (measured on 2 loaded cores)."""
    code = """
import os, time
chunk = b"x" * 65536
while True:
    written = False
    for fd in range(1, 64):
        try:
            os.write(fd, chunk)
            written = True
        except OSError:
            pass
    if not written:
        time.sleep(0.1)
"""
    before = resource.getrusage(resource.RUSAGE_SELF)
    outcome = run(code, limits=SandboxLimits(cpu_seconds=5, wall_seconds=5), guard=False)
    after = resource.getrusage(resource.RUSAGE_SELF)
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert outcome.kind == "timeout", outcome
    assert spent < 0.3, f"the caller spent {spent:.2f} s of CPU reading the flood"


# --- shared host resources a program could use up or time (found by the issue-27 attack) ------


def test_no_call_flushes_the_host_disk():
    """fd 0 and the files of the root live on the host's disk: a flush of either is device I/O
    for the host, and its timing a channel to another run."""
    code = """
import mmap, os
out = {}
for name, call in (("fsync", lambda: os.fsync(0)), ("fdatasync", lambda: os.fdatasync(0))):
    try:
        call()
        out[name] = "flushed"
    except OSError as error:
        out[name] = error.errno
with open("/box/m", "wb") as handle:
    handle.write(b"x" * 4096)
with open("/box/m", "r+b") as handle, mmap.mmap(handle.fileno(), 4096) as mapped:
    try:
        mapped.flush()
        out["msync"] = "flushed"
    except OSError as error:
        out["msync"] = error.errno
result = out
"""
    outcome = run(code, limits=ROOMY, guard=False)
    assert outcome.kind == "ok", outcome
    assert outcome.result == {name: errno.EPERM for name in ("fsync", "fdatasync", "msync")}


def test_memory_cannot_be_locked_or_taken_from_the_huge_page_pool():
    code = """
import mmap
MAP_LOCKED, MAP_HUGETLB = 0x2000, 0x40000
flags = {"locked": MAP_LOCKED, "hugetlb": MAP_HUGETLB, "plain": 0}
out = {}
for name, flag in flags.items():
    address = sc(9, 0, 2 << 20, mmap.PROT_READ | mmap.PROT_WRITE,
                 mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | flag, -1, 0)
    out[name] = address if address[0] == -1 else "mapped"
import resource
out["memlock"] = list(resource.getrlimit(resource.RLIMIT_MEMLOCK))
result = out
"""
    outcome = native(code, ROOMY)
    assert outcome.kind == "ok", outcome
    assert outcome.result["locked"] == [-1, errno.EPERM]
    assert outcome.result["hugetlb"] == [-1, errno.EPERM]
    assert outcome.result["plain"] == "mapped"
    assert outcome.result["memlock"] == [0, 0]
