"""What the training rules plan from the config's ``training:`` section (no heavy imports: the
Snakefile parses this on every call, through ``docqa.workflow.snakefile``)."""

from __future__ import annotations

from typing import Any

ROOT = "results/training"


def training_entries(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return config.get("training") or {}


def stage_names(config: dict[str, Any]) -> list[str]:
    names = {stage for entry in training_entries(config).values() for stage in entry["stages"]}
    return sorted(names)


def stage_start(entry: dict[str, Any], name: str, stage: str) -> list[str]:
    """The folder of the stage this stage starts from (``from:``), as a rule input; none for a
    stage that starts from the student's weights."""
    start = entry["stages"][stage].get("from")
    if start is None:
        return []
    if start not in entry["stages"]:
        raise ValueError(
            f"training.{name}.stages.{stage}.from: {start!r} is not a stage of training.{name}"
        )
    return [f"{ROOT}/{name}/{start}/train.json"]


def training_outputs(config: dict[str, Any]) -> list[str]:
    """What ``rule all`` asks of each training entry: its loss figure (so every stage), the
    filter report and, with ``evaluate:``, the action-frequency figure. Nothing without a
    ``training:`` section: the default DAG is unchanged."""
    outputs = []
    for name, entry in training_entries(config).items():
        outputs += [f"{ROOT}/{name}/loss.png", f"{ROOT}/{name}/filtered/report.json"]
        if entry.get("evaluate"):
            outputs.append(f"{ROOT}/{name}/actions.png")
    return outputs


def evaluation_runs(entry: dict[str, Any]) -> dict[str, str]:
    """model → the predictions of the run the action-frequency figure compares."""
    evaluate = entry["evaluate"]
    return {
        model: f"results/runs/{evaluate['dataset']}/{evaluate['method']}/{model}/predictions.jsonl"
        for model in evaluate["models"]
    }


def evaluation_scores(entry: dict[str, Any]) -> list[str]:
    """The score files of those runs, in the same order."""
    evaluate = entry["evaluate"]
    return [
        f"results/scores/{evaluate['dataset']}/{evaluate['method']}/{model}.json"
        for model in evaluate["models"]
    ]
