"""The training figures: loss per step of each stage, and DocPilot's calls per action per model
(the paper's D.2 table as bars: curriculum vs direct fine-tuning, and the untrained student)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docqa.core.jsonl import read_jsonl
from docqa.methods.docpilot.actions import ACTION_NAMES
from docqa.report.style import PAGE_WIDTH, colour, figure_style, marker, save_figure


def plot_losses(stages: dict[str, Path], png: Path, pdf: Path) -> None:
    """Training loss per optimizer step, one line per stage (its ``train.json``)."""
    from matplotlib.figure import Figure

    with figure_style():
        figure = Figure(figsize=(PAGE_WIDTH / 2, 2.4))
        axes = figure.add_subplot()
        for index, (name, summary) in enumerate(stages.items()):
            losses = json.loads(summary.read_text())["losses"]
            axes.plot(
                [row["step"] for row in losses],
                [row["loss"] for row in losses],
                label=name,
                color=colour(index),
                marker=marker(index),
                markersize=3,
            )
        axes.set_xlabel("optimizer step")
        axes.set_ylabel("training loss (agent outputs only)")
        axes.legend(frameon=False)
        figure.tight_layout()
        save_figure(figure, png, pdf)


def calls_per_action(predictions: Path) -> dict[str, float]:
    """Mean executed calls of each action per question (from the trace summaries)."""
    counts = {name: 0.0 for name in ACTION_NAMES}
    questions = 0
    for row in read_jsonl(predictions):
        trace = row.get("trace") or []
        if not trace or trace[-1].get("step") != "summary":
            continue
        questions += 1
        for name, count in trace[-1]["calls_per_action"].items():
            counts[name] += count
    return {name: count / questions if questions else 0.0 for name, count in counts.items()}


def plot_action_frequencies(runs: dict[str, Path], png: Path, pdf: Path, table: Path) -> None:
    """Grouped bars: mean calls per action per question, one bar per model; the numbers also go
    to ``table`` (JSON), as the paper's D.2 table."""
    from matplotlib.figure import Figure

    frequencies: dict[str, Any] = {model: calls_per_action(path) for model, path in runs.items()}
    for row in frequencies.values():
        row["total"] = sum(row.values())
    table.write_text(json.dumps(frequencies, indent=2) + "\n")
    with figure_style():
        figure = Figure(figsize=(PAGE_WIDTH, 2.4))
        axes = figure.add_subplot()
        width = 0.8 / max(len(runs), 1)
        for index, model in enumerate(runs):
            xs = [i + (index - (len(runs) - 1) / 2) * width for i in range(len(ACTION_NAMES))]
            axes.bar(
                xs,
                [frequencies[model][name] for name in ACTION_NAMES],
                width,
                label=model,
                color=colour(index),
            )
        axes.set_xticks(range(len(ACTION_NAMES)), [name.title() for name in ACTION_NAMES])
        axes.set_ylabel("calls per question")
        axes.legend(frameon=False)
        figure.tight_layout()
        save_figure(figure, png, pdf)
