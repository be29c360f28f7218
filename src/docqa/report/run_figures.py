"""Figures that compare runs: score against cost per question, score against the number of
pages retrieved (top-k), and the same weights in bf16 against nf4. Every score is the headline
Overall (%) with its 95% bootstrap interval as the error bar; one panel per dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
from matplotlib.figure import Figure

from docqa.report.figures import by_dataset, unique_legend
from docqa.report.inputs import Scores
from docqa.report.style import DPI, PAGE_WIDTH, colour, figure_style, marker, save_figure

#: summary totals drawn per question, and their axis labels
COSTS: tuple[tuple[Literal["calls", "seconds"], str], ...] = (
    ("calls", "model calls per question"),
    ("seconds", "seconds per question"),
)


def overall_with_error(run: Scores) -> tuple[float, list[float]]:
    """Overall (%) and its error-bar half-widths [below, above] (0 without an interval)."""
    value = run.summary.get("overall")
    if value is None:
        return np.nan, [0.0, 0.0]
    interval = run.summary.get("intervals", {}).get("overall") or [value, value]
    return float(value), [float(value) - interval[0], interval[1] - float(value)]


def per_question(run: Scores, field: Literal["calls", "seconds"]) -> float:
    questions = int(run.summary["questions"])
    total = run.summary.get(field)
    return np.nan if total is None or questions == 0 else float(total) / questions


def _legend(figure: Figure, axes: list, title: str) -> None:
    handles, labels = unique_legend(axes)
    figure.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=min(len(labels), 3),
        title=title,
        frameon=False,
    )


def plot_score_vs_cost(runs: list[Scores], out_png: Path, out_pdf: Path, dpi: int = DPI) -> None:
    """Overall against model calls per question (left) and seconds per question (right)."""
    datasets = by_dataset(runs)
    labels = {label: i for i, label in enumerate(sorted({run.label for run in runs}))}
    with figure_style():
        figure = Figure(figsize=(PAGE_WIDTH, 0.8 + 2.4 * len(datasets)), layout="constrained")
        axes = figure.subplots(len(datasets), len(COSTS), squeeze=False)
        for row, (dataset, members) in zip(axes, datasets.items(), strict=False):
            for ax, (field, name) in zip(row, COSTS, strict=False):
                for run in members:
                    value, error = overall_with_error(run)
                    index = labels[run.label]
                    ax.errorbar(
                        [per_question(run, field)],
                        [value],
                        yerr=[[e] for e in error],
                        fmt=marker(index),
                        color=colour(index),
                        capsize=2,
                        label=run.label,
                    )
                ax.set_xlabel(name)
                ax.set_ylabel("Overall (%)")
                ax.set_ylim(0, 100)
                ax.set_xlim(left=0)
                ax.grid(True, axis="both")
                ax.set_title(dataset)
        _legend(figure, list(axes.ravel()), "method / model")
        figure.suptitle("Score against cost per question (95% intervals)")
        save_figure(figure, out_png, out_pdf, dpi)


def plot_score_by_top_k(
    runs: list[Scores],
    series: dict[tuple[str, str], dict[int, str]],
    out_png: Path,
    out_pdf: Path,
    dpi: int = DPI,
) -> None:
    """Overall against k for each (method type, model) run at several top-k values.

    ``series``: (method type, model) → {k: method name} (docqa.report.plan.top_k_series).
    """
    by_run = {(run.dataset, run.method, run.model): run for run in runs}
    datasets = sorted({run.dataset for run in runs})
    names = {key: i for i, key in enumerate(sorted(series))}
    with figure_style():
        figure = Figure(
            figsize=(PAGE_WIDTH / 2 * min(len(datasets), 2), 0.8 + 2.4 * -(-len(datasets) // 2)),
            layout="constrained",
        )
        axes = figure.subplots(-(-len(datasets) // 2), min(len(datasets), 2), squeeze=False)
        flat = list(axes.ravel())
        for ax, dataset in zip(flat, datasets, strict=False):
            for key, methods in sorted(series.items()):
                points = [
                    (k, by_run[dataset, methods[k], key[1]])
                    for k in sorted(methods)
                    if (dataset, methods[k], key[1]) in by_run
                ]
                if len(points) < 2:
                    continue
                values = [overall_with_error(run) for _, run in points]
                index = names[key]
                ax.errorbar(
                    [k for k, _ in points],
                    [v for v, _ in values],
                    yerr=np.array([e for _, e in values]).T,
                    color=colour(index),
                    marker=marker(index),
                    capsize=2,
                    label=f"{key[0]} / {key[1]}",
                )
            ax.set_xticks(sorted({k for methods in series.values() for k in methods}))
            ax.set_xlabel("pages retrieved (top-k)")
            ax.set_ylabel("Overall (%)")
            ax.set_ylim(0, 100)
            ax.set_title(dataset)
        for ax in flat[len(datasets) :]:
            ax.set_visible(False)
        _legend(figure, flat[: len(datasets)], "method type / model")
        figure.suptitle("Score against pages retrieved (95% intervals)")
        save_figure(figure, out_png, out_pdf, dpi)


QUANTIZATION_PANELS = (
    ("Overall (%)", lambda run: overall_with_error(run)),
    ("generated tokens / s", lambda run: (per_second(run), [0.0, 0.0])),
    (
        "peak memory (GiB)",
        lambda run: (float(run.summary.get("peak_memory_mb", 0)) / 1024, [0.0, 0.0]),
    ),
)


def per_second(run: Scores) -> float:
    seconds = float(run.summary.get("seconds") or 0.0)
    return np.nan if seconds == 0 else float(run.summary.get("tokens_out", 0)) / seconds


def plot_quantization(
    runs: list[Scores],
    groups: dict[str, list[str]],
    out_png: Path,
    out_pdf: Path,
    dpi: int = DPI,
) -> None:
    """For each set of models loading the same weights at different precisions
    (docqa.report.plan.quantization_groups): Overall, generated tokens per second (over the
    whole run, model time) and peak memory, one bar per model, grouped by dataset / method."""
    models = [model for members in groups.values() for model in members]
    kept = [run for run in runs if run.model in models]
    cases = sorted({(run.dataset, run.method) for run in kept})
    by_run = {(run.dataset, run.method, run.model): run for run in kept}
    with figure_style():
        figure = Figure(figsize=(PAGE_WIDTH, 3.0), layout="constrained")
        axes = figure.subplots(1, len(QUANTIZATION_PANELS), squeeze=False)[0]
        width = 0.8 / len(models)
        x = np.arange(len(cases), dtype=float)
        for ax, (name, measure) in zip(axes, QUANTIZATION_PANELS, strict=False):
            for index, model in enumerate(models):
                measured = [
                    measure(by_run[case + (model,)])
                    if case + (model,) in by_run
                    else (np.nan, [0.0, 0.0])
                    for case in cases
                ]
                ax.bar(
                    x + (index - (len(models) - 1) / 2) * width,
                    [m[0] for m in measured],
                    width,
                    yerr=np.array([m[1] for m in measured]).T,
                    capsize=2,
                    color=colour(index),
                    label=model,
                )
            ax.set_xticks(x, [f"{d}\n{m}" for d, m in cases], rotation=30, ha="right")
            ax.set_ylabel(name)
        _legend(figure, list(axes), "model")
        figure.suptitle("Same weights, different precision: score, speed, memory")
        save_figure(figure, out_png, out_pdf, dpi)
