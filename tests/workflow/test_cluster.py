"""docqa.workflow.cluster: the cluster file, and what a job asks a cluster for."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from docqa.workflow.cluster import Cluster, check_fits, cluster_threads, job_resources, load_cluster
from docqa.workflow.config_check import ConfigError

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "profiles" / "slurm" / "cluster.yaml"


def cluster(**changes: object) -> Cluster:
    return load_cluster(SHIPPED).model_copy(update=changes)


def test_the_shipped_cluster_file_loads() -> None:
    shipped = load_cluster(SHIPPED)
    assert shipped.gpu_partition
    assert shipped.max_cpus >= 1


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"max_cpu": 8}, "max_cpu: Extra inputs are not permitted"),
        ({"max_mem_mb": 0}, "max_mem_mb: Input should be greater than or equal to 1"),
        ({"cpu_partition": None}, "cpu_partition: Input should be a valid string"),
    ],
)
def test_a_wrong_key_is_named_with_the_file(tmp_path: Path, change: dict, named: str) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({**yaml.safe_load(SHIPPED.read_text()), **change}))
    with pytest.raises(ConfigError, match=f"cluster file {path}: .*{named}"):
        load_cluster(path)


def test_a_missing_file_says_which_and_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found: .*copy profiles/slurm/cluster.yaml"):
        load_cluster(tmp_path / "nowhere.yaml")


def test_threads_are_capped_at_the_cpus_a_job_may_ask() -> None:
    assert cluster_threads(64, cluster(max_cpus=16)) == 16
    assert cluster_threads(4, cluster(max_cpus=16)) == 4
    assert cluster_threads(64, None) == 64


def evaluate(resources: dict, **wildcards: str) -> dict:
    values = SimpleNamespace(**wildcards)
    return {k: v(values) if callable(v) else v for k, v in resources.items()}


def test_a_job_with_gpus_goes_to_the_gpu_partition_and_one_without_does_not() -> None:
    on = cluster(account="lab", max_runtime=600, max_mem_mb=64000)
    gpu = evaluate(job_resources("infer", lambda w: 2, on))
    cpu = evaluate(job_resources("infer", lambda w: 0, on))
    assert gpu == {
        "gpu": 2, "mem_mb": 64000, "runtime": 600, "slurm_partition": "gpu",
        "gpu_model": "a100", "slurm_account": "lab",
    }  # fmt: skip
    assert cpu == {
        "gpu": 0, "mem_mb": 8000, "runtime": 600, "slurm_partition": "cpu", "gpu_model": None,
        "slurm_account": "lab",
    }  # fmt: skip


def test_a_local_run_gets_the_needs_only() -> None:
    assert evaluate(job_resources("text_pages", 0, None)) == {
        "gpu": 0,
        "mem_mb": 16000,
        "runtime": 240,
    }


@pytest.mark.parametrize(
    ("changes", "jobs", "message"),
    [
        ({"gpu_partition": None}, [("infer", "model m", 1)], "has no gpu_partition"),
        ({"max_gpus": 2}, [("infer", "model m", 4)], "needs 4 GPU(s), more than max_gpus"),
    ],
)
def test_gpus_the_cluster_cannot_give_are_refused(changes: dict, jobs: list, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_fits(cluster(**changes), "c.yaml", jobs)


def test_a_memory_estimate_over_the_limit_is_capped_with_a_warning() -> None:
    small = cluster(max_mem_mb=12000)
    warnings = check_fits(small, "c.yaml", [("infer", "model m", 1)])
    assert "c.yaml: rule text_pages is estimated to need 16000 MB" in warnings[0]
    assert any("rule infer (model m) is estimated to need 64000 MB" in w for w in warnings)
    assert evaluate(job_resources("text_pages", 0, small))["mem_mb"] == 12000
    # prepare_model needs 32000 MB but runs on the submitting machine: not a warning
    assert not any("prepare_model" in w for w in warnings)


def test_a_gpu_job_gets_its_gpus_share_of_a_nodes_cpus() -> None:
    node = cluster(max_cpus=32, max_gpus=4)
    assert cluster_threads(32, node, gpus=1) == 8
    assert cluster_threads(32, node, gpus=4) == 32
    assert cluster_threads(2, node, gpus=1) == 2
    assert cluster_threads(32, node) == 32
