"""The kernel layers around a Solve program, and whether this machine can give them.

Each program runs under bubblewrap (``bwrap``, the Debian package ``bubblewrap``; ``make setup``
installs it) in new user, mount, PID, IPC, UTS, network and (where the kernel allows) cgroup
namespaces. A launcher starts it (``launcher``): as root it first drops to ``HOST_UID``
(``setpriv``), so that the program is an unprivileged uid on the host too; then ``unshare``
makes a user and mount namespace of its own, where ``sh`` mounts the box tmpfs with a size and
an inode limit (bubblewrap 0.8 cannot set ``nr_inodes``) and execs bubblewrap. The program gets:

- a read-only root on bubblewrap's tmpfs that holds single files only: the interpreter, the
  shared libraries that it and the preloaded modules map (found once by asking the interpreter
  what it maps), its extension modules, and its standard library as one zip, all from this
  machine's image (``image.py``). No host folder is bound, so looking up names leaves no
  dentries in the host's cache; no /proc, /dev, /etc, /tmp or home folder, so no other file of
  the machine, no process and no environment is visible;
- ``/box``, a private tmpfs of ``limits.box_mb`` and ``BOX_INODES_PER_MB`` inodes a MB that the
  kernel frees when the sandbox ends (nothing for the caller to clean up);
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
import shutil
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from docqa.sandbox import image

BWRAP_VARIABLE = "DOCQA_SANDBOX_BWRAP"
#: where the child's script and the box are inside the sandbox
CHILD_INSIDE = "/sandbox/child.py"
BOX = "/box"
SANDBOX_UID = 65534
#: the uid the sandbox runs as on the host when the caller is root ("nobody"): it owns no file,
#: so the program's files and the page cache of the files it reads are not root's
HOST_UID = 65534
#: inodes of the box per MB of its size (tmpfs counts bytes, not files: without a limit, empty
#: files cost about 1 KB of kernel memory each, outside every rlimit)
BOX_INODES_PER_MB = 256
#: where the launcher's tools are looked for
LAUNCH_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
#: run by ``sh`` in the launcher's mount namespace: mount the box (size, inodes, mount point)
#: and become bubblewrap
MOUNT_BOX = (
    '{mount} -n -t tmpfs -o "noexec,nosuid,nodev,size=$1,nr_inodes=$2,mode=0700" docqa-box "$3"'
    ' && shift 3 && exec "$@"'
)
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
    #: (source outside, path inside) of every read-only bind of the minimal root: single
    #: files only (a bound host folder would keep the negative dentries of lookups in it)
    binds: tuple[tuple[str, str], ...] = ()
    #: empty folders inside (made on bubblewrap's tmpfs), where the interpreter expects them
    folders: tuple[str, ...] = ()
    #: what starts bubblewrap: the uid drop (as root), the user and mount namespace, the box
    launcher: tuple[str, ...] = ()
    #: the folder outside where the launcher mounts the box, bound on /box
    box_mount: str = ""
    seccomp: bytes = field(default=b"", repr=False)

    @property
    def level(self) -> str:
        """One line for ``docqa doctor`` and the traces."""
        if not self.available:
            return f"none: {self.reason}"
        return "kernel (bubblewrap): " + ", ".join(self.layers)


@dataclass(frozen=True)
class Root:
    """What the interpreter needs inside, found by running it once outside."""

    #: (file outside, path inside) of the interpreter, the files it maps and their links
    files: tuple[tuple[str, str], ...]
    #: the pure-Python standard library (served from a zip) and where the zip goes inside
    stdlib: str
    zip_inside: str
    #: the folder of extension modules; each of its files is bound on its own
    dynload: str


def minimal_root(python: str) -> Root:
    """The files that let ``python`` start and import ``PRELOAD``: the interpreter, its
    extension modules and every file it maps (found by running it once outside), and where
    its standard library is (served from a zip, ``image.py``)."""
    code = (
        f"import sys, {', '.join(PRELOAD)}\n"
        "print('\\n'.join(sys.path[:3]))\n"
        "print('\\n'.join(sorted({l.split(None, 5)[5].strip() for l in open('/proc/self/maps')"
        " if len(l.split(None, 5)) == 6 and l.split(None, 5)[5].startswith('/')})))"
    )
    lines = subprocess.run(
        [python, "-I", "-S", "-B", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"LC_ALL": "C.UTF-8"},
        check=True,
    ).stdout.split("\n")
    zip_inside, stdlib, dynload = lines[:3]
    if not zip_inside.endswith(".zip") or not dynload.endswith("lib-dynload"):
        raise ValueError(f"{python} has an unexpected module path: {lines[:3]}")
    files = [os.path.realpath(path) for path in lines[3:] if path and os.path.isfile(path)]
    binds: dict[str, str] = {}
    if os.path.isdir(dynload):
        for entry in sorted(os.scandir(dynload), key=lambda e: e.name):
            if entry.is_file():
                binds[entry.path] = os.path.realpath(entry.path)
    for path in files:
        binds.setdefault(path, path)
    binds[python] = python
    # the names the dynamic loader asks for may be links to the files it maps
    for path in files:
        for link in _links_to(os.path.dirname(path), set(files)):
            binds.setdefault(link, link)
    loader = elf_interpreter(python)
    if loader:
        binds[loader] = loader
    # a bind's source is the real file; where a path inside is a link, bind the file there
    pairs = tuple((os.path.realpath(src), dst) for dst, src in sorted(binds.items()))
    return Root(pairs, os.path.realpath(stdlib), zip_inside, dynload)


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


def image_binds(root: Root) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...], str]:
    """The binds of the minimal root from this machine's image (``image.py``): (the binds,
    the empty folders to make inside, the box's mount point outside)."""
    child = str(Path(__file__).with_name("child.py"))
    sources = sorted({source for source, _ in root.files} | {child})
    folder, archive, copies = image.prepare(root.stdlib, sources)
    binds = [(copies[source], inside) for source, inside in root.files]
    binds += [(archive, root.zip_inside), (copies[child], CHILD_INSIDE)]
    return tuple(binds), (root.dynload,), str(folder / "box")


def launcher(bwrap: str) -> tuple[str, ...]:
    """The commands that start bubblewrap: as root, first a drop to ``HOST_UID`` (``setpriv``),
    then in every case a user and mount namespace of its own (``unshare``) where ``sh`` mounts
    the box and execs bubblewrap. Raises ``SandboxUnavailable`` naming what is missing."""
    found = {name: shutil.which(name, path=LAUNCH_PATH) for name in ("setpriv", "unshare", "mount")}
    tools = {name: path for name, path in found.items() if path}
    missing = sorted(set(found) - set(tools))
    if missing:
        raise SandboxUnavailable(
            f"the Solve sandbox needs {', '.join(missing)} (util-linux) to start bubblewrap; "
            "install util-linux"
        )
    drop: list[str] = []
    if os.geteuid() == 0:
        drop = [tools["setpriv"], f"--reuid={HOST_UID}", f"--regid={HOST_UID}", "--clear-groups"]
    unshare = [tools["unshare"], "--user", "--map-root-user", "--mount", "--"]
    return (*drop, *unshare, "/bin/sh", "-c", MOUNT_BOX.format(mount=tools["mount"]), "sh")


def launch_arguments(isolation: Isolation, box_bytes: int) -> list[str]:
    """The launcher with this run's box: its size, its inode limit and where it is mounted."""
    inodes = max(16, (box_bytes >> 20) * BOX_INODES_PER_MB)
    return [*isolation.launcher, str(box_bytes), str(inodes), isolation.box_mount]


def bwrap_arguments(isolation: Isolation, seccomp_fd: int, box_bytes: int) -> list[str]:
    """bubblewrap's options for one run (the command follows them); the box is the tmpfs the
    launcher mounted (``launch_arguments``), of ``box_bytes``."""
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
    for folder in isolation.folders:
        arguments += ["--dir", folder]
    for source, inside in isolation.binds:
        arguments += ["--ro-bind", source, inside]
    arguments += ["--bind", isolation.box_mount, BOX, "--chdir", BOX]
    arguments += ["--remount-ro", "/", "--seccomp", str(seccomp_fd)]
    return arguments
