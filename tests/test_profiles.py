"""profiles/default and profiles/slurm: parsed by Snakemake and checked by dry runs.

The SLURM dry run loads snakemake-executor-plugin-slurm when it is installed; without it the
executor is overridden to local (the profile's resources are still parsed and evaluated)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import yaml
from helpers.workflow import ROOT, default_config, workflow_copy

PROFILES = ROOT / "profiles"


def gpu_experiment_config(tmp_path: Path) -> Path:
    """A grid on a GPU model of config/models.yaml, each run in two shards."""
    extra = tmp_path / "gpu.yaml"
    extra.write_text(
        yaml.safe_dump(
            {
                "experiments": [
                    {
                        "datasets": ["synthslides"],
                        "methods": ["oracle_pages"],
                        "models": ["qwen2.5-vl-7b"],
                        "shards": 2,
                    }
                ]
            }
        )
    )
    return extra


def dry_run(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", *args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )


def job_resources(output: str, rule: str) -> list[str]:
    """The `resources:` line of every job of ``rule`` in a dry run's output."""
    blocks = re.split(r"\n(?=\[|rule \w+:)", output)
    return [
        re.search(r"resources: (.*)", block).group(1)
        for block in blocks
        if block.startswith(f"rule {rule}:") and "resources:" in block
    ]


def test_every_rule_the_profiles_name_exists() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "snakemake", "--list-rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr[-2000:]
    rules = set(listed.stdout.split())
    slurm = yaml.safe_load((PROFILES / "slurm" / "config.yaml").read_text())
    named = set(slurm["set-resources"]) | set(slurm["set-threads"])
    assert named <= rules, f"profiles/slurm names rules the workflow lacks: {named - rules}"
    for key in ("slurm_partition", "mem_mb", "runtime"):
        assert key in slurm["default-resources"]
    assert slurm["set-resources"]["infer"]["gpu_model"]


def test_the_default_profile_runs_the_default_grid_dry(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path, default_config())
    done = dry_run(work, "--profile", str(PROFILES / "default"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(job_resources(done.stdout, "infer")) == 3
    assert "rerun-incomplete" in (PROFILES / "default" / "config.yaml").read_text()


def test_the_slurm_profile_gives_infer_jobs_a_gpu_partition_and_type(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path, default_config())
    override = []
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        override = ["--executor", "local"]  # the plugin is not installed: check the rest
    done = dry_run(
        work,
        "--profile",
        str(PROFILES / "slurm"),
        *override,
        "--configfile",
        "config/config.yaml",
        "config/models.yaml",
        str(gpu_experiment_config(tmp_path)),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    shards = job_resources(done.stdout, "infer_shard")
    assert len(shards) == 2
    for resources in shards:
        assert "gpu=1" in resources
        assert "gpu_model=a100" in resources
        assert "slurm_partition=gpu" in resources
        assert "runtime=1440" in resources
    (merge,) = job_resources(done.stdout, "merge_shards")
    assert "slurm_partition=cpu" in merge
    assert "gpu=" not in merge
