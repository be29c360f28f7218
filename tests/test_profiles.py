"""profiles/default and profiles/slurm: parsed by Snakemake and checked by dry runs (what each
job asks a SLURM cluster for, from profiles/slurm/cluster.yaml; tests/test_slurm_e2e.py submits
them to a real one)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from helpers.workflow import ROOT, default_config, workflow_copy

from docqa.workflow.cluster import LOCAL_RULES, NEEDS

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


def test_every_rule_states_its_needs() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "snakemake", "--list-rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr[-2000:]
    # one rule a line, its docstring indented below it
    rules = {line.split()[0] for line in listed.stdout.splitlines() if line[:1].strip()}
    # infer_shard is `use rule infer`: it has infer's needs
    assert rules - set(NEEDS) - set(LOCAL_RULES) == {"infer_shard"}
    assert set(NEEDS) <= rules, f"NEEDS names rules the workflow lacks: {set(NEEDS) - rules}"


def test_the_default_profile_runs_the_default_grid_dry(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path, default_config())
    done = dry_run(work, "--profile", str(PROFILES / "default"))
    assert done.returncode == 0, done.stderr[-3000:]
    infer = job_resources(done.stdout, "infer")
    assert len(infer) == 3
    # a local run: the jobs' needs, no cluster
    assert all("mem_mb=8000" in line and "slurm_partition" not in line for line in infer)
    assert "rerun-incomplete" in (PROFILES / "default" / "config.yaml").read_text()


def slurm_dry_run(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A dry run with profiles/slurm as the workflow profile and profiles/slurm/cluster.yaml."""
    shutil.copytree(PROFILES, work / "profiles")
    return dry_run(work, "--workflow-profile", "profiles/slurm", *args)


def test_the_slurm_profile_gives_only_gpu_jobs_a_gpu_partition_and_type(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path, default_config())
    done = slurm_dry_run(
        work, "--configfile", "config/config.yaml", "config/models.yaml",
        str(gpu_experiment_config(tmp_path)),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    shards = job_resources(done.stdout, "infer_shard")
    assert len(shards) == 2
    for resources in shards:
        for request in ("gpu=1", "gpu_model=a100", "slurm_partition=gpu", "runtime=1440"):
            assert request in resources
        assert "mem_mb=64000" in resources
    (merge,) = job_resources(done.stdout, "merge_shards")
    assert "slurm_partition=cpu" in merge
    assert "gpu_model" not in merge
    assert "gpu=0" in merge


def test_the_embedded_model_and_bm25_ask_for_no_gpu(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path, default_config())
    done = slurm_dry_run(work)
    assert done.returncode == 0, done.stderr[-3000:]
    for rule in ("infer", "build_index", "text_pages", "render_pages", "score", "report"):
        for resources in job_resources(done.stdout, rule):
            assert "slurm_partition=cpu" in resources, (rule, resources)
            assert "gpu=0" in resources, (rule, resources)
            assert "gpu_model" not in resources
            assert re.search(r"mem_mb=\d+ .*runtime=\d+|runtime=\d+.*mem_mb=\d+", resources)


def test_set_resources_changes_one_key_and_keeps_the_rest(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path, default_config())
    done = slurm_dry_run(
        work, "--configfile", "config/config.yaml", "config/models.yaml",
        str(gpu_experiment_config(tmp_path)), "--set-resources", "infer_shard:gpu_model=h100",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    for resources in job_resources(done.stdout, "infer_shard"):
        assert "gpu_model=h100" in resources
        for kept in ("slurm_partition=gpu", "mem_mb=64000", "runtime=1440", "gpu=1"):
            assert kept in resources


def test_a_gpu_model_on_a_cluster_without_gpus_is_refused_when_parsed(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path, default_config())
    shutil.copytree(PROFILES, work / "profiles")
    cluster = work / "profiles" / "slurm" / "cluster.yaml"
    cluster.write_text(cluster.read_text().replace("gpu_partition: gpu ", "gpu_partition: null"))
    done = dry_run(
        work, "--workflow-profile", "profiles/slurm", "--configfile", "config/config.yaml",
        "config/models.yaml", str(gpu_experiment_config(tmp_path)),
    )  # fmt: skip
    assert done.returncode != 0
    assert "rule infer (model qwen2.5-vl-7b) needs 1 GPU(s) but the cluster has no" in (
        done.stdout + done.stderr
    )


def test_a_run_asks_for_the_gpus_of_every_model_it_loads(tmp_path: Path) -> None:
    """A hosted main model (no GPU) with a role model on a GPU: the infer job asks for one."""
    extra = tmp_path / "roles.yaml"
    extra.write_text(
        yaml.safe_dump(
            {
                "methods": {
                    "mdocagent_local_text": {
                        "type": "mdocagent",
                        "text_retriever": "bm25",
                        "image_retriever": "bm25",
                        "text_model": "llama-3.1-8b",
                    }
                },
                "experiments": [
                    {
                        "datasets": ["synthslides"],
                        "methods": ["mdocagent_local_text"],
                        "models": ["gpt-4o"],
                    }
                ],
            }
        )
    )
    work = workflow_copy(tmp_path, default_config())
    done = slurm_dry_run(
        work, "--configfile", "config/config.yaml", "config/models.yaml", str(extra)
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (infer,) = job_resources(done.stdout, "infer")
    for request in ("gpu=1", "slurm_partition=gpu", "gpu_model=a100", "mem_mb=64000"):
        assert request in infer
