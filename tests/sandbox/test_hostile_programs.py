"""Hostile programs against the Solve sandbox: each one is contained and reported.

Every program tries one escape: reading files outside its folder (/etc/passwd, this
repository), writing or deleting outside it, the network, starting processes (subprocess,
fork loops, exec, spawn), loading modules by the back doors of the import system, reaching or
disabling the audit hook, and exhausting memory, CPU time, wall-clock time, output or disk.
For each, the test checks the kind of outcome, what the sandbox says it refused, and that the
escape had no effect (no file appeared, no secret came back).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import docqa
from docqa.sandbox import SandboxLimits, run_python

REPO_FILE = Path(docqa.__file__).resolve().parents[2] / "pyproject.toml"
MARKER = Path("/tmp/docqa-sandbox-escaped")
LIMITS = SandboxLimits(cpu_seconds=1, wall_seconds=3, memory_mb=256)
#: text that must never come back: the first line of /etc/passwd and of the repository file
SECRETS = (Path("/etc/passwd").read_text().split("\n")[0], "[build-system]")


@dataclass(frozen=True)
class Hostile:
    name: str
    code: str
    kinds: tuple[str, ...]
    #: a substring of one of the refusals the sandbox must report (empty: none required)
    refused: str = ""
    #: a substring of the reported error
    error: str = ""
    limits: SandboxLimits = field(default=LIMITS)


PROGRAMS = [
    # files outside the box
    Hostile(
        "read /etc/passwd", "result = open('/etc/passwd').read()", ("error",), "open /etc/passwd"
    ),
    Hostile(
        "read the repository",
        f"result = open({str(REPO_FILE)!r}).read()",
        ("error",),
        f"open {REPO_FILE}",
    ),
    Hostile(
        "relative path out of the box",
        "result = open('../../../../../../../etc/passwd').read()",
        ("error",),
        "open ../../",
    ),
    Hostile(
        "os.open and os.read",
        "import os\nfd = os.open('/etc/passwd', os.O_RDONLY)\nresult = os.read(fd, 100).decode()",
        ("error",),
        "open /etc/passwd",
    ),
    Hostile(
        "FileIO found through object subclasses",
        "def walk(c, seen):\n    for s in type.__subclasses__(c):\n        if s not in seen:\n"
        "            seen.add(s)\n            yield s\n            yield from walk(s, seen)\n"
        "io = [c for c in walk(object, set()) if c.__name__ == 'FileIO'][0]\n"
        "result = io('/etc/passwd').read().decode()",
        ("error",),
        "open /etc/passwd",
    ),
    Hostile(
        "path-like that changes its answer",
        "class P:\n    n = 0\n    def __fspath__(self):\n        P.n += 1\n"
        "        return 'ok.txt' if P.n == 1 else '/etc/passwd'\n"
        "result = open(P()).read()",
        ("error",),
        "",
        "No such file or directory: 'ok.txt'",  # one answer is asked for, checked and used
    ),
    Hostile(
        "list the root folder", "import os\nresult = os.listdir('/')", ("error",), "os.listdir /"
    ),
    Hostile(
        "write outside the box",
        f"open({str(MARKER)!r}, 'w').write('escaped')",
        ("error",),
        f"open {MARKER}",
    ),
    Hostile(
        "delete a repository file",
        f"import os\nos.remove({str(REPO_FILE)!r})",
        ("error",),
        "os.remove",
    ),
    Hostile(
        "chdir to / then a relative read",
        "import os\nos.chdir('/')\nresult = open('etc/passwd').read()",
        ("error",),
        "os.chdir",
    ),
    Hostile(
        "symlink to /etc/passwd",
        "import os\nos.symlink('/etc/passwd', 'link')\nresult = open('link').read()",
        ("error",),
        "os.symlink",
    ),
    Hostile(
        "fifo outside the box (no audit event)",
        f"import os\nos.mkfifo({str(MARKER)!r})",
        ("error",),
        "",
        "has no attribute 'mkfifo'",
    ),
    Hostile(
        "pwd loaded as a built-in without an import event",
        "import sys\nspec = sys.modules['_frozen_importlib'].ModuleSpec('pwd', None)\n"
        "pwd = sys.modules['_imp'].create_builtin(spec)\nresult = str(pwd.getpwall())",
        ("error",),
        "",
        "has no attribute 'create_builtin'",
    ),
    Hostile("environment variables", "import os\nresult = dict(os.environ)", ("ok",)),
    # network
    Hostile(
        "socket connection",
        "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)",
        ("error",),
        "import socket",
    ),
    Hostile(
        "_socket through importlib",
        "import importlib\nimportlib.import_module('_socket')",
        ("error",),
        "import importlib",
    ),
    Hostile(
        "_socket through the import system's internals",
        "import sys\nsys.modules['_frozen_importlib']._gcd_import('_socket')",
        ("error",),
        "",
        "module '_imp' has no attribute",
    ),
    Hostile(
        "urllib request",
        "import urllib.request\nurllib.request.urlopen('http://example.com')",
        ("error",),
        "import urllib",
    ),
    # processes
    Hostile(
        "subprocess", "import subprocess\nsubprocess.run(['id'])", ("error",), "import subprocess"
    ),
    Hostile(
        "os.system",
        f"import os\nos.system('touch {MARKER}')",
        ("error",),
        "os.system",
    ),
    Hostile(
        "os.execv", "import os\nos.execv('/bin/sh', ['sh', '-c', 'id'])", ("error",), "os.exec"
    ),
    Hostile(
        "posix_spawn",
        "import os\nos.posix_spawn('/bin/sh', ['sh'], {})",
        ("error",),
        "os.posix_spawn",
    ),
    Hostile("fork loop", "import os\nwhile True:\n    os.fork()", ("error",), "os.fork"),
    Hostile(
        "fork loop through posix",
        "import sys\nposix = sys.modules['posix']\nfor _ in range(1000):\n    posix.fork()",
        ("error",),
        "os.fork",
    ),
    Hostile(
        "_posixsubprocess loaded from its file",
        "import sys\nfe = sys.modules['_frozen_importlib_external']\n"
        "lib = [p for p in sys.path if p.endswith('lib-dynload')][0]\n"
        "so = lib + '/' + [n for n in fe._os.listdir(lib) if n.startswith('_posixsub')][0]\n"
        "fe.ExtensionFileLoader('_posixsubprocess', so)",
        ("error",),
        "os.listdir",
    ),
    Hostile(
        "_posixsubprocess from a guessed path",
        "import sys\nfe = sys.modules['_frozen_importlib_external']\n"
        "so = sys.prefix + '/lib/python3.11/lib-dynload/_posixsubprocess.so'\n"
        "spec = sys.modules['_frozen_importlib'].ModuleSpec('_posixsubprocess', None, origin=so)\n"
        "fe.ExtensionFileLoader('_posixsubprocess', so).create_module(spec)",
        ("error",),
        "",
        "has no attribute 'create_dynamic'",
    ),
    Hostile("kill the parent", "import os\nos.kill(os.getppid(), 9)", ("error",), "os.kill"),
    Hostile(
        "leave the process group",
        "import os\nos.setsid()",
        ("error",),
        "",
        "has no attribute 'setsid'",
    ),
    Hostile("become root again", "import os\nos.setuid(0)", ("error",)),
    Hostile(
        "thread",
        "import _thread\n_thread.start_new_thread(print, ('x',))",
        ("error",),
        "",
        "can't start new thread",  # RLIMIT_NPROC 0: no clone either
    ),
    # the guard itself
    Hostile("ctypes", "import ctypes\nctypes.CDLL(None)", ("error",), "import ctypes"),
    Hostile(
        "gc to find the hook",
        "import gc\nresult = len(gc.get_objects())",
        ("error",),
        "import gc",
    ),
    Hostile(
        "frames to the bootstrap",
        "import sys\nresult = sorted(sys._getframe(1).f_locals)",
        ("error",),
        "sys._getframe",
    ),
    Hostile(
        "trace function to rewrite the hook",
        "import sys\nsys.settrace(lambda *a: None)",
        ("error",),
        "sys.settrace",
    ),
    Hostile(
        "replaced builtins",
        "import builtins\nbuiltins.type = lambda x: str\nbuiltins.isinstance = lambda *a: True\n"
        "builtins.PermissionError = None\nresult = open('/etc/passwd').read()",
        ("error",),
        "open /etc/passwd",
    ),
    Hostile("breakpoint", "breakpoint()", ("error",), "import pdb"),
    # resources
    Hostile("one huge allocation", "x = ' ' * 10**10", ("memory_limit",)),
    Hostile(
        "growing allocation",
        "x = []\nwhile True:\n    x.append(bytearray(10**6))",
        ("memory_limit",),
    ),
    # on a busy machine the wall clock may come first
    Hostile("infinite loop", "while True:\n    pass", ("cpu_limit", "timeout")),
    Hostile(
        "infinite loop that ignores SIGXCPU",
        "import _signal\n_signal.signal(24, _signal.SIG_IGN)\nwhile True:\n    pass",
        ("cpu_limit", "timeout"),
    ),
    Hostile("sleep forever", "import time\ntime.sleep(10**6)", ("timeout",)),
    Hostile("recursion", "def f():\n    return f()\nf()", ("error",), "", "RecursionError"),
    Hostile("output flood", "for _ in range(10**5):\n    print('x' * 100)", ("ok",)),
    Hostile(
        "raw output flood",
        "import os\nwhile True:\n    os.write(1, b'x' * 10**6)",
        ("error",),
        "",
        "File too large",
    ),
    Hostile(
        "disk fill",
        "for i in range(10**4):\n    open(f'f{i}', 'w').write('x' * 10**5)",
        ("error",),
        "open",
        "more than 64 files opened",
    ),
]


@pytest.fixture(autouse=True)
def no_marker() -> None:
    MARKER.unlink(missing_ok=True)
    yield
    assert not MARKER.exists(), "the program left a file outside its folder"


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_a_hostile_program_is_contained_and_reported(program: Hostile) -> None:
    outcome = run_python(program.code, limits=program.limits)
    assert outcome.kind in program.kinds, outcome
    report = outcome.describe(max_chars=10**6)
    for secret in SECRETS:
        assert secret not in report
    if program.refused:
        assert any(program.refused in refused for refused in outcome.blocked), outcome
    if program.error:
        assert program.error in outcome.error, outcome
    assert outcome.seconds < program.limits.wall_seconds + 2
    if outcome.kind != "ok":
        assert outcome.error, "a stopped program says why"


def test_there_are_at_least_twenty_hostile_programs() -> None:
    assert len(PROGRAMS) >= 20


def test_the_environment_holds_nothing_of_the_parent() -> None:
    os.environ["DOCQA_TEST_SECRET"] = "hunter2"
    try:
        outcome = run_python("import os\nresult = dict(os.environ)")
    finally:
        del os.environ["DOCQA_TEST_SECRET"]
    assert outcome.result == {"LC_ALL": "C.UTF-8"}


def test_the_output_flood_is_cut_at_the_cap() -> None:
    outcome = run_python("print('x' * 10**6)", limits=SandboxLimits(output_chars=100))
    assert outcome.ok
    assert outcome.stdout.startswith("x" * 100)
    assert "more characters cut" in outcome.stdout
    assert len(outcome.stdout) < 200


@pytest.mark.skipif(os.geteuid() != 0, reason="only root drops to nobody")
def test_as_root_the_program_runs_as_nobody() -> None:
    outcome = run_python("import os\nresult = [os.getuid(), os.getgid(), os.getgroups()]")
    assert outcome.result == [65534, 65534, []]
    assert "nobody" in outcome.isolation
