"""The seccomp filter of the Solve sandbox: the system calls a pure-Python computation needs.

bubblewrap installs it (``--seccomp FD`` takes a compiled classic-BPF program) just before it
starts the interpreter, so it binds the interpreter from its first instruction, and whatever the
program does to its own memory, the kernel still checks every call. Written here as BPF rather
than through libseccomp: the program is a short allowlist, and writing it needs no package
beyond the standard library (libseccomp's Python bindings are not on PyPI as a wheel that
installs everywhere; Debian's ``python3-seccomp`` serves only the system Python).

The calls only an escape makes (``FORBIDDEN``: process creation, sockets, ``ptrace`` and
``process_vm_*``, ``pidfd_*``, namespaces, mounts, ``mknod``, ``io_uring``, ``bpf``,
``keyctl`` …) kill the process with SIGSYS, so that the parent can say so from the exit status;
every other call that is not listed fails with ``EPERM`` (``mkdir`` and links: the box holds
plain files only; ``chmod``, ``kill``, ``prctl``, ``seccomp``, ``setuid``, ``setrlimit`` …;
``flock``, and ``sysinfo`` and ``statfs``, which tell the host's process count, memory and disk
use; ``pipe``/``pipe2`` and every call that makes an anonymous inode (``eventfd``, ``inotify``,
``timerfd``, ``signalfd``, ``epoll``, ``memfd``): their inode numbers come from a counter that
every process of the machine advances, which two sandboxes could read and move; the program
keeps the three pipes the parent made; ``mincore``, which tells which pages of the files every
run maps are in the page cache; ``fsync``, ``fdatasync`` and ``msync``: on a file of the host's
disk each is a device flush, which costs the host I/O and whose timing another run can read).

A few calls are allowed only with safe arguments: a file created through ``open``/``openat``/
``creat`` must not be executable; ``ioctl`` only asks whether a descriptor is a terminal or sets
close-on-exec; ``fcntl`` only duplicates descriptors and gets or sets their flags (no
record locks, leases, notifications or signal owners); ``futex`` only on process-private
words (shared ones are keyed by the page of a file the host and every sandbox map: a channel
between sandboxes); ``exit``/``exit_group`` take a status under 128 (from 128 on, bubblewrap's
report of a death by a signal could be forged); ``prlimit64`` only reads the calling process's
limits (they are set before bubblewrap starts; a program that lowered its RLIMIT_CPU would be
killed early and read as ``cpu_limit``); ``madvise`` takes only advice about the process's own
memory (``MADVICE``); ``mmap`` neither locks pages nor takes huge ones
(``MMAP_REFUSED_FLAGS``); ``renameat2`` only ``RENAME_NOREPLACE`` (a whiteout is a device
node). A call through another ABI kills the process (32-bit) or fails (x32).
"""

from __future__ import annotations

import platform
import struct

#: ``uname -m`` → (AUDIT_ARCH value, the syscall numbers by name)
AUDIT_ARCH_X86_64 = 0xC000003E

X86_64 = {
    "read": 0,
    "write": 1,
    "open": 2,
    "close": 3,
    "stat": 4,
    "fstat": 5,
    "lstat": 6,
    "poll": 7,
    "lseek": 8,
    "mmap": 9,
    "mprotect": 10,
    "munmap": 11,
    "brk": 12,
    "rt_sigaction": 13,
    "rt_sigprocmask": 14,
    "rt_sigreturn": 15,
    "ioctl": 16,
    "pread64": 17,
    "pwrite64": 18,
    "readv": 19,
    "writev": 20,
    "access": 21,
    "select": 23,
    "sched_yield": 24,
    "mremap": 25,
    "madvise": 28,
    "dup": 32,
    "dup2": 33,
    "nanosleep": 35,
    "getitimer": 36,
    "alarm": 37,
    "setitimer": 38,
    "getpid": 39,
    "execve": 59,
    "exit": 60,
    "wait4": 61,
    "uname": 63,
    "fcntl": 72,
    "truncate": 76,
    "ftruncate": 77,
    "getdents": 78,
    "getcwd": 79,
    "chdir": 80,
    "fchdir": 81,
    "rename": 82,
    "rmdir": 84,
    "creat": 85,
    "unlink": 87,
    "readlink": 89,
    "umask": 95,
    "gettimeofday": 96,
    "getrlimit": 97,
    "getrusage": 98,
    "times": 100,
    "getuid": 102,
    "getgid": 104,
    "geteuid": 107,
    "getegid": 108,
    "getppid": 110,
    "getpgrp": 111,
    "getgroups": 115,
    "getresuid": 118,
    "getresgid": 120,
    "getpgid": 121,
    "getsid": 124,
    "rt_sigpending": 127,
    "rt_sigtimedwait": 128,
    "rt_sigsuspend": 130,
    "sigaltstack": 131,
    "arch_prctl": 158,
    "gettid": 186,
    "time": 201,
    "futex": 202,
    "sched_getaffinity": 204,
    "getdents64": 217,
    "set_tid_address": 218,
    "clock_gettime": 228,
    "clock_getres": 229,
    "clock_nanosleep": 230,
    "exit_group": 231,
    "waitid": 247,
    "openat": 257,
    "newfstatat": 262,
    "unlinkat": 263,
    "renameat": 264,
    "readlinkat": 267,
    "faccessat": 269,
    "pselect6": 270,
    "ppoll": 271,
    "set_robust_list": 273,
    "dup3": 292,
    "prlimit64": 302,
    "getcpu": 309,
    "renameat2": 316,
    "getrandom": 318,
    "statx": 332,
    "rseq": 334,
    "close_range": 436,
    "faccessat2": 439,
}

#: calls that only a program that got past the in-process guard makes, as an escape: the kernel
#: kills the process (SIGSYS), and the parent reports it from the exit status, which the program
#: cannot write. Every other call missing from the allowlist fails with EPERM.
FORBIDDEN = {
    "socket": 41,
    "connect": 42,
    "accept": 43,
    "sendto": 44,
    "recvfrom": 45,
    "sendmsg": 46,
    "recvmsg": 47,
    "bind": 49,
    "listen": 50,
    "socketpair": 53,
    "clone": 56,
    "fork": 57,
    "vfork": 58,
    "ptrace": 101,
    "mknod": 133,
    "personality": 135,
    "pivot_root": 155,
    "chroot": 161,
    "mount": 165,
    "umount2": 166,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "mknodat": 259,
    "unshare": 272,
    "accept4": 288,
    "perf_event_open": 298,
    "recvmmsg": 299,
    "sendmmsg": 307,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "bpf": 321,
    "execveat": 322,
    "userfaultfd": 323,
    "pidfd_send_signal": 424,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "pidfd_open": 434,
    "clone3": 435,
    "pidfd_getfd": 438,
}

#: calls allowed only with the argument checks below; every other name in X86_64 is allowed
CHECKED = (
    "open",
    "openat",
    "creat",
    "ioctl",
    "fcntl",
    "futex",
    "madvise",
    "mmap",
    "prlimit64",
    "renameat2",
    "exit",
    "exit_group",
)

#: the argument index of the mode of a created file, and of its flags (None: always creates)
CREATE_ARGS = {"open": (2, 1), "openat": (3, 2), "creat": (1, None)}
O_CREAT_OR_TMPFILE = 0o100 | 0o20000000
EXECUTABLE_BITS = 0o111
#: the kernel keeps the low byte of an exit status; with this bit it reads as 128 + a signal
SIGNAL_STATUS_BIT = 0x80
#: TCGETS (isatty), FIONCLEX, FIOCLEX
IOCTLS = (0x5401, 0x5450, 0x5451)
#: F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC: what the interpreter does with
#: its own descriptors. Not the locks (F_SETLK, F_GETLK, F_OFD_*), leases, F_NOTIFY or F_SETOWN/
#: F_SETSIG: a lock on a file of the read-only root is a lock on the host's file, which another
#: sandbox (or a host process) can take and test, a channel between programs that must not meet
FCNTLS = (0, 1, 2, 3, 4, 1030)
#: a futex on a shared mapping is keyed by the file's page, so two sandboxes that map the same
#: file of the root could wake each other; the interpreter's locks are process-private
FUTEX_PRIVATE_FLAG = 128
#: MADV_NORMAL, RANDOM, SEQUENTIAL, DONTNEED, FREE, HUGEPAGE, NOHUGEPAGE, DONTDUMP, DODUMP: what an
#: allocator says about its own memory. Not WILLNEED or POPULATE_* (they read pages of a shared
#: file into the page cache), COLD or PAGEOUT (they evict them), MERGEABLE (same-page merging
#: across processes, whose copy-on-write timing tells what another process holds), REMOVE, COLLAPSE
#: or the rest: together with mincore (refused), that is how one run writes to and reads the page
#: cache of the files every run shares
MADVICE = (0, 1, 2, 4, 8, 14, 15, 16, 17)
#: MAP_LOCKED and MAP_HUGETLB: memory taken from what the host keeps for everyone (locked pages,
#: the huge page pool), and whether it can be had tells one run what another holds
MMAP_REFUSED_FLAGS = 0x2000 | 0x40000
#: renameat2 may only refuse to replace (RENAME_NOREPLACE); RENAME_WHITEOUT leaves a character
#: device at the old name (a device node, which mknod may not make); nothing needs RENAME_EXCHANGE
RENAME_NOREPLACE = 1

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000
EPERM = 1
X32_BIT = 0x40000000

# classic BPF opcodes
LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RET = 0x06  # BPF_RET | BPF_K

NR, ARCH = 0, 4


def _arg(index: int, high: bool = False) -> int:
    """Offset of an argument's low (or high) 32 bits in ``struct seccomp_data`` (little-endian)."""
    return 16 + 8 * index + (4 if high else 0)


class UnsupportedArchitecture(RuntimeError):
    """No syscall table for this machine's architecture."""


class _Program:
    """A tiny assembler: instructions with symbolic jump targets, resolved at the end."""

    def __init__(self) -> None:
        self.code: list[tuple[int, object, object, int]] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def load(self, offset: int) -> None:
        self.code.append((LD_ABS, 0, 0, offset))

    def jump(self, op: int, value: int, true: object = 0, false: object = 0) -> None:
        self.code.append((op, true, false, value))

    def ret(self, value: int) -> None:
        self.code.append((RET, 0, 0, value))

    def assemble(self) -> bytes:
        out = bytearray()
        for position, (op, true, false, value) in enumerate(self.code):
            offsets = []
            for target in (true, false):
                if isinstance(target, str):
                    distance = self.labels[target] - position - 1
                    if not 0 <= distance <= 255:
                        raise ValueError(f"seccomp: jump to {target} out of range ({distance})")
                    offsets.append(distance)
                else:
                    offsets.append(int(target))  # type: ignore[call-overload]
            out += struct.pack("<HBBI", op, offsets[0], offsets[1], value & 0xFFFFFFFF)
        return bytes(out)


def syscall_table(machine: str | None = None) -> tuple[int, dict[str, int]]:
    """(AUDIT_ARCH, numbers) for ``machine`` (this one by default)."""
    machine = machine or platform.machine()
    if machine in ("x86_64", "amd64", "AMD64"):
        return AUDIT_ARCH_X86_64, X86_64
    raise UnsupportedArchitecture(
        f"the Solve sandbox's seccomp filter has a syscall table for x86_64 only, "
        f"not for {machine}: add this architecture's numbers to docqa/sandbox/seccomp.py"
    )


def build_filter(machine: str | None = None) -> bytes:
    """The compiled filter (``struct sock_filter`` array) bubblewrap's ``--seccomp`` reads."""
    arch, numbers = syscall_table(machine)
    program = _Program()
    program.load(ARCH)
    program.jump(JEQ, arch, 1, 0)
    program.ret(SECCOMP_RET_KILL_PROCESS)
    program.load(NR)
    program.jump(JGE, X32_BIT, "deny", 0)
    for number in FORBIDDEN.values():
        program.jump(JEQ, number, "kill", 0)
    for name, number in numbers.items():
        program.jump(JEQ, number, name if name in CHECKED else "allow", 0)
    program.ret(SECCOMP_RET_ERRNO | EPERM)
    # the argument checks; every jump goes forward, to the three endings below
    for name, (mode, flags) in CREATE_ARGS.items():
        program.label(name)
        if flags is not None:  # without O_CREAT or O_TMPFILE the mode is not used
            program.load(_arg(flags))
            program.jump(JSET, O_CREAT_OR_TMPFILE, 0, "allow")
        program.load(_arg(mode))
        program.jump(JSET, EXECUTABLE_BITS, "deny", "allow")
    program.label("ioctl")
    program.load(_arg(1, high=True))
    program.jump(JEQ, 0, 0, "deny")
    program.load(_arg(1))
    for request in IOCTLS:
        program.jump(JEQ, request, "allow", 0)
    program.jump(JEQ, 0, "deny", "deny")
    program.label("fcntl")  # the kernel reads the command as a 32-bit unsigned int
    program.load(_arg(1))
    for command in FCNTLS:
        program.jump(JEQ, command, "allow", 0)
    program.jump(JEQ, 0, "deny", "deny")
    program.label("futex")  # the operation is a 32-bit int
    program.load(_arg(1))
    program.jump(JSET, FUTEX_PRIVATE_FLAG, "allow", "deny")
    program.label("mmap")  # the flags are a 32-bit int
    program.load(_arg(3))
    program.jump(JSET, MMAP_REFUSED_FLAGS, "deny", "allow")
    program.label("madvise")  # the advice is a 32-bit int
    program.load(_arg(2))
    for advice in MADVICE:
        program.jump(JEQ, advice, "allow", 0)
    program.jump(JEQ, 0, "deny", "deny")
    # pid 0 (the calling process) and no new limit: the limits were set before bubblewrap
    # started, and a program that lowers its own RLIMIT_CPU would be killed early and read as
    # cpu_limit
    program.label("prlimit64")
    program.load(_arg(0))
    program.jump(JEQ, 0, 0, "deny")
    program.load(_arg(0, high=True))
    program.jump(JEQ, 0, 0, "deny")
    program.load(_arg(2))  # the new limit's pointer: NULL
    program.jump(JEQ, 0, 0, "deny")
    program.load(_arg(2, high=True))
    program.jump(JEQ, 0, "allow", "deny")
    program.label("renameat2")  # the flags are a 32-bit unsigned int
    program.load(_arg(4))
    program.jump(JSET, 0xFFFFFFFF & ~RENAME_NOREPLACE, "deny", "allow")
    # an exit status of 128 or more is what bwrap reports for a death by a signal: a program may
    # not claim one (glibc's _exit then faults, and the parent sees SIGSEGV: a crash)
    program.label("exit")
    program.label("exit_group")
    program.load(_arg(0))
    program.jump(JSET, SIGNAL_STATUS_BIT, "deny", "allow")
    program.label("deny")
    program.ret(SECCOMP_RET_ERRNO | EPERM)
    program.label("allow")
    program.ret(SECCOMP_RET_ALLOW)
    program.label("kill")
    program.ret(SECCOMP_RET_KILL_PROCESS)
    return program.assemble()
