"""This machine's Solve sandbox: whether it can isolate a program (probed once, with a real
run) and ``run_python``, which runs one there or raises ``SandboxUnavailable``.

The layers are built in ``isolation.py``; a run under them is ``process.py``.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import time
from typing import Any

from docqa.sandbox.isolation import (
    BWRAP_VARIABLE,
    FIX,
    LAYERS,
    Isolation,
    SandboxUnavailable,
    image_binds,
    launcher,
    minimal_root,
)
from docqa.sandbox.limits import SandboxLimits
from docqa.sandbox.process import _run, trial_run
from docqa.sandbox.result import SandboxResult
from docqa.sandbox.seccomp import UnsupportedArchitecture, build_filter


def run_python(
    code: str, inputs: Any = None, limits: SandboxLimits | None = None, *, guard: bool = True
) -> SandboxResult:
    """Run ``code`` with the variable ``evidence`` = ``inputs`` (JSON) in the sandbox.

    Blocks until the program ends or a limit stops it (at most ``limits.wall_seconds`` and a
    little more). Raises ``SandboxUnavailable`` when this machine cannot isolate it (see
    ``isolation.py``); every outcome of the program itself is a ``SandboxResult``.
    ``guard=False`` leaves out the in-process audit hook, which a program can get past with
    crafted bytecode: the tests run hostile programs that way to check the kernel layers alone.
    """
    limits = limits or SandboxLimits()
    isolation = require()
    started = time.monotonic()
    outcome = _run(isolation, code, inputs, limits, guard)
    return outcome.timed(round(time.monotonic() - started, 3))


def require() -> Isolation:
    """This machine's isolation, or ``SandboxUnavailable`` saying why there is none."""
    found = current()
    if not found.available:
        raise SandboxUnavailable(found.reason)
    return found


def current() -> Isolation:
    """This machine's isolation for the configured bwrap (probed once per process)."""
    named = os.environ.get(BWRAP_VARIABLE, "")
    if named and named != "none" and "/" not in named:
        named = shutil.which(named) or named
    return probe(named or shutil.which("bwrap") or "")


@functools.cache
def probe(bwrap: str) -> Isolation:
    """Build the sandbox's parts around ``bwrap`` and run one trivial program in it."""
    if not bwrap or bwrap == "none" or not os.access(bwrap, os.X_OK):
        why = (
            "bubblewrap (bwrap) is not installed"
            if bwrap in ("", "none")
            else f"{bwrap} (from {BWRAP_VARIABLE}) is not an executable"
        )
        return Isolation(False, f"the Solve sandbox cannot isolate programs: {why}; {FIX}")
    try:
        seccomp = build_filter()
    except UnsupportedArchitecture as error:
        return Isolation(False, str(error))
    python = os.path.realpath(sys.executable)
    try:
        start = launcher(bwrap)
    except SandboxUnavailable as error:
        return Isolation(False, str(error))
    try:
        binds, folders, box_mount = image_binds(minimal_root(python))
    except (OSError, subprocess.SubprocessError, ValueError) as error:
        return Isolation(False, f"the Solve sandbox cannot find what {python} needs: {error}")
    isolation = Isolation(
        True, "", LAYERS, bwrap, python, binds, folders, start, box_mount, seccomp
    )
    failure = trial_run(isolation)  # the probe is a real run
    if failure:
        return Isolation(
            False, f"the Solve sandbox cannot start bubblewrap here ({failure}); {FIX}"
        )
    return isolation
