"""The Solve sandbox's start-to-result time: an old sandbox (``--old``: by default the
bubblewrap sandbox before the kernel-memory bounds and the uid drop; ``15a850f`` is the one of
audit hooks, rlimits and ``unshare --net``) vs this one, side by side.

Two programs: a trivial one (``result = 1``) and a computation of about one CPU second. The old
sandbox is the package as it was at commit ``OLD`` (read from git into a temporary folder and
imported under another name); both run in this process, interleaved run by run with the order
alternating, so that load from elsewhere on a shared machine hits them alike. Besides the median
wall time it reports the CPU time each run cost the machine (this process's children). The
isolation probe of the new sandbox (one trial run, once per process) is done before any clock.

    PYTHONPATH=src python benchmarks/sandbox_overhead.py [--repeats 15] [--old bce9b4f]

Prints a table and writes ``benchmarks/results/sandbox_overhead.json``. Target: the isolation
adds at most 150 ms a call.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docqa.sandbox import SandboxLimits, run_python
from docqa.sandbox.machine import current

RESULTS = Path(__file__).parent / "results" / "sandbox_overhead.json"
REPO = Path(__file__).resolve().parents[1]
OLD = "bce9b4f"
#: about one second of CPU on the machine this was written on (scaled at start, see calibrate)
COMPUTE = "total = 0\nfor i in range({n}):\n    total += i * i\nresult = total % 97"


def load_old(commit: str, folder: Path) -> Callable[..., Any]:
    """The old sandbox's ``run_python``, imported from ``commit`` as ``old_sandbox``."""
    package = folder / "old_sandbox"
    package.mkdir()
    listing = subprocess.run(
        ["git", "-C", str(REPO), "ls-tree", "--name-only", commit, "src/docqa/sandbox/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for path in listing:
        if path.endswith(".py"):
            text = subprocess.run(
                ["git", "-C", str(REPO), "show", f"{commit}:{path}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            (package / Path(path).name).write_text(text.replace("docqa.sandbox", "old_sandbox"))
    sys.path.insert(0, str(folder))
    module = importlib.import_module("old_sandbox")
    # the sandbox of 15a850f chose its network isolation; later ones have no such limit
    extra = {"network_namespace": "auto"}
    if "network_namespace" not in {f.name for f in dataclasses.fields(module.SandboxLimits)}:
        extra = {}
    return lambda code, limits: module.run_python(
        code, limits=module.SandboxLimits(**limits, **extra)
    )


def calibrate() -> int:
    """The loop count that takes about one CPU second here, outside any sandbox."""
    n = 200_000
    while True:
        started = time.process_time()
        exec(COMPUTE.format(n=n), {})
        spent = time.process_time() - started
        if spent > 0.2:
            return int(n / spent)
        n *= 2


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--old", default=OLD, help="the commit of the old sandbox")
    args = parser.parse_args()
    if not current().available:
        raise SystemExit(f"the new sandbox cannot run here: {current().reason}")
    limits = {"cpu_seconds": 5, "wall_seconds": 30, "memory_mb": 512}
    n = calibrate()
    programs = {"trivial": "result = 1", "1 s computation": COMPUTE.format(n=n)}
    with tempfile.TemporaryDirectory() as folder:
        old = load_old(args.old, Path(folder))
        sandboxes = {
            "old": old,
            "new": lambda code, limits: run_python(code, limits=SandboxLimits(**limits)),
        }
        for run in sandboxes.values():  # warm both (the new one probes its isolation once)
            assert run("result = 1", limits).ok
        times: dict[str, dict[str, list[float]]] = {p: {s: [] for s in sandboxes} for p in programs}
        cpu: dict[str, dict[str, list[float]]] = {p: {s: [] for s in sandboxes} for p in programs}
        for repeat in range(args.repeats):
            for program, code in programs.items():
                order = list(sandboxes) if repeat % 2 == 0 else list(reversed(sandboxes))
                for name in order:
                    before_cpu, started = children_cpu(), time.perf_counter()
                    outcome = sandboxes[name](code, limits)
                    times[program][name].append(time.perf_counter() - started)
                    cpu[program][name].append(children_cpu() - before_cpu)
                    assert outcome.ok, (name, program, outcome)
    rows = []
    for program in programs:
        old_ms = statistics.median(times[program]["old"]) * 1000
        new_ms = statistics.median(times[program]["new"]) * 1000
        rows.append(
            {
                "program": program,
                "old_ms": round(old_ms, 1),
                "new_ms": round(new_ms, 1),
                "added_ms": round(new_ms - old_ms, 1),
                "old_cpu_ms": round(statistics.median(cpu[program]["old"]) * 1000, 1),
                "new_cpu_ms": round(statistics.median(cpu[program]["new"]) * 1000, 1),
                "new_min_ms": round(min(times[program]["new"]) * 1000, 1),
                "new_max_ms": round(max(times[program]["new"]) * 1000, 1),
            }
        )
    print(f"{'program':<18}{'old ms':>9}{'new ms':>9}{'added':>9}{'old cpu':>9}{'new cpu':>9}")
    for row in rows:
        print(
            f"{row['program']:<18}{row['old_ms']:>9}{row['new_ms']:>9}{row['added_ms']:>9}"
            f"{row['old_cpu_ms']:>9}{row['new_cpu_ms']:>9}"
        )
    report = {
        "repeats": args.repeats,
        "old_commit": args.old,
        "isolation": current().level,
        "machine": {
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg(),
            "python": platform.python_version(),
            "kernel": platform.release(),
            "as_root": os.geteuid() == 0,
        },
        "rows": rows,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
