"""Run model-written Python under bubblewrap and read back what happened.

The parent (this side) starts ``bwrap`` with the layers of ``isolation.py`` around
``python -I -S -B /sandbox/child.py``, under rlimits that ``prlimit`` sets before bwrap starts
(the program cannot change them: ``seccomp.py``). The request travels on stdin (an unlinked
temporary file opened read-only, so that large evidence cannot block and the program cannot
write there). The child reports on two pipes: its values (result, printout, error) and the
refusals of its audit hook, written as they happen. Its stdout and stderr go to a third pipe
(the console: what it writes past the capture, and the interpreter's own fatal errors). All
three are read here with caps (``channel.read_streams``), each up to its cap and no further.

How the run is classified comes from what the program cannot write: the wall clock kept here,
the exit status and the CPU time the kernel reports for the sandbox (``wait4``). A program
stopped by the kernel's seccomp filter dies of SIGSYS; one at its CPU limit is killed by the
kernel (RLIMIT_CPU, soft = hard) *and* has the CPU time to show for it (it cannot send itself
a signal: ``kill`` is not among its system calls; another sandbox cannot see it).
Only a run that exited with status 0 after sending well-formed values is
``ok``, ``error`` or ``memory_limit`` as those values say.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from typing import Any

from docqa.sandbox.channel import clean, clean_text, decode, parse_json, read_streams
from docqa.sandbox.isolation import (
    CHILD_INSIDE,
    FIX,
    Isolation,
    SandboxUnavailable,
    bwrap_arguments,
    launch_arguments,
)
from docqa.sandbox.limits import SandboxLimits
from docqa.sandbox.result import SandboxResult

#: the values a child may claim for itself; every other kind is decided here
CHILD_KINDS = ("ok", "error", "memory_limit")
#: bwrap exits with 128 + the signal that killed the program
SIGNALLED = 128
CONSOLE_CAP = 4096
#: the share of its CPU limit a killed program must have used to have been killed for it: the
#: kernel checks the limit against tick-sampled time, which on a loaded machine runs up to ~20 %
#: ahead of the precise count it reports at exit (measured: kills at 0.84-0.93 s of a 1 s limit)
CPU_SHARE = 0.5
REFUSALS_CAP = 20 * 202
#: the most printed characters a run can have dropped: the program can write its own values
#: document, and a count with thousands of digits would make formatting it raise (Python
#: refuses to turn an int of more than 4300 digits into text)
MAX_DROPPED = 1 << 53


def trial_run(isolation: Isolation) -> str:
    """An empty string when a trivial program runs in ``isolation`` and answers, else what went
    wrong."""
    try:
        outcome = _run(isolation, "result = 6 * 7", None, SandboxLimits(wall_seconds=30), True)
    except (OSError, SandboxUnavailable) as error:
        return f"{type(error).__name__}: {error}"
    if outcome.kind == "ok" and outcome.result == 42:
        return ""
    return f"{outcome.kind}: {outcome.error or outcome.stdout}"[:600]


def _run(
    isolation: Isolation, code: str, inputs: Any, limits: SandboxLimits, guard: bool
) -> SandboxResult:
    result_read, result_write = os.pipe()
    refusal_read, refusal_write = os.pipe()
    console_read, console_write = os.pipe()
    seccomp_read, seccomp_write = os.pipe()
    ours = [result_read, refusal_read, console_read]
    theirs = [result_write, refusal_write, console_write, seccomp_read]
    try:
        os.write(seccomp_write, isolation.seccomp)  # far below a pipe's buffer
        os.close(seccomp_write)
        request = {
            "code": code,
            "inputs": inputs,
            "limits": limits.for_child(),
            "result_fd": result_write,
            "refusal_fd": refusal_write,
            "guard": guard,
        }
        command = [
            *launch_arguments(isolation, limits.box_mb << 20),
            *_rlimits(limits),
            isolation.bwrap,
            *bwrap_arguments(isolation, seccomp_read, limits.box_mb << 20),
            isolation.python,
            "-I",
            "-S",
            "-B",
            CHILD_INSIDE,
        ]
        with tempfile.TemporaryFile() as handle:
            handle.write(json.dumps(request).encode())
            handle.flush()
            # the child gets the unlinked file read-only: it cannot write to this machine's disk
            stdin = os.open(f"/proc/self/fd/{handle.fileno()}", os.O_RDONLY)
            try:
                process = _start(
                    command, stdin, console_write, (result_write, refusal_write, seccomp_read)
                )
            finally:
                os.close(stdin)
        for fd in theirs:
            os.close(fd)
        theirs = []
        streams = {
            "result": (result_read, _caps(limits)),
            "refusals": (refusal_read, REFUSALS_CAP),
            "console": (console_read, CONSOLE_CAP),
        }
        ours = []  # read_streams closes them
        deadline = time.monotonic() + limits.wall_seconds
        data, dropped, timed_out = read_streams(streams, deadline)
        status, cpu, timed_out = _finish(process, deadline)
    finally:
        for fd in ours + theirs:
            os.close(fd)
    return _classify(data, dropped, timed_out, status, cpu, limits, isolation.layers)


def _rlimits(limits: SandboxLimits) -> list[str]:
    """``prlimit`` (util-linux) with the run's limits, ahead of bwrap: the kernel holds them from
    before bubblewrap starts (Python's ``preexec_fn`` could do it without a program, but is not
    safe in a process with threads, and forks instead of spawning)."""
    options = [f"--{name}={value}:{value}" for name, value in limits.rlimits().items()]
    return [_prlimit(), *options, "--"]


@functools.cache
def _prlimit() -> str:
    found = shutil.which("prlimit") or ""
    if not found:
        raise SandboxUnavailable(
            "prlimit (util-linux) is not installed: the Solve sandbox sets its rlimits with it "
            "before bubblewrap starts; install util-linux"
        )
    return found


def _start(
    command: list[str], stdin: Any, console: int, descriptors: tuple[int, ...]
) -> subprocess.Popen:
    """Start bwrap; a machine that cannot (bwrap gone since the probe, no descriptors left)
    cannot isolate the program either."""
    try:
        return subprocess.Popen(
            command,
            stdin=stdin,
            stdout=console,
            stderr=console,
            pass_fds=descriptors,
            env={},
            start_new_session=True,
            close_fds=True,
        )
    except OSError as error:
        raise SandboxUnavailable(f"bubblewrap could not be started: {error}; {FIX}") from error


def _caps(limits: SandboxLimits) -> int:
    """Bytes of the values' document: each character may take 6 as a JSON escape."""
    return 6 * (2 * limits.result_chars + limits.output_chars) + 4096


def _finish(process: subprocess.Popen, deadline: float) -> tuple[int, float, bool]:
    """Reap bwrap, killing the sandbox when the wall clock runs out first (a program may close
    its pipes and go on). Returns (exit status, CPU seconds of the whole sandbox, which bwrap's
    reaping adds to its own, whether the clock ran out). The pause between looks doubles from
    1 ms to 50 ms: a program that closed its pipes and goes on costs the caller little CPU."""
    timed_out, pause = False, 0.001
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() >= deadline:
            timed_out = True
            _kill(process.pid)
            pid, status, usage = os.wait4(process.pid, 0)
            break
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(2 * pause, 0.05)
    process.returncode = os.waitstatus_to_exitcode(status)
    _kill(process.pid)  # its init and program die with bwrap (--die-with-parent) anyway
    return process.returncode, usage.ru_utime + usage.ru_stime, timed_out


def _kill(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _classify(
    data: dict[str, bytes],
    dropped: dict[str, int],
    timed_out: bool,
    status: int,
    cpu: float,
    limits: SandboxLimits,
    layers: tuple[str, ...],
) -> SandboxResult:
    """The outcome: limits and kills from the status and the clocks, values from the child."""
    refusals, refusal_replaced = _refusals(data["refusals"], dropped["refusals"])
    console, console_replaced = decode(data["console"])
    common: dict[str, Any] = {"blocked": refusals, "isolation": layers, "cpu_seconds": cpu}
    cpu_cap = limits.rlimits()["cpu"]  # the RLIMIT_CPU the kernel held it to
    signal_number = status - SIGNALLED if status > SIGNALLED else -status if status < 0 else 0
    if timed_out:
        error = f"the program ran past the wall-clock limit of {limits.wall_seconds:g} s"
        return SandboxResult("timeout", error=error, replaced=console_replaced, **common)
    if signal_number == signal.SIGSYS:
        error = (
            "the kernel stopped the program at a system call the sandbox forbids (SIGSYS): "
            "processes, sockets, ptrace, pidfd, namespaces, mounts or device files"
        )
        return SandboxResult("forbidden", error=error, **common)
    if signal_number in (signal.SIGXCPU, signal.SIGKILL) and cpu >= CPU_SHARE * cpu_cap:
        error = f"the program used more than {limits.cpu_seconds:g} s of CPU time"
        return SandboxResult("cpu_limit", error=error, **common)
    values, problem = _values(data["result"], dropped["result"], limits)
    if status == 0 and values is not None:
        stdout = values["stdout"]
        extra, _ = clean_text(console)
        if extra:
            stdout += extra
        cut = values["dropped"] + max(0, len(stdout) - limits.output_chars)
        stdout = stdout[: limits.output_chars] + (f"\n[{cut} more characters cut]" if cut else "")
        return SandboxResult(
            values["kind"],
            result=values["result"],
            stdout=stdout,
            error=values["error"],
            replaced=values["replaced"] + console_replaced + refusal_replaced,
            **common,
        )
    if signal_number:
        why = f"killed by signal {signal_number} ({_signal_name(signal_number)})"
        if signal_number in (signal.SIGXCPU, signal.SIGKILL):
            why += f" after {cpu:.2f} s of CPU time, under its limit: not the CPU limit"
    elif status:
        why = f"exited with status {status}"
    else:
        why = f"exited without well-formed values ({problem})"
    detail = " ".join(console.split()[-60:])
    error, replaced = clean_text(f"{why}{': ' + detail if detail else ''}")
    return SandboxResult("crash", error=error, replaced=replaced + refusal_replaced, **common)


def _values(raw: bytes, dropped: int, limits: SandboxLimits) -> tuple[dict | None, str]:
    """The child's document, checked field by field, or (None, why it is unusable)."""
    if dropped:
        return None, f"more than {len(raw)} bytes"
    if not raw:
        return None, "nothing was sent"
    text, _ = decode(raw)
    document, problem = parse_json(text, len(text), max_depth=2)
    if problem:
        return None, problem
    if not isinstance(document, dict):
        return None, "not a JSON object"
    kind, result_text = document.get("kind"), document.get("result")
    stdout, error, cut = (
        document.get("stdout"),
        document.get("error"),
        document.get("stdout_dropped"),
    )
    if kind not in CHILD_KINDS or not all(isinstance(v, str) for v in (result_text, stdout, error)):
        return None, "fields of the wrong kind"
    if type(cut) is not int or not 0 <= cut <= MAX_DROPPED:
        return None, "fields of the wrong kind"
    value, problem = parse_json(result_text, 2 * limits.result_chars + 64)  # type: ignore[arg-type]
    if problem:
        value = {"repr": f"<the result was {problem}>"}
    value, replaced = clean(value)
    stdout, stdout_replaced = clean_text(stdout)  # type: ignore[arg-type]
    error, error_replaced = clean_text(error[: limits.result_chars])  # type: ignore[index]
    return {
        "kind": kind,
        "result": value,
        "stdout": stdout,
        "dropped": cut,
        "error": error,
        "replaced": replaced + stdout_replaced + error_replaced,
    }, ""


def _refusals(raw: bytes, dropped: int) -> tuple[tuple[str, ...], int]:
    text, replaced = decode(raw)
    lines = [line[:200] for line in text.split("\n") if line.strip()][:20]
    if dropped:
        lines.append("(more refusals cut)")
    return tuple(lines), replaced


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown"
