"""The training stages of the DAG (rules/training.smk): synthesize → filter → build → train.

Each function is one rule's job; the rule scripts under ``rules/scripts/`` call them with the
rule's inputs and its slice of the config (``training.<name>``, see config/config.schema.yaml
and docs/training.md). The modules that do the work are in ``docqa.training``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docqa.backends.model_spec import ModelSpec
from docqa.backends.preparation import read_model_card
from docqa.training.train import Student, TrainOptions


def synthesize_stage(
    *,
    questions: Path,
    documents: Path,
    pages: Path,
    elements: Path,
    overviews: Path,
    method_config: dict[str, Any],
    teacher: ModelSpec,
    out: Path,
    max_questions: int | None,
) -> dict[str, int]:
    from docqa.training.synthesis import synthesize

    return synthesize(
        questions=questions,
        documents=documents,
        pages=pages,
        elements=elements,
        overviews=overviews,
        method_config=method_config,
        teacher=teacher,
        out=out,
        max_questions=max_questions,
    )


def student_of(spec: ModelSpec) -> Student:
    """The student's weights (a prepared model folder: the embedded model's own folder, or the
    folder a transformers entry points at) and its prompt settings, as inference uses them."""
    card = read_model_card(spec.folder)
    weights = Path(card["weights"]) if "weights" in card else spec.folder
    default_format = "raw" if spec.config.get("backend") == "embedded" else "chat"
    return Student(
        weights=weights,
        prompt_format=spec.config.get("prompt_format", default_format),
        max_pixels=spec.config.get("max_pixels"),
    )


def filter_stage(
    *,
    trajectories: dict[str, Path],
    student: ModelSpec,
    metrics: dict[str, dict[str, Any]],
    settings: dict[str, Any],
    multi_out: Path,
    single_out: Path,
    report_out: Path,
) -> dict[str, Any]:
    """Filter each dataset's trajectories with that dataset's metric (``metrics``: dataset →
    ``{name, options}``) and the student's token counts (the caps are in the student's tokens:
    prompt and reply, images as their OCR text for a text model)."""
    from transformers import AutoTokenizer

    from docqa.training.filtering import Checker, filter_trajectories
    from docqa.training.sft_data import TextEncoder, example

    learner = student_of(student)
    tokenizer = AutoTokenizer.from_pretrained(learner.weights, local_files_only=True)
    encoder = TextEncoder(tokenizer, learner.prompt_format, max_length=10**9)

    def count(call: dict[str, Any]) -> int:
        return len(encoder.encode(example(call, "", "", 0)).input_ids)

    checked = [
        (
            path,
            Checker(
                metrics[dataset]["name"],
                metrics[dataset]["options"],
                count,
                caps=settings.get("caps"),
                min_score=settings.get("min_score", 1.0),
            ),
        )
        for dataset, path in trajectories.items()
    ]
    return filter_trajectories(checked, None, multi_out, single_out, report_out)


def build_stage(single: Path, multi: Path, out_dir: Path) -> dict[str, int]:
    from docqa.training.sft_data import build_sft

    counts = build_sft(single, multi, out_dir)
    (out_dir / "counts.json").write_text(json.dumps(counts, indent=2) + "\n")
    return counts


def stage_options(training: dict[str, Any], stage: str) -> TrainOptions:
    """The shared ``train`` options with the stage's own overrides (``data`` and ``from`` are
    the stage's data and start, not trainer options)."""
    own = {k: v for k, v in training["stages"][stage].items() if k not in ("data", "from")}
    return TrainOptions.from_config({**training.get("train", {}), **own})


def train_stage_job(
    *,
    student: ModelSpec,
    data: Path,
    out: Path,
    options: TrainOptions,
    init_from: Path | None,
) -> dict[str, Any]:
    from docqa.training.train import train_stage

    return train_stage(student_of(student), data, out, options, init_from)
