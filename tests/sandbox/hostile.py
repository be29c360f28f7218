"""Hostile programs against the Solve sandbox, and what each must come to.

Shared by the tests that run them as root (``test_hostile_programs.py``) and the script that
runs them as an ordinary user (``run_as_user.py``): this module imports only the standard
library and ``docqa.sandbox``, so the system Python of a user without access to the venv can
load it.

Each ``Hostile`` program tries one escape. ``guard=False`` runs it without the in-process audit
hook, as a program that got past the hook with crafted bytecode would run: what it meets then
is the kernel alone. ``check`` lists what is wrong with an outcome (empty: as expected): the
exact kind, the refusal and error reported, no secret in the report, no file outside the box,
the wall clock kept. ``PAIRS`` are two sandboxes at once, one attacking the other.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import docqa
from docqa.sandbox import SandboxLimits, SandboxResult, run_python

REPO_FILE = Path(docqa.__file__).resolve().parents[2] / "pyproject.toml"
MARKER = Path("/tmp/docqa-sandbox-escaped")
LIMITS = SandboxLimits(cpu_seconds=1, wall_seconds=2, memory_mb=256)
#: for programs that must finish: time enough on a loaded machine
ROOMY = SandboxLimits(cpu_seconds=5, wall_seconds=10, memory_mb=256)
#: text that must never come back: the first line of /etc/passwd and of the repository file
SECRETS = (Path("/etc/passwd").read_text().split("\n")[0], "[build-system]")
#: folders of the machine that must not be visible in the sandbox's root
HOST_FOLDERS = {"etc", "proc", "tmp", "dev", "work", "sys", "home", "var", "run", "bin"}

#: find a function through the attributes of os (os.supports_dir_fd holds mkfifo and mknod)
FIND = (
    "import os\n"
    "def find(name):\n"
    "    for group in (os.supports_dir_fd, os.supports_fd, os.supports_follow_symlinks):\n"
    "        for f in group:\n"
    "            if getattr(f, '__name__', '') == name:\n"
    "                return f\n"
)
#: write a forged values document on every descriptor the program may hold
FORGE = (
    "import os\n"
    "def forge(text):\n"
    "    for fd in range(3, 64):\n"
    "        try:\n"
    "            os.write(fd, text.encode())\n"
    "        except OSError:\n"
    "            pass\n"
)
FAKE = '{"kind": "ok", "result": "\\"forged\\"", "stdout": "", "error": "", "stdout_dropped": 0}'


@dataclass(frozen=True)
class Hostile:
    name: str
    code: str
    kinds: tuple[str, ...]
    #: a substring of one of the refusals the guard must report (empty: none required)
    refused: str = ""
    #: a substring of the reported error
    error: str = ""
    guard: bool = True
    limits: SandboxLimits = field(default=LIMITS)
    #: a check of the result (True: as expected)
    result: Callable[[Any], bool] | None = None
    #: a check of the whole outcome
    extra: Callable[[SandboxResult], bool] | None = None


def H(
    name: str, code: str, kind: str | tuple[str, ...], refused: str = "", error: str = "", **kw: Any
) -> Hostile:
    return Hostile(name, code, (kind,) if isinstance(kind, str) else kind, refused, error, **kw)


def K(name: str, code: str, kind: str | tuple[str, ...], error: str = "", **kw: Any) -> Hostile:
    """A program past the guard: only the kernel layers stand."""
    return H(f"kernel: {name}", code, kind, "", error, guard=False, **kw)


NO_FILE = "No such file or directory"
NOT_PERMITTED = "Operation not permitted"
SPIN = ("cpu_limit", "timeout")  # on a loaded machine the wall clock may come first

PROGRAMS = [
    # files outside the box, stopped by the guard
    H("read /etc/passwd", "result = open('/etc/passwd').read()", "error", "open /etc/passwd"),
    H("read the repository", f"result = open({str(REPO_FILE)!r}).read()", "error", "open /"),
    H(
        "relative path out of the box",
        "result = open('../../../../../../../etc/passwd').read()",
        "error",
        "open ../../",
    ),
    H(
        "os.open and os.read",
        "import os\nfd = os.open('/etc/passwd', os.O_RDONLY)\nresult = os.read(fd, 100).decode()",
        "error",
        "open /etc/passwd",
    ),
    H(
        "FileIO found through object subclasses",
        "def walk(c, seen):\n    for s in type.__subclasses__(c):\n        if s not in seen:\n"
        "            seen.add(s)\n            yield s\n            yield from walk(s, seen)\n"
        "io = [c for c in walk(object, set()) if c.__name__ == 'FileIO'][0]\n"
        "result = io('/etc/passwd').read().decode()",
        "error",
        "open /etc/passwd",
    ),
    H(
        "path-like that changes its answer",
        "class P:\n    n = 0\n    def __fspath__(self):\n        P.n += 1\n"
        "        return 'ok.txt' if P.n == 1 else '/etc/passwd'\n"
        "result = open(P()).read()",
        "error",
        error="No such file or directory: 'ok.txt'",
    ),
    H("list the root folder", "import os\nresult = os.listdir('/')", "error", "os.listdir /"),
    H(
        "the environment through /proc",
        "result = open('/proc/self/environ').read()",
        "error",
        "open /proc/self/environ",
    ),
    H(
        "write outside the box",
        f"open({str(MARKER)!r}, 'w').write('escaped')",
        "error",
        f"open {MARKER}",
    ),
    H(
        "delete a repository file",
        f"import os\nos.remove({str(REPO_FILE)!r})",
        "error",
        "os.remove",
    ),
    H(
        "chdir to / then a relative read",
        "import os\nos.chdir('/')\nresult = open('etc/passwd').read()",
        "error",
        "os.chdir",
    ),
    H(
        "symlink to /etc/passwd",
        "import os\nos.symlink('/etc/passwd', 'link')\nresult = open('link').read()",
        "error",
        "os.symlink",
    ),
    H("mkdir", "import os\nos.mkdir('folder')", "error", "os.mkdir"),
    H(
        "a flood of folders",
        "import os\nfor i in range(10**5):\n    os.mkdir(f'd{i}')",
        "error",
        "os.mkdir",
    ),
    H(
        "1100 nested folders",
        "import os\npath = 'd'\nfor _ in range(1100):\n    os.mkdir(path)\n    path += '/d'",
        "error",
        "os.mkdir",
    ),
    # functions removed from os, and the references that still reach them
    H(
        "mkfifo removed from os",
        f"import os\nos.mkfifo({str(MARKER)!r})",
        "error",
        error="has no attribute 'mkfifo'",
    ),
    H(
        "mkfifo through os.supports_dir_fd (no audit event)",
        FIND + f"find('mkfifo')({str(MARKER)!r})",
        "forbidden",
        error="SIGSYS",
    ),
    H(
        "mknod through os.supports_dir_fd (no audit event)",
        FIND + "find('mknod')('node')",
        "forbidden",
        error="SIGSYS",
    ),
    H(
        "pwd loaded as a built-in without an import event",
        "import sys\nspec = sys.modules['_frozen_importlib'].ModuleSpec('pwd', None)\n"
        "pwd = sys.modules['_imp'].create_builtin(spec)\nresult = str(pwd.getpwall())",
        "error",
        error="has no attribute 'create_builtin'",
    ),
    H(
        "the environment",
        "import os\nresult = dict(os.environ)",
        "ok",
        result=lambda r: r == {"LC_ALL": "C.UTF-8", "PWD": "/box"},
    ),
    # network
    H(
        "socket connection",
        "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)",
        "error",
        "import socket",
    ),
    H(
        "_socket through importlib",
        "import importlib\nimportlib.import_module('_socket')",
        "error",
        "import importlib",
    ),
    H(
        "_socket through the import system's internals",
        "import sys\nsys.modules['_frozen_importlib']._gcd_import('_socket')",
        "error",
        error="module '_imp' has no attribute",
    ),
    H(
        "urllib request",
        "import urllib.request\nurllib.request.urlopen('http://example.com')",
        "error",
        "import urllib",
    ),
    # processes
    H("subprocess", "import subprocess\nsubprocess.run(['id'])", "error", "import subprocess"),
    H("os.system", f"import os\nos.system('touch {MARKER}')", "error", "os.system"),
    H("os.execv", "import os\nos.execv('/bin/sh', ['sh', '-c', 'id'])", "error", "os.exec"),
    H("posix_spawn", "import os\nos.posix_spawn('/bin/sh', ['sh'], {})", "error", "os.posix_spawn"),
    H("fork loop", "import os\nwhile True:\n    os.fork()", "error", "os.fork"),
    H(
        "fork loop through posix",
        "import sys\nposix = sys.modules['posix']\nfor _ in range(1000):\n    posix.fork()",
        "error",
        "os.fork",
    ),
    H(
        "_posixsubprocess loaded from its file",
        "import sys\nfe = sys.modules['_frozen_importlib_external']\n"
        "lib = [p for p in sys.path if p.endswith('lib-dynload')][0]\n"
        "so = lib + '/' + [n for n in fe._os.listdir(lib) if n.startswith('_posixsub')][0]\n"
        "fe.ExtensionFileLoader('_posixsubprocess', so)",
        "error",
        "os.listdir",
    ),
    H(
        "_posixsubprocess from a guessed path",
        "import sys\nfe = sys.modules['_frozen_importlib_external']\n"
        "so = sys.prefix + '/lib/python3.11/lib-dynload/_posixsubprocess.so'\n"
        "spec = sys.modules['_frozen_importlib'].ModuleSpec('_posixsubprocess', None, origin=so)\n"
        "fe.ExtensionFileLoader('_posixsubprocess', so).create_module(spec)",
        "error",
        error="has no attribute 'create_dynamic'",
    ),
    H("kill the parent", "import os\nos.kill(os.getppid(), 9)", "error", "os.kill"),
    H("leave the session", "import os\nos.setsid()", "error", error="has no attribute 'setsid'"),
    H("become root again", "import os\nos.setuid(0)", "error", error=NOT_PERMITTED),
    H(
        "thread (no audit event in 3.11)",
        "import _thread\n_thread.start_new_thread(print, ('x',))",
        "forbidden",
        error="SIGSYS",
    ),
    H(
        "pidfd_open of another process (no audit event)",
        "import os\nfor pid in range(1, 50):\n    os.pidfd_open(pid)",
        "forbidden",
        error="SIGSYS",
    ),
    # the guard itself
    H("ctypes", "import ctypes\nctypes.CDLL(None)", "error", "import ctypes"),
    H("gc to find the hook", "import gc\nresult = len(gc.get_objects())", "error", "import gc"),
    H(
        "frames to the bootstrap",
        "import sys\nresult = sorted(sys._getframe(1).f_locals)",
        "error",
        "sys._getframe",
    ),
    H(
        "trace function to rewrite the hook",
        "import sys\nsys.settrace(lambda *a: None)",
        "error",
        "sys.settrace",
    ),
    H(
        "replaced builtins",
        "import builtins\nbuiltins.type = lambda x: str\nbuiltins.isinstance = lambda *a: True\n"
        "builtins.PermissionError = None\nresult = open('/etc/passwd').read()",
        "error",
        "open /etc/passwd",
    ),
    H("breakpoint", "breakpoint()", "error", "import pdb"),
    H(
        "crafted bytecode through code.replace",
        "def f():\n    return 1\nf.__code__.replace(co_code=b'\\x00' * 8)",
        "error",
        "code.__new__",
    ),
    H(
        "code object swapped into a function",
        "def f():\n    return 1\ndef g():\n    return 2\nf.__code__ = g.__code__",
        "error",
        "__code__ assignment",
    ),
    H(
        "bytecode from marshal",
        "import marshal\nmarshal.loads(marshal.dumps(compile('1', 'x', 'eval')))",
        "error",
        "marshal.loads",
    ),
    # the reporting channel
    H(
        "a forged result on every descriptor after a refusal",
        FORGE + "try:\n    open('/etc/passwd')\nexcept OSError:\n    pass\n"
        f"forge({FAKE!r})\nos._exit(0)",
        "ok",
        "open /etc/passwd",  # the refusal was reported when it happened
        result=lambda r: r == "forged",
    ),
    H(
        "a forged cpu_limit",
        FORGE + f"forge({FAKE.replace('ok', 'cpu_limit')!r})\nos._exit(0)",
        "crash",
        error="without well-formed values (fields of the wrong kind)",
    ),
    H(
        "a forged result before the real one",
        FORGE + f"forge({FAKE!r})\nresult = 1",
        "crash",
        error="not valid JSON",
    ),
    H(
        "frames walked to clear the refusals",
        "try:\n    open('/etc/passwd')\nexcept OSError as e:\n"
        "    frame = e.__traceback__.tb_frame\n"
        "    while frame is not None:\n"
        "        for v in list(frame.f_locals.values()):\n"
        "            if isinstance(v, list):\n                v.clear()\n"
        "        frame = frame.f_back\nresult = 'clean'",
        "ok",
        "open /etc/passwd",
        result=lambda r: r == "clean",
    ),
    H(
        "output cap lifted",
        "import sys\nsys.stdout.cap = 10**9\nprint('x' * 10**5)",
        "ok",
        extra=lambda o: o.stdout.startswith("x" * 100) and len(o.stdout) <= 4100,
    ),
    H(
        "JSON encoder replaced by a deep document",
        "import json\njson.JSONEncoder.encode = lambda self, o: '[' * 10**4\nresult = 1",
        "crash",
        error="nested",
    ),
    H(
        "a result nested 5000 deep",
        "r = []\nfor _ in range(5000):\n    r = [r]\nresult = r",
        "ok",
        result=lambda r: r == {"repr": "<list without a readable repr>"},
    ),
    H(
        "a result nested 100 deep",
        "r = []\nfor _ in range(100):\n    r = [r]\nresult = r",
        "ok",
        result=lambda r: isinstance(r, dict) and "nested" in r["repr"],
    ),
    H(
        "deep JSON printed",
        "print('[' * 10**5)",
        "ok",
        extra=lambda o: o.stdout.startswith("[[[") and "more characters cut" in o.stdout,
    ),
    H(
        "deep JSON written raw on stdout, then exit",
        "import os\nos.write(1, b'[' * 10**5)\nos._exit(0)",
        "crash",
        error="nothing was sent",
    ),
    H(
        "deep JSON written raw on stdout",
        "import os\nos.write(1, b'[' * 10**6)\nresult = 1",
        "ok",
        result=lambda r: r == 1,
    ),
    H(
        "a lone surrogate in the result",
        "result = {'a\\ud800': 'b\\udfff'}",
        "ok",
        result=lambda r: r == {"a\ufffd": "b\ufffd"},
        extra=lambda o: o.replaced == 2,
    ),
    H(
        "a lone surrogate printed",
        "print('x\\ud800')\nresult = 1",
        "ok",
        extra=lambda o: o.stdout == "x\ufffd\n" and o.replaced == 1,
    ),
    H(
        "invalid UTF-8 written raw",
        "import os\nos.write(1, b'\\xff\\xfe')\nresult = 1",
        "ok",
        extra=lambda o: o.replaced == 2 and "\ufffd" in o.stdout,
    ),
    # resources
    H(
        "an exit status that reads as SIGSYS",
        "import os\nos._exit(128 + 31)",
        "crash",
        error="signal 11",  # the filter refuses the status; glibc's _exit then faults
    ),
    H(
        "an exit status that reads as SIGKILL after some CPU",
        "import os, time\nwhile time.process_time() < 0.7:\n    pass\nos._exit(128 + 9)",
        "crash",
        error="signal 11",
        limits=SandboxLimits(cpu_seconds=1, wall_seconds=10, memory_mb=256),
    ),
    H("sys.exit(3)", "import sys\nsys.exit(3)", "error", error="SystemExit: 3"),
    H("os._exit(3)", "import os\nos._exit(3)", "crash", error="exited with status 3"),
    H("one huge allocation", "x = ' ' * 10**10", "memory_limit"),
    H(
        "growing allocation",
        "x = []\nwhile True:\n    x.append(bytearray(10**6))",
        "memory_limit",
        limits=SandboxLimits(cpu_seconds=5, wall_seconds=8, memory_mb=256),
    ),
    H("infinite loop", "while True:\n    pass", SPIN),
    H(
        "infinite loop that ignores SIGXCPU",
        "import _signal\n_signal.signal(24, _signal.SIG_IGN)\nwhile True:\n    pass",
        SPIN,
    ),
    H("sleep forever", "import time\ntime.sleep(10**6)", "timeout"),
    H("recursion", "def f():\n    return f()\nf()", "error", error="RecursionError"),
    H("output flood", "for _ in range(10**5):\n    print('x' * 100)", "ok"),
    # the caller reads the console up to its cap and then closes it: the writer gets EPIPE
    H(
        "raw output flood",
        "import os\nwhile True:\n    os.write(1, b'x' * 10**6)",
        "error",
        error="BrokenPipeError",
    ),
    H(
        "disk fill",
        "for i in range(10**4):\n    open(f'f{i}', 'w').write('x' * 10**5)",
        "error",
        error="No space left on device",
    ),
    H(
        "a flood of files",
        "for i in range(10**4):\n    open(f'f{i}', 'w').close()",
        "error",
        "open",
        "more than 64 files opened",
    ),
    H(
        "one file over file_mb",
        "open('big', 'w').write('x' * 2 * 2**20)",
        "error",
        error="too large",
    ),
    # the kernel alone: what a program that got past the guard meets
    K("read /etc/passwd", "result = open('/etc/passwd').read()", "error", NO_FILE),
    K("read the repository", f"result = open({str(REPO_FILE)!r}).read()", "error", NO_FILE),
    K("the environment through /proc", "result = open('/proc/1/environ').read()", "error", NO_FILE),
    K(
        "the root folder holds no folder of the machine",
        "import os\nresult = sorted(os.listdir('/'))",
        "ok",
        result=lambda r: "box" in r and not HOST_FOLDERS & set(r),
    ),
    K("write to /tmp", f"open({str(MARKER)!r}, 'w').write('x')", "error", NO_FILE),
    K("write to the root", "open('/escaped', 'w').write('x')", "error", "Read-only file system"),
    K(
        "write into the standard library",
        "import os, sys\nlib = [p for p in sys.path if p.endswith('lib-dynload')][0]\n"
        "open(os.path.dirname(lib) + '/evil.py', 'w').write('x')",
        "error",
        "Read-only file system",
    ),
    K(
        "site-packages is empty",
        "import os, sys\nlib = [p for p in sys.path if p.endswith('lib-dynload')][0]\n"
        "site = os.path.dirname(lib) + '/site-packages'\n"
        "result = os.listdir(site) if os.path.exists(site) else []",
        "ok",
        result=lambda r: r == [],
    ),
    K("fork", "import os\nos.fork()", "forbidden", "SIGSYS"),
    K("socket", "import socket\nsocket.socket()", "forbidden", "SIGSYS"),
    # its pipe is refused before it can fork (a fork is killed: "kernel: fork")
    K("subprocess", "import subprocess\nsubprocess.run(['/bin/true'])", "error", NOT_PERMITTED),
    K("thread", "import _thread\n_thread.start_new_thread(print, ('x',))", "forbidden"),
    # issue 27: a pipe's inode number is a machine-wide counter; the limits are fixed from the
    # start; the page cache of the shared files is not the program's to evict
    K("pipe", "import os\nos.pipe()", "error", NOT_PERMITTED),
    K(
        "lower the CPU limit",
        "import resource\nresource.prlimit(0, resource.RLIMIT_CPU, (1, 1))",
        "error",
        NOT_PERMITTED,
    ),
    K(
        "page out a file of the root",
        "import mmap, sys\nwith open(sys.executable, 'rb') as f:\n"
        "    m = mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ)\nm.madvise(21)",
        "error",
        NOT_PERMITTED,
    ),
    K("pidfd_open", "import os\nos.pidfd_open(1)", "forbidden", "SIGSYS"),
    K(
        "mkfifo outside the box",
        f"import os\nos.mkfifo({str(MARKER)!r})",
        "forbidden",
        "SIGSYS",
    ),
    K(
        "exec the interpreter again",
        "import os, sys\nos.execv(sys.executable, [sys.executable, '-I', '-S', '-c', 'print(1)'])",
        "crash",
        "without well-formed values",
    ),
    K("ctypes cannot load its library", "import ctypes", "error", "ImportError"),
    K("become root again", "import os\nos.setuid(0)", "error", NOT_PERMITTED),
    K("kill pid 1", "import os\nos.kill(1, 9)", "error", NOT_PERMITTED),
    K("mkdir", "import os\nos.mkdir('d')", "error", NOT_PERMITTED),
    K(
        "1100 nested folders",
        "import os\npath = 'd'\nfor _ in range(1100):\n    os.mkdir(path)\n    path += '/d'",
        "error",
        NOT_PERMITTED,
    ),
    K(
        "an executable file",
        "import os\nos.open('tool', os.O_CREAT | os.O_WRONLY, 0o755)",
        "error",
        NOT_PERMITTED,
    ),
    K(
        "chmod +x",
        "import os\nopen('tool', 'w').close()\nos.chmod('tool', 0o755)",
        "error",
        NOT_PERMITTED,
    ),
    K("memfd", "import os\nos.memfd_create('x')", "error", NOT_PERMITTED),
    K(
        "write to the request on stdin",
        "import os\nos.lseek(0, 0, 0)\nos.write(0, b'x' * 1000)",
        "error",
        "Bad file descriptor",
    ),
    K(
        "disk fill past the box",
        "for i in range(10):\n    open(f'f{i}', 'w').write('x' * (2**20 - 1))",
        "error",
        "No space left on device",
    ),
    K(
        "a flood of files stops at the box's inode limit",
        "for i in range(20000):\n    open(f'f{i}', 'w').close()",
        "error",
        "No space left on device",
        limits=ROOMY,
    ),
    K(
        "runs as nobody",
        "import os\nresult = [os.getuid(), os.getgid()]",
        "ok",
        result=lambda r: r == [65534, 65534],
    ),
    K(
        "its own hostname",
        "import os\nresult = os.uname().nodename",
        "ok",
        result=lambda r: r == "sandbox",
    ),
    K(
        "a forged deep document",
        FORGE + "forge('[' * 10**4)\nos._exit(0)",
        "crash",
        "nested",
    ),
    K(
        "a forged document over the cap",
        FORGE + "forge('\"' + 'x' * 10**6 + '\"')\nos._exit(0)",
        "crash",
        "more than",
    ),
    K(
        "descriptors closed, then a spin",
        "import os\nfor fd in range(64):\n    try:\n        os.close(fd)\n    except OSError:\n"
        "        pass\nwhile True:\n    pass",
        SPIN,
    ),
    K(
        "sleep with every pipe closed",
        "import os, time\nos.closerange(0, 64)\ntime.sleep(60)",
        "timeout",
    ),
]


def check(program: Hostile, outcome: SandboxResult) -> list[str]:
    """What is wrong with ``outcome`` for ``program`` (empty: it is as expected)."""
    problems = []
    if outcome.kind not in program.kinds:
        problems.append(f"kind {outcome.kind}, expected {program.kinds}")
    report = outcome.describe(max_chars=10**6)
    problems += [f"secret {s!r} came back" for s in SECRETS if s in report]
    if program.refused and not any(program.refused in r for r in outcome.blocked):
        problems.append(f"no refusal {program.refused!r} in {outcome.blocked}")
    if program.error and program.error not in outcome.error:
        problems.append(f"no {program.error!r} in the error")
    if program.result is not None and not program.result(outcome.result):
        problems.append(f"result {outcome.result!r}")
    if program.extra is not None and not program.extra(outcome):
        problems.append("the outcome's details are not as expected")
    if outcome.seconds >= program.limits.wall_seconds + 2:
        problems.append(f"took {outcome.seconds} s")
    if outcome.kind != "ok" and not outcome.error:
        problems.append("a stopped program must say why")
    if MARKER.exists():
        problems.append("a file appeared outside the box")
    if problems:
        problems.append(f"outcome: {outcome}")
    return problems


def run(program: Hostile) -> list[str]:
    """Run ``program`` (the caller removes ``MARKER`` first) and check its outcome."""
    return check(program, run_python(program.code, limits=program.limits, guard=program.guard))


@dataclass(frozen=True)
class Pair:
    """A victim and an attacker run at once; the victim must finish as if alone."""

    name: str
    attacker: str
    attacker_kinds: tuple[str, ...]
    guard: bool = True
    attacker_result: Callable[[Any], bool] | None = None


#: the victim works for about a second of wall time, keeps a secret in its box, and checks it
VICTIM = (
    "import time\nopen('secret', 'w').write('victim secret')\nend = time.time() + 1.0\n"
    "while time.time() < end:\n    time.sleep(0.05)\nresult = open('secret').read()"
)
ATTACK_DELAY = "import time\ntime.sleep(0.3)\n"
PAIRS = [
    Pair(
        "pidfd_open + pidfd_send_signal on every pid",
        ATTACK_DELAY + "import os, _signal\nme = os.getpid()\n"
        "for pid in range(max(2, me - 300), me + 300):\n    if pid == me:\n        continue\n"
        "    try:\n        fd = os.pidfd_open(pid)\n    except OSError:\n        continue\n"
        "    try:\n        _signal.pidfd_send_signal(fd, 9)\n    except OSError:\n        pass\n"
        "    os.close(fd)",
        ("forbidden",),
    ),
    Pair(
        "kill every pid (past the guard)",
        ATTACK_DELAY + "import os\nhit = 0\nfor pid in range(2, 5000):\n    try:\n"
        "        os.kill(pid, 9)\n        hit += 1\n    except OSError:\n        pass\n"
        "result = hit",
        ("ok",),
        guard=False,
        attacker_result=lambda r: r == 0,
    ),
    Pair(
        "read the other box (past the guard)",
        ATTACK_DELAY + "import os\nresult = os.listdir('/box')",
        ("ok",),
        guard=False,
        attacker_result=lambda r: r == [],
    ),
]


def run_pair(pair: Pair) -> list[str]:
    """Both sandboxes at once; what is wrong with either outcome."""
    outcomes: dict[str, SandboxResult] = {}
    limits = SandboxLimits(cpu_seconds=2, wall_seconds=6, memory_mb=256)

    def victim() -> None:
        outcomes["victim"] = run_python(VICTIM, limits=limits)

    thread = threading.Thread(target=victim)
    thread.start()
    outcomes["attacker"] = run_python(pair.attacker, limits=limits, guard=pair.guard)
    thread.join()
    problems = []
    victim_outcome, attacker = outcomes["victim"], outcomes["attacker"]
    if victim_outcome.kind != "ok" or victim_outcome.result != "victim secret":
        problems.append(f"the victim was disturbed: {victim_outcome}")
    if attacker.kind not in pair.attacker_kinds:
        problems.append(f"attacker kind {attacker.kind}: {attacker}")
    if pair.attacker_result is not None and not pair.attacker_result(attacker.result):
        problems.append(f"attacker result {attacker.result!r}")
    if "victim secret" in attacker.describe(max_chars=10**6):
        problems.append("the attacker read the victim's box")
    return problems


def running_as() -> str:
    return f"uid {os.geteuid()}"
