"""Running a program in the Solve sandbox as the sandbox tests do: ``run`` (through
``run_python``, every field checked to be writable as JSON) and ``native`` (with raw system
calls through ctypes and no audit hook: an attacker who got past the interpreter, so only the
kernel stands in the way)."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest

from docqa.sandbox import SandboxLimits, SandboxResult, machine, run_python
from docqa.sandbox.process import _run

LIMITS = SandboxLimits(wall_seconds=20)


def run(code: str, inputs: object = None, limits: SandboxLimits = LIMITS, guard: bool = True):
    outcome = run_python(code, inputs, limits, guard=guard)
    assert isinstance(outcome, SandboxResult)
    # whatever the program did, every field can be written as strict UTF-8 JSON
    json.dumps(
        [outcome.result, outcome.stdout, outcome.error, list(outcome.blocked)], allow_nan=True
    ).encode("utf-8")
    outcome.describe().encode("utf-8")
    return outcome


def _libffi() -> tuple[str, str]:
    """(the file, the name the loader looks for inside) of libffi, or ("", "")."""
    for folder in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64"):
        for name in ("libffi.so.8", "libffi.so.7"):
            path = os.path.join(folder, name)
            if os.path.exists(path):
                real = os.path.realpath(path)
                return real, os.path.join(os.path.dirname(real), name)
    return "", ""


NATIVE_PRELUDE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(number, *args):
    ctypes.set_errno(0)
    value = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    return value, ctypes.get_errno()
"""


def native(code: str, limits: SandboxLimits = LIMITS) -> SandboxResult:
    """``code`` with ``sc(number, *args)`` (a raw system call) and no audit hook: what a
    program that got native code can do against the kernel layers alone."""
    libffi, inside = _libffi()
    if not libffi:
        pytest.skip("libffi not found: no ctypes to model native code")
    base = machine.require()
    isolation = replace(base, binds=(*base.binds, (libffi, inside)))
    return _run(isolation, NATIVE_PRELUDE + code, None, limits, False)
