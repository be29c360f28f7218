"""What the training rules plan from the config's ``training:`` section (no heavy imports: the
Snakefile parses this on every call, through ``docqa.workflow.snakefile``)."""

from __future__ import annotations

from typing import Any


def training_entries(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return config.get("training") or {}


def stage_names(config: dict[str, Any]) -> list[str]:
    names = {stage for entry in training_entries(config).values() for stage in entry["stages"]}
    return sorted(names)


def start_stage(entry: dict[str, Any], name: str, stage: str) -> str | None:
    """The stage this stage starts from (``from:``); None for a stage that starts from the
    student's weights."""
    start = entry["stages"][stage].get("from")
    if start is not None and start not in entry["stages"]:
        raise ValueError(
            f"training.{name}.stages.{stage}.from: {start!r} is not a stage of training.{name}"
        )
    return start
