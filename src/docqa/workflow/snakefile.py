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
from docqa.methods import METHODS
from docqa.report.plan import (
    quantization_groups,
    report_figures,
    report_tables,
    top_k_series,
)
from docqa.retrievers.hybrid import component_names
from docqa.stages.data import download_job
from docqa.stages.shards import shard_counts, shard_files, sharded_runs_pattern
from docqa.training.plan import (
    evaluation_runs,
    evaluation_scores,
    stage_names,
    stage_start,
    training_entries,
    training_outputs,
)
from docqa.workflow.config_check import (
    check_options,
    check_references,
    check_yaml_syntax,
    experiment_grid,
)

#: a method option ending in this names another configured model for one of its roles
#: (e.g. ``text_model: llama-3.1-8b``); the infer job loads it beside the run's model
MODEL_OPTION_SUFFIX = "_model"


def role_models(config: dict[str, Any]) -> dict[str, str]:
    """Role → model name, from a method's ``<role>_model`` options that name a model."""
    return {
        key.removesuffix(MODEL_OPTION_SUFFIX): value
        for key, value in config.items()
        if key.endswith(MODEL_OPTION_SUFFIX) and value
    }


def needs_knowledge(config: dict[str, Any]) -> bool:
    """Whether a method's config entry is of a type that reads a knowledge base (the type's
    ``needs_knowledge``), which the build_knowledge rule makes first."""
    return METHODS.get(config["type"]).needs_knowledge


def retriever_names(config: dict[str, Any]) -> list[str]:
    """The retrievers a method's config entry names: every option ending in ``retriever``
    (``retriever``, ``text_retriever``, ``image_retriever``…), in order, without repeats."""
    names = [value for key, value in config.items() if key.endswith("retriever") and value]
    return list(dict.fromkeys(names))


def fused_entries(retrievers: dict[str, dict[str, Any]], name: str) -> dict[str, dict[str, Any]]:
    """The config entries of the retrievers that entry ``name`` fuses (a hybrid's), by name;
    the index rule builds their indexes first and hands them over."""
    return {fused: retrievers[fused] for fused in component_names(retrievers, name)}


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
    "check_options",
    "check_references",
    "check_yaml_syntax",
    "component_names",
    "download_job",
    "download_keys",
    "download_manifests",
    "download_spec",
    "evaluation_runs",
    "evaluation_scores",
    "experiment_grid",
    "fused_entries",
    "local_inputs",
    "needs_knowledge",
    "prepare_params",
    "quantization_groups",
    "report_figures",
    "report_tables",
    "retriever_names",
    "role_models",
    "shard_counts",
    "shard_files",
    "sharded_runs_pattern",
    "stage_names",
    "stage_start",
    "top_k_series",
    "training_entries",
    "training_outputs",
    "wants_gpu",
]


def text_settings(config: dict[str, Any], dataset: str) -> dict[str, Any]:
    """The text stage's settings for ``dataset``: the top-level ``text`` block with the
    dataset's own ``text`` entries (its source, above all) laid over it."""
    return {**config["text"], **config["datasets"][dataset].get("text", {})}
