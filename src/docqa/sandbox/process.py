"""Run model-written Python in a separate, confined process and read back what it did.

The child (``child.py``) is a fresh interpreter (``-I -S``: no site-packages, no environment
variables, no user site) started in its own session, with an empty environment, its cwd in a
fresh temporary folder (the box) and, where the machine allows it, in a network namespace of
its own. It limits itself (CPU, memory, file size, descriptors, no processes) and installs an
audit hook before it runs the program; this side enforces the wall clock by killing the
process group. Its answer is the whole content of its stdout, a file here: a program that
writes there directly is bounded by the file-size limit and overwritten by the answer.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from docqa.sandbox.isolation import command_prefix, drops_privileges
from docqa.sandbox.limits import SandboxLimits
from docqa.sandbox.result import SandboxResult

CHILD = Path(__file__).with_name("child.py")
NOBODY = 65534
#: the child's whole environment: -I ignores PYTHON* variables anyway
ENVIRONMENT = {"LC_ALL": "C.UTF-8"}


def run_python(code: str, inputs: Any = None, limits: SandboxLimits | None = None) -> SandboxResult:
    """Run ``code`` with the variable ``evidence`` = ``inputs`` (JSON) in the sandbox.

    Blocks until the program ends or a limit stops it (at most ``limits.wall_seconds`` and a
    little more). Raises ``SandboxUnavailable`` only when ``limits.network_namespace`` is
    ``"required"`` and this machine cannot make one; every outcome of the program itself is a
    ``SandboxResult``.
    """
    limits = limits or SandboxLimits()
    prefix = command_prefix(limits.network_namespace)
    drop = drops_privileges()
    isolation = (
        ("guard", "rlimits")
        + (("nobody",) if drop else ())
        + (("network_namespace",) if prefix else ())
    )
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="docqa-solve-", ignore_cleanup_errors=True) as tmp:
        outer = Path(tmp)
        box = outer / "box"
        box.mkdir(mode=0o700)
        if drop:
            outer.chmod(0o711)  # nobody may pass through to the box, not list or read here
            os.chown(box, NOBODY, NOBODY)
        request = {
            "code": code,
            "inputs": inputs,
            "limits": limits.for_child(),
            "box": str(box),
            "drop_privileges": drop,
        }
        answer, stderr, status, timed_out = _spawn(
            [*prefix, sys.executable, "-I", "-S", "-B", str(CHILD)], request, outer, limits
        )
        _make_removable(box)
    seconds = round(time.monotonic() - started, 3)
    return _read(answer, stderr, status, timed_out, limits, seconds, isolation)


def _spawn(
    command: list[str], request: dict[str, Any], outer: Path, limits: SandboxLimits
) -> tuple[bytes, str, int, bool]:
    """Run the child; its stdout and stderr go to files here. Returns (stdout, stderr tail,
    exit status, whether the wall clock stopped it)."""
    stdout_path, stderr_path = outer / "stdout", outer / "stderr"
    with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=stderr,
            cwd=outer / "box",
            env=ENVIRONMENT,
            start_new_session=True,
            close_fds=True,
        )
        timed_out = False
        try:
            process.communicate(json.dumps(request).encode(), timeout=limits.wall_seconds)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(process.pid)
            process.wait()
    stderr_tail = stderr_path.read_bytes()[-600:].decode("utf-8", "replace")
    return stdout_path.read_bytes(), stderr_tail, process.returncode, timed_out


def _kill_group(group: int) -> None:
    """Kill whatever is left of the child's process group (nothing, unless it escaped)."""
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _make_removable(box: Path) -> None:
    """Give back write and search permission on every folder the program made, so that the
    temporary folder can be removed even where the program took them away."""
    for folder, subfolders, _ in os.walk(box):
        for name in subfolders:
            try:
                os.chmod(os.path.join(folder, name), 0o700)
            except OSError:
                pass


def _read(
    answer: bytes,
    stderr: str,
    status: int,
    timed_out: bool,
    limits: SandboxLimits,
    seconds: float,
    isolation: tuple[str, ...],
) -> SandboxResult:
    """The outcome from the exit status and the child's answer."""
    common = {"seconds": seconds, "isolation": isolation}
    if timed_out:
        error = f"the program ran past the wall-clock limit of {limits.wall_seconds:g} s"
        return SandboxResult("timeout", error=error, **common)
    if status == -signal.SIGXCPU:
        error = f"the program used more than {limits.cpu_seconds:g} s of CPU time"
        return SandboxResult("cpu_limit", error=error, **common)
    if status == -signal.SIGKILL:  # it ignored SIGXCPU and reached the hard limit a second on
        error = f"the program was killed after more than {limits.cpu_seconds:g} s of CPU time"
        return SandboxResult("cpu_limit", error=error, **common)
    try:
        outcome = json.loads(answer)
        cut = outcome["stdout_dropped"]
        return SandboxResult(
            outcome["kind"],
            result=outcome["result"],
            stdout=outcome["stdout"] + (f"\n[{cut} more characters cut]" if cut else ""),
            error=outcome["error"],
            blocked=tuple(outcome["blocked"]),
            **common,
        )
    except (ValueError, KeyError, TypeError):
        pass
    if status < 0:
        why = f"killed by signal {-status}"
    else:
        why = f"exited with status {status} without an answer"
    detail = " ".join(stderr.split()[-60:])
    return SandboxResult("crash", error=f"{why}{': ' + detail if detail else ''}", **common)
