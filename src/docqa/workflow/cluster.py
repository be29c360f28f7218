"""Where each job runs on a SLURM cluster, and what it asks for there.

A cluster is described once, in the file that config key ``cluster`` names
(``profiles/slurm/cluster.yaml``, which ``profiles/slurm`` sets): its partitions, its GPU type,
the account, and the most CPUs, memory, GPUs and minutes one job may ask. Every rule states its
needs (threads, the GPUs of the model it loads, the memory and run time of :data:`NEEDS`); this
module turns them into the Snakemake resources the SLURM executor plugin submits with
(``slurm_partition``, ``slurm_account``, ``gpu`` and ``gpu_model``, ``mem_mb``, ``runtime``,
CPUs = the job's threads), capped at what the cluster has. A need no cap can meet (more GPUs
than a job may have, a GPU on a cluster without one) is an error when the workflow is
parsed, before anything is submitted; a memory estimate over ``max_mem_mb`` is capped there, with
a warning naming the rule (the estimates are generous, and a job that runs out is reported as
``OUT_OF_MEMORY`` with its log).

Without a cluster (a local run) the same needs are the jobs' ``mem_mb``, ``runtime`` and
``gpu`` resources, and nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from docqa.workflow.config_check import ConfigError

#: a job's GPUs: a count, or a function of the job's wildcards (the model's ``gpus``)
Gpus = int | Callable[[Any], int]


class Cluster(BaseModel):
    """The cluster file's keys (profiles/slurm/cluster.yaml explains each one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cpu_partition: str = Field(min_length=1)
    gpu_partition: str | None = None
    gpu_model: str | None = None
    account: str | None = None
    max_cpus: int = Field(ge=1)
    max_mem_mb: int = Field(ge=1)
    max_gpus: int = Field(default=0, ge=0)
    max_runtime: int = Field(ge=1)


@dataclass(frozen=True)
class Needs:
    """What one job of a rule needs beside its threads and GPUs: memory in MB without a GPU
    and with one (a model is loaded into host memory before it moves to the GPU), and minutes
    of run time (a longer job is stopped by SLURM; the long jobs resume from their
    checkpoint when Snakemake resubmits them)."""

    mem_mb: int
    runtime: int
    gpu_mem_mb: int | None = None

    def memory(self, gpus: int) -> int:
        return self.gpu_mem_mb if gpus and self.gpu_mem_mb else self.mem_mb


#: every rule's needs, by rule name (tests/test_profiles.py checks that each rule of the
#: workflow has an entry)
NEEDS: dict[str, Needs] = {
    "download_dataset": Needs(mem_mb=2000, runtime=240),
    "prepare_dataset": Needs(mem_mb=4000, runtime=60),
    "render_pages": Needs(mem_mb=8000, runtime=120),
    "text_pages": Needs(mem_mb=16000, runtime=240),
    "build_index": Needs(mem_mb=16000, runtime=240, gpu_mem_mb=32000),
    "prepare_model": Needs(mem_mb=32000, runtime=240),
    "build_knowledge": Needs(mem_mb=8000, runtime=1440, gpu_mem_mb=64000),
    "infer": Needs(mem_mb=8000, runtime=1440, gpu_mem_mb=64000),
    "merge_shards": Needs(mem_mb=4000, runtime=15),
    "score": Needs(mem_mb=8000, runtime=60, gpu_mem_mb=64000),
    "traces": Needs(mem_mb=4000, runtime=30),
    "report": Needs(mem_mb=8000, runtime=30),
    "synthesize_trajectories": Needs(mem_mb=8000, runtime=1440, gpu_mem_mb=64000),
    "filter_trajectories": Needs(mem_mb=8000, runtime=60),
    "build_sft": Needs(mem_mb=4000, runtime=30),
    "train": Needs(mem_mb=16000, runtime=1440, gpu_mem_mb=64000),
    "training_figures": Needs(mem_mb=4000, runtime=30),
    "training_action_figure": Needs(mem_mb=4000, runtime=30),
}

#: the rules that run on the submitting machine, never on a compute node: they download
#: (compute nodes often have no network), or only collect other jobs' outputs
LOCAL_RULES = ("download_dataset", "prepare_model", "all")


def load_cluster(path: str | Path) -> Cluster:
    """The cluster file at ``path``; a missing file or a wrong key is a ConfigError naming the
    file and the key."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(
            f"cluster file {path} not found: config key `cluster` names the file that "
            "describes the SLURM cluster (copy profiles/slurm/cluster.yaml and edit it)"
        )
    try:
        return Cluster.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in e['loc']) or 'file'}: {e['msg']}"
            for e in error.errors()
        )
        raise ConfigError(f"cluster file {path}: {problems}") from None


def cluster_threads(threads: int, cluster: Cluster | None, gpus: int = 0) -> int:
    """A job's threads: what it needs, at most the CPUs one job may have on the cluster, and a
    job with GPUs at most its GPUs' share of a node's CPUs (so that a one-GPU job leaves the
    node's other GPUs their CPUs). Its sbatch request is its threads: it uses every CPU it asks."""
    if cluster is None:
        return threads
    share = cluster.max_cpus * gpus // cluster.max_gpus if gpus and cluster.max_gpus else 0
    return max(1, min(threads, share or cluster.max_cpus))


def job_resources(
    rule: str, gpus: Gpus, cluster: Cluster | None, check: Callable[[], None] = lambda: None
) -> dict[str, Any]:
    """The Snakemake resources of a job of ``rule`` (``rules/*.smk`` hand them over as
    ``resources: **job_resources(...)``; ``--set-resources`` still overrides one key).
    ``check`` runs when the job's memory is evaluated, before the job is submitted."""
    needs = NEEDS[rule]

    def count(wildcards: Any) -> int:
        return int(gpus(wildcards)) if callable(gpus) else int(gpus)

    def memory(wildcards: Any) -> int:
        check()
        need = needs.memory(count(wildcards))
        return min(need, cluster.max_mem_mb) if cluster else need

    resources: dict[str, Any] = {
        "gpu": count,
        "mem_mb": memory,
        "runtime": min(needs.runtime, cluster.max_runtime) if cluster else needs.runtime,
    }
    if cluster is None:
        return resources
    resources["slurm_partition"] = lambda wildcards: (
        cluster.gpu_partition if count(wildcards) else cluster.cpu_partition
    )
    resources["gpu_model"] = lambda wildcards: (cluster.gpu_model if count(wildcards) else None)
    if cluster.account:
        resources["slurm_account"] = cluster.account
    return resources


def check_fits(
    cluster: Cluster, path: str | Path, gpu_jobs: Iterable[tuple[str, str, int]]
) -> list[str]:
    """Raise a ConfigError naming the job and the cluster file's key when a job submitted to
    the cluster needs GPUs the cluster cannot give one job. ``gpu_jobs``: (rule, what it
    loads, its GPUs) of every job that loads a model or a GPU retriever. Returns a warning for
    each memory estimate that ``max_mem_mb`` caps."""
    capped = {
        f"rule {rule}": needs.mem_mb
        for rule, needs in NEEDS.items()
        if rule not in LOCAL_RULES and needs.mem_mb > cluster.max_mem_mb
    }
    for rule, what, gpus in gpu_jobs:
        if not gpus:
            continue
        job = f"rule {rule} ({what})"
        if cluster.gpu_partition is None:
            raise ConfigError(
                f"cluster file {path}: {job} needs {gpus} GPU(s) but the cluster has no "
                "gpu_partition: set gpu_partition to the partition with GPUs, or run a model "
                "with gpus: 0"
            )
        if gpus > cluster.max_gpus:
            raise ConfigError(
                f"cluster file {path}: {job} needs {gpus} GPU(s), more than max_gpus allows one "
                "job: raise max_gpus if a node of the cluster has more, or run a smaller model"
            )
        if NEEDS[rule].memory(gpus) > cluster.max_mem_mb:
            capped[job] = NEEDS[rule].memory(gpus)
    return [
        f"cluster file {path}: {job} is estimated to need {need} MB, more than max_mem_mb: it "
        f"asks {cluster.max_mem_mb} MB (raise max_mem_mb if a node has more; "
        f"--set-resources RULE:mem_mb=N sets one rule's)"
        for job, need in capped.items()
    ]
