"""The kernel layers around a Solve program, and whether this machine can give them.

Each program runs under bubblewrap (``bwrap``, the Debian package ``bubblewrap``; ``make setup``
installs it) in new user, mount, PID, IPC, UTS, network and (where the kernel allows) cgroup
namespaces, with:

- a read-only root that holds only the interpreter, its standard library (site-packages
  hidden under an empty folder) and the shared libraries that the interpreter and the preloaded
  modules map (found once by asking the interpreter what it maps); no /proc, /dev, /etc, /tmp
  or home folder, so no other file of the machine, no process and no environment is visible;
- ``/box``, a private tmpfs of ``limits.box_mb`` that the kernel frees when the sandbox ends
  (nothing for the caller to clean up);
- the seccomp filter of ``seccomp.py``, ``no_new_privs`` (bubblewrap sets it), every
  capability dropped, further user namespaces disabled, uid and gid 65534 inside;
- the program as the only process of its PID namespace (``--as-pid-1``): it sees no other
  process, and bwrap reaps it, so the CPU time the kernel counts reaches the parent's ``wait4``;
- rlimits set by ``prlimit`` before bubblewrap starts (CPU, address space, file size, open
  files, no core file), which the program cannot change (``process.py``, ``seccomp.py``).

The first use probes the whole arrangement once (a real sandboxed run, ``machine.py``). When
it fails (no ``bwrap``, no user namespaces, an architecture without a seccomp table),
``machine.require`` raises ``SandboxUnavailable`` with the reason and the fix: Solve then
refuses to run; there is no weaker fallback. ``DOCQA_SANDBOX_BWRAP`` names another bwrap
binary (or ``none``: no isolation, to try the refusal path).
"""

from __future__ import annotations

import functools
import os
import struct
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

BWRAP_VARIABLE = "DOCQA_SANDBOX_BWRAP"
#: where the child's script and the box are inside the sandbox
CHILD_INSIDE = "/sandbox/child.py"
BOX = "/box"
SANDBOX_UID = 65534
#: the modules the child preloads (kept in step with child.PRELOAD by a test)
PRELOAD = (
    "_strptime",
    "bisect",
    "cmath",
    "collections",
    "copy",
    "datetime",
    "decimal",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "json",
    "math",
    "numbers",
    "operator",
    "random",
    "re",
    "statistics",
    "string",
    "textwrap",
    "unicodedata",
    "resource",
    "linecache",
    "traceback",
)
#: the isolation layers a run has, in the order they stand around the program
LAYERS = (
    "user_namespace",
    "mount_namespace",
    "pid_namespace",
    "ipc_namespace",
    "network_namespace",
    "uts_namespace",
    "minimal_root",
    "private_tmpfs_box",
    "seccomp",
    "no_new_privs",
    "no_capabilities",
    "rlimits",
    "audit_hook",
)
FIX = (
    "install bubblewrap (`make setup`, or `apt-get install bubblewrap`) and allow user "
    "namespaces (`sysctl -w kernel.unprivileged_userns_clone=1` and "
    "`sysctl -w user.max_user_namespaces=10000`; in a container, run it with user namespaces "
    "allowed, e.g. without a seccomp profile that blocks unshare/clone)"
)


class SandboxUnavailable(RuntimeError):
    """This machine cannot give the Solve sandbox its kernel isolation; Solve refuses to run."""


@dataclass(frozen=True)
class Isolation:
    """What a run gets on this machine: ``available`` with its ``layers``, or ``reason``."""

    available: bool
    reason: str = ""
    layers: tuple[str, ...] = ()
    bwrap: str = ""
    python: str = ""
    #: (source outside, path inside) of every read-only bind of the minimal root
    binds: tuple[tuple[str, str], ...] = ()
    #: folders inside covered by an empty tmpfs (the interpreter's site-packages)
    hidden: tuple[str, ...] = ()
    seccomp: bytes = field(default=b"", repr=False)

    @property
    def level(self) -> str:
        """One line for ``docqa doctor`` and the traces."""
        if not self.available:
            return f"none: {self.reason}"
        return "kernel (bubblewrap): " + ", ".join(self.layers)


def minimal_root(python: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The read-only binds that let ``python`` start and import ``PRELOAD``: the interpreter,
    its standard library and every file it maps (found by running it once outside)."""
    code = (
        f"import {', '.join(PRELOAD)}\n"
        "print('\\n'.join(sorted({l.split(None, 5)[5].strip() for l in open('/proc/self/maps')"
        " if len(l.split(None, 5)) == 6 and l.split(None, 5)[5].startswith('/')})))"
    )
    mapped = subprocess.run(
        [python, "-I", "-S", "-B", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"LC_ALL": "C.UTF-8"},
        check=True,
    ).stdout.split("\n")
    paths = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})
    stdlib = os.path.realpath(paths["stdlib"])
    places = {os.path.realpath(path) for path in (paths["stdlib"], paths["platstdlib"])}
    binds: dict[str, str] = {place: place for place in places if os.path.isdir(place)}
    files = [os.path.realpath(path) for path in mapped if path and os.path.isfile(path)]
    for path in files:
        if not any(path.startswith(place + "/") for place in places):
            binds[path] = path
    binds[python] = python
    # the names the dynamic loader asks for may be links to the files it maps
    for path in files:
        folder = os.path.dirname(path)
        for entry in _links_to(folder, set(files)):
            binds.setdefault(entry, entry)
    loader = elf_interpreter(python)
    if loader:
        binds[loader] = loader
    hidden = tuple(
        sorted(
            os.path.realpath(paths[key])
            for key in ("purelib", "platlib")
            if os.path.isdir(paths[key]) and os.path.realpath(paths[key]).startswith(stdlib + "/")
        )
    )
    # a bind's source is the real file; where a path inside is a link, bind the file there
    return tuple((os.path.realpath(src), dst) for dst, src in sorted(binds.items())), hidden


@functools.cache
def _links_in(folder: str) -> tuple[tuple[str, str], ...]:
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_symlink():
                    found.append((entry.path, os.path.realpath(entry.path)))
    except OSError:
        pass
    return tuple(found)


def _links_to(folder: str, targets: set[str]) -> list[str]:
    return [link for link, target in _links_in(folder) if target in targets]


def elf_interpreter(binary: str) -> str:
    """The program interpreter (PT_INTERP, e.g. /lib64/ld-linux-x86-64.so.2) of a 64-bit
    little-endian ELF file, or "" for a static one."""
    with open(binary, "rb") as handle:
        header = handle.read(64)
        if header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
            raise ValueError(f"{binary} is not a 64-bit little-endian ELF file")
        (phoff,) = struct.unpack_from("<Q", header, 0x20)
        entry_size, count = struct.unpack_from("<HH", header, 0x36)
        for index in range(count):
            handle.seek(phoff + index * entry_size)
            kind, _, offset, _, _, size = struct.unpack("<IIQQQQ", handle.read(40))
            if kind == 3:  # PT_INTERP
                handle.seek(offset)
                return handle.read(size).rstrip(b"\0").decode()
    return ""


def bwrap_arguments(isolation: Isolation, seccomp_fd: int, box_bytes: int) -> list[str]:
    """bubblewrap's options for one run (the command follows them)."""
    arguments = [
        "--unshare-user",
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--hostname",
        "sandbox",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
        "--clearenv",
        "--setenv",
        "LC_ALL",
        "C.UTF-8",
    ]
    for source, inside in isolation.binds:
        arguments += ["--ro-bind", source, inside]
    for folder in isolation.hidden:
        arguments += [
            "--size",
            "4096",
            "--perms",
            "0555",
            "--tmpfs",
            folder,
            "--remount-ro",
            folder,
        ]
    arguments += ["--ro-bind", str(Path(__file__).with_name("child.py")), CHILD_INSIDE]
    arguments += ["--size", str(box_bytes), "--perms", "0700", "--tmpfs", BOX, "--chdir", BOX]
    arguments += ["--remount-ro", "/", "--seccomp", str(seccomp_fd)]
    return arguments
