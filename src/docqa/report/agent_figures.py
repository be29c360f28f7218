"""DocPilot's analyses from the score files' ``summary.agent`` (docqa.stages.score.agent_measures):
cumulative evidence recall by navigation round, and calls per action."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from docqa.report.figures import by_dataset, unique_legend
from docqa.report.inputs import Scores
from docqa.report.style import DPI, PAGE_WIDTH, colour, figure_style, hatch, marker, save_figure


def agent_runs(runs: list[Scores]) -> list[Scores]:
    """The runs whose predictions carried an agent's trace summary."""
    return [run for run in runs if run.summary.get("agent")]


def _panels(count: int) -> tuple[Figure, list]:
    columns = min(count, 2)
    rows = -(-count // columns)
    figure = Figure(figsize=(PAGE_WIDTH / 2 * columns, 0.9 + 2.4 * rows), layout="constrained")
    return figure, list(figure.subplots(rows, columns, squeeze=False).ravel())


def plot_recall_by_round(runs: list[Scores], out_png: Path, out_pdf: Path, dpi: int = DPI) -> None:
    datasets = by_dataset(agent_runs(runs))
    labels = {label: i for i, label in enumerate(sorted({r.label for r in agent_runs(runs)}))}
    with figure_style():
        figure, axes = _panels(max(len(datasets), 1))
        for ax, (dataset, members) in zip(axes, datasets.items(), strict=False):
            for run in members:
                curve = run.summary["agent"]["recall_by_round"]
                index = labels[run.label]
                ax.plot(
                    range(1, len(curve) + 1),
                    curve,
                    color=colour(index),
                    marker=marker(index),
                    label=run.label,
                )
            ax.set_xlabel("navigation round")
            ax.set_ylabel("cumulative evidence recall (%)")
            ax.set_ylim(0, 100)
            ax.grid(True, axis="both")
            questions = max(run.summary["agent"]["recall_questions"] for run in members)
            ax.set_title(f"{dataset} ({questions} questions with evidence pages)")
        for ax in axes[len(datasets) :]:
            ax.set_visible(False)
        handles, names = unique_legend(axes)
        figure.legend(
            handles, names, loc="outside lower center", ncols=min(len(names), 3), frameon=False
        )
        figure.suptitle("Evidence recall by navigation round")
        save_figure(figure, out_png, out_pdf, dpi)


def plot_calls_per_action(runs: list[Scores], out_png: Path, out_pdf: Path, dpi: int = DPI) -> None:
    datasets = by_dataset(agent_runs(runs))
    labels = {label: i for i, label in enumerate(sorted({r.label for r in agent_runs(runs)}))}
    with figure_style():
        figure, axes = _panels(max(len(datasets), 1))
        for ax, (dataset, members) in zip(axes, datasets.items(), strict=False):
            actions = sorted(
                {a for run in members for a in run.summary["agent"]["calls_per_action"]}
            )
            x = np.arange(len(actions), dtype=float)
            width = 0.8 / len(members)
            for position, run in enumerate(members):
                calls = run.summary["agent"]["calls_per_action"]
                index = labels[run.label]
                ax.bar(
                    x + (position - (len(members) - 1) / 2) * width,
                    [calls.get(action, np.nan) for action in actions],
                    width,
                    color=colour(index),
                    hatch=hatch(index),
                    label=run.label,
                )
            ax.set_xticks(x, actions)
            ax.set_ylabel("calls per question")
            ax.set_title(dataset)
        for ax in axes[len(datasets) :]:
            ax.set_visible(False)
        handles, names = unique_legend(axes)
        figure.legend(
            handles, names, loc="outside lower center", ncols=min(len(names), 3), frameon=False
        )
        figure.suptitle("Calls per action (mean per question)")
        save_figure(figure, out_png, out_pdf, dpi)
