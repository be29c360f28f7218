"""Everything the Snakefile and ``rules/*.smk`` take from docqa, in one place.

Snakemake parses the workflow on every call (``snakemake -n`` included), so whatever this module
imports is imported each time: it holds only config-level helpers and imports no model, image or
OCR library (tests/runtime/test_workflow.py checks that torch, PIL and pytesseract stay out).
Rule scripts under ``rules/scripts/`` import the stage modules themselves, in their own jobs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.datasets.catalogue import (
    download_keys,
    download_manifests,
    download_spec,
    prepare_params,
)
from docqa.report.plan import (
    quantization_groups,
    report_figures,
    report_tables,
    top_k_series,
)
from docqa.stages.data import download_job
from docqa.stages.shards import shard_counts, shard_names, sharded_runs_pattern
from docqa.training.plan import stage_names, start_stage, training_entries
from docqa.workflow.cluster import (
    LOCAL_RULES,
    check_fits,
    cluster_threads,
    job_resources,
    load_cluster,
)
from docqa.workflow.config_check import ConfigError, check_yaml_syntax, experiment_grid
from docqa.workflow.layout import RUN, SHARD, Layout, report_command, results_layout, run_key
from docqa.workflow.loader import validate_config
from docqa.workflow.pipeline import (
    fused_entries,
    model_source,
    model_threads,
    needs_knowledge,
    retriever_names,
    role_models,
    text_settings,
)


def local_inputs(datasets: dict[str, Any], name: str) -> list[str]:
    """The files of a ``local`` dataset (its question file and documents, under option
    ``root``), as the data rule's inputs: editing one of them reruns the dataset's jobs.
    Nothing for other adapters, or when the folder is missing (the data job then says so)."""
    entry = datasets[name]
    root = entry.get("options", {}).get("root")
    if entry["adapter"] != "local" or not root or not Path(root).is_dir():
        return []
    return sorted(str(path) for path in Path(root).rglob("*") if path.is_file())


def wants_gpu(entry: dict[str, Any]) -> bool:
    """Whether a retriever entry runs on a CUDA device (the index job then needs a GPU)."""
    return str(entry.get("device", "cpu")).startswith("cuda")


__all__ = [
    "LOCAL_RULES",
    "RUN",
    "SHARD",
    "Layout",
    "ConfigError",
    "check_fits",
    "check_yaml_syntax",
    "download_job",
    "download_keys",
    "download_manifests",
    "download_spec",
    "evaluation_runs",
    "evaluation_scores",
    "experiment_grid",
    "fused_entries",
    "job_resources",
    "cluster_threads",
    "load_cluster",
    "local_inputs",
    "model_source",
    "model_threads",
    "needs_knowledge",
    "prepare_params",
    "quantization_groups",
    "report_command",
    "report_figures",
    "report_tables",
    "results_layout",
    "retriever_names",
    "role_models",
    "run_key",
    "shard_counts",
    "shard_names",
    "sharded_runs_pattern",
    "stage_names",
    "stage_start",
    "text_settings",
    "top_k_series",
    "training_entries",
    "training_outputs",
    "validate_config",
    "wants_gpu",
]


def stage_start(layout: Layout, entry: dict[str, Any], name: str, stage: str) -> list[str]:
    """The train.json of the stage this stage starts from (``from:``), as a rule input; none
    for a stage that starts from the student's weights."""
    start = start_stage(entry, name, stage)
    return [] if start is None else [f"{layout.training(name)}/{start}/train.json"]


def training_outputs(layout: Layout, config: dict[str, Any]) -> list[str]:
    """What ``rule all`` asks of each training entry: its loss figure (so every stage), the
    filter report and, with ``evaluate:``, the action-frequency figure. Nothing without a
    ``training:`` section: the default DAG is unchanged."""
    outputs = []
    for name, entry in training_entries(config).items():
        folder = layout.training(name)
        outputs += [f"{folder}/loss.png", f"{folder}/filtered/report.json"]
        if entry.get("evaluate"):
            outputs.append(f"{folder}/actions.png")
    return outputs


def evaluation_runs(layout: Layout, entry: dict[str, Any]) -> dict[str, str]:
    """model → the predictions of the run the action-frequency figure compares."""
    evaluate = entry["evaluate"]
    return {
        model: layout.predictions(run_key(evaluate["dataset"], evaluate["method"], model))
        for model in evaluate["models"]
    }


def evaluation_scores(layout: Layout, entry: dict[str, Any]) -> list[str]:
    """The score files of those runs, in the same order."""
    evaluate = entry["evaluate"]
    return [
        layout.scores(run_key(evaluate["dataset"], evaluate["method"], model))
        for model in evaluate["models"]
    ]
