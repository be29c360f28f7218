"""The default run's minutes: the DAG in a scratch copy of the repository, seconds per job and
per stage, and the total.

Copies the working tree's tracked files (no ``results/``) into a temporary folder and runs
``snakemake --cores N`` there. Its ``prepare_model`` job links the embedded model from the
user's prepared copy (``$XDG_CACHE_HOME/docqa/models``, as every clone on a machine that
prepared it once); ``--fresh-model-cache`` points ``XDG_CACHE_HOME`` at an empty folder, so the
job converts the GGUF as on a new machine. Job times come from
Snakemake's own log (each job's start and ``Finished jobid`` stamps, one-second resolution); a
job's stage is the rule file (``rules/<stage>.smk``) that declares its rule.

    PYTHONPATH=src python benchmarks/default_run.py [--cores 2] [--fresh-model-cache] [--keep]
        [-- snakemake arguments, e.g. a target]

Prints the table and writes ``benchmarks/results/default_run.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "default_run.json"
STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
START = re.compile(r"^(?:local)?rule (\w+):$")
JOBID = re.compile(r"^\s+jobid: (\d+)$")
WILDCARDS = re.compile(r"^\s+wildcards: (.*)$")
FINISHED = re.compile(r"^Finished jobid: (\d+) \(Rule: (\w+)\)$")


def rule_stages(rules: Path) -> dict[str, str]:
    """Rule name → stage, the stem of the rule file that declares it (``Snakefile`` for the
    target rule ``all``)."""
    stages = {}
    for path in sorted([*rules.glob("*.smk"), rules.parent / "Snakefile"]):
        text = path.read_text()
        for name in re.findall(r"^rule (\w+):", text, flags=re.MULTILINE):
            stages[name] = path.stem
        for name in re.findall(r"^use rule \w+ as (\w+)", text, flags=re.MULTILINE):
            stages[name] = path.stem
    return stages


def parse_log(text: str) -> list[dict[str, Any]]:
    """Every finished job of a Snakemake log: rule, wildcards, start, end and seconds."""
    jobs: dict[str, dict[str, Any]] = {}
    stamp: datetime | None = None
    current: dict[str, Any] | None = None
    for line in text.splitlines():
        if found := STAMP.match(line):
            stamp = datetime.strptime(found.group(1), "%a %b %d %H:%M:%S %Y")
            current = None
        elif (found := START.match(line)) and stamp is not None:
            current = {"rule": found.group(1), "start": stamp, "wildcards": ""}
        elif current is not None and (found := JOBID.match(line)):
            jobs[found.group(1)] = current
        elif current is not None and (found := WILDCARDS.match(line)):
            current["wildcards"] = found.group(1)
        elif (found := FINISHED.match(line)) and stamp is not None and found.group(1) in jobs:
            job = jobs[found.group(1)]
            job["seconds"] = (stamp - job["start"]).total_seconds()
            job["end"] = stamp
    finished = [job for job in jobs.values() if "seconds" in job]
    return sorted(finished, key=lambda job: job["start"])


def copy_tree(source: Path, target: Path) -> None:
    """The tracked files of ``source``'s working tree (as they are now) into ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=source, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        path = source / name
        if path.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument(
        "--fresh-model-cache",
        action="store_true",
        help="prepare the model into an empty XDG_CACHE_HOME, as on a new machine",
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy")
    parser.add_argument("snakemake_args", nargs="*", help="after --: targets or options")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="docqa-default-run-"))
    copy_tree(ROOT, scratch)
    snakemake = Path(sys.executable).with_name("snakemake")
    command = [str(snakemake), "--cores", str(args.cores), *args.snakemake_args]
    env = {**os.environ, "PYTHONPATH": str(scratch / "src")}
    if args.fresh_model_cache:
        env["XDG_CACHE_HOME"] = str(scratch / ".cache")
    started = time.perf_counter()
    done = subprocess.run(command, cwd=scratch, env=env, check=False)
    total = time.perf_counter() - started
    logs = sorted((scratch / ".snakemake" / "log").glob("*.snakemake.log"))
    jobs = parse_log(logs[-1].read_text()) if logs else []
    stages = rule_stages(ROOT / "rules")

    per_stage: dict[str, float] = {}
    for job in jobs:
        job["stage"] = stages.get(job["rule"], "?")
        per_stage[job["stage"]] = per_stage.get(job["stage"], 0.0) + job["seconds"]
    print(f"{'stage':10} {'rule':18} {'s':>6}  wildcards")
    for job in jobs:
        print(f"{job['stage']:10} {job['rule']:18} {job['seconds']:>6.0f}  {job['wildcards']}")
    print("per stage (job seconds, summed; jobs may overlap):")
    for stage, seconds in per_stage.items():
        print(f"  {stage:10} {seconds:>6.0f}")
    print(f"total wall: {total:.0f} s ({total / 60:.1f} min), snakemake exit {done.returncode}")

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    report = {
        "benchmark": "default_run",
        "command": "PYTHONPATH=src python benchmarks/default_run.py " + " ".join(sys.argv[1:]),
        "commit": commit,
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "cores": args.cores,
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "fresh_model_cache": args.fresh_model_cache,
        "snakemake_exit": done.returncode,
        "total_wall_s": round(total, 1),
        "stage_job_seconds": per_stage,
        "jobs": [
            {key: job[key] for key in ("stage", "rule", "wildcards", "seconds")} for job in jobs
        ],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    if args.keep:
        print(f"scratch copy: {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(done.returncode)


if __name__ == "__main__":
    main()
