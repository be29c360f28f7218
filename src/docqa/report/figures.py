"""Paper figures: score by question kind, and retriever recall@k. One panel per dataset."""

from __future__ import annotations

import textwrap
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from docqa.report.inputs import RecallCurve, Scores, load_recall, load_scores
from docqa.report.style import (
    BASELINE_COLOUR,
    DPI,
    PAGE_WIDTH,
    colour,
    figure_style,
    hatch,
    marker,
    save_figure,
)

ALL_QUESTIONS = "all"
#: score-file breakdowns drawn by plot_score_by_kind, with their axis labels
BREAKDOWN_LABELS = {"kind": "Question kind", "evidence_source": "Evidence source"}
T = TypeVar("T", Scores, RecallCurve)


def by_dataset(items: Iterable[T]) -> dict[str, list[T]]:
    groups: dict[str, list[T]] = defaultdict(list)
    for item in items:
        groups[item.dataset].append(item)
    return dict(sorted(groups.items()))


def _question_count(counts: list[int]) -> str:
    low, high = min(counts), max(counts)
    return f"{low} questions" if low == high else f"{low}–{high} questions"


def _kind_panel(
    ax: Axes, dataset: str, runs: list[Scores], colours: dict[str, int], breakdown: str = "kind"
) -> None:
    """Grouped bars: one group per question kind (or other group of ``breakdown``) plus one
    for all questions."""
    kinds = sorted({kind for run in runs for kind in run.breakdown.get(breakdown, {})})
    groups = [*kinds, ALL_QUESTIONS]
    counts = {
        kind: max(
            run.breakdown[breakdown][kind].get("questions", 0)
            for run in runs
            if kind in run.breakdown.get(breakdown, {})
        )
        for kind in kinds
    }
    counts[ALL_QUESTIONS] = max(int(run.summary["questions"]) for run in runs)
    width = 0.8 / len(runs)
    x = np.arange(len(groups), dtype=float)
    for position, run in enumerate(runs):
        kind_scores = run.breakdown.get(breakdown, {})
        scores = [kind_scores[kind]["overall"] if kind in kind_scores else None for kind in kinds]
        values = [np.nan if score is None else float(score) for score in scores]
        overall = run.summary.get("overall")
        values.append(np.nan if overall is None else float(overall))
        index = colours[run.label]
        centres = x + (position - (len(runs) - 1) / 2) * width
        ax.bar(
            centres,
            values,
            width,
            label=run.label,
            color=colour(index),
            hatch=hatch(index),
            edgecolor="white",
            linewidth=0.5,
        )
        # A missing bar would read as a score of 0: say that the run has no such questions.
        for centre, value in zip(centres, values, strict=False):
            if np.isnan(value):
                ax.text(
                    centre,
                    1,
                    "n/a",
                    rotation=90,
                    ha="center",
                    va="bottom",
                    fontsize="x-small",
                    color=BASELINE_COLOUR,
                )
    ax.axvline(len(kinds) - 0.5, color=BASELINE_COLOUR, linewidth=0.8, linestyle=":")
    ax.set_xticks(
        x,
        [f"{textwrap.fill(group.replace('_', ' '), 12)}\n(n={counts[group]})" for group in groups],
    )
    ax.set_xlim(-0.5, len(groups) - 0.5)
    ax.set_ylim(0, 100)
    ax.set_ylabel("Overall score (%)")
    ax.set_xlabel(BREAKDOWN_LABELS[breakdown])
    metrics = sorted({run.metric for run in runs if run.metric})
    metric = f", metric: {', '.join(metrics)}" if metrics else ""
    questions = _question_count([int(run.summary["questions"]) for run in runs])
    ax.set_title(f"{dataset} ({questions}{metric})")


def plot_score_by_kind(
    score_files: list[Path], out_png: Path, out_pdf: Path, dpi: int = DPI
) -> None:
    """Overall score (%) per question kind, one bar per "method / model", one panel per
    dataset, and a second panel per evidence source for datasets whose questions are tagged
    with one; the rightmost group is the score over all questions."""
    runs = sorted(
        (load_scores(Path(path)) for path in score_files),
        key=lambda run: (run.dataset, run.method, run.model),
    )
    if not runs:
        save_placeholder("No runs were scored in this experiment grid.", out_png, out_pdf, dpi)
        return
    datasets = by_dataset(runs)
    # One colour per method/model across all panels, so a bar means the same run everywhere.
    colours = {label: i for i, label in enumerate(sorted({run.label for run in runs}))}
    panels = [
        (dataset, breakdown, dataset_runs)
        for dataset, dataset_runs in datasets.items()
        for breakdown in BREAKDOWN_LABELS
        if breakdown == "kind" or any(run.breakdown.get(breakdown) for run in dataset_runs)
    ]
    with figure_style():
        figure = Figure(figsize=(PAGE_WIDTH, 0.6 + 2.4 * len(panels)), layout="constrained")
        axes = figure.subplots(len(panels), 1, squeeze=False)[:, 0]
        for ax, (dataset, breakdown, dataset_runs) in zip(axes, panels, strict=False):
            _kind_panel(ax, dataset, dataset_runs, colours, breakdown)
        handles, labels = unique_legend(axes)
        figure.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=min(len(labels), 3),
            title="method / model",
            frameon=False,
        )
        by_source = any(breakdown == "evidence_source" for _, breakdown, _ in panels)
        figure.suptitle(
            "Overall score by question kind" + (" and evidence source" if by_source else "")
        )
        save_figure(figure, out_png, out_pdf, dpi)


def save_placeholder(message: str, out_png: Path, out_pdf: Path, dpi: int = DPI) -> None:
    """A figure that says why it is empty: the pipeline expects every figure file to exist."""
    with figure_style():
        figure = Figure(figsize=(PAGE_WIDTH / 2, 1.0))
        figure.text(0.5, 0.5, message, ha="center", va="center")
        save_figure(figure, out_png, out_pdf, dpi)


def unique_legend(axes: Iterable[Axes]) -> tuple[list[Artist], list[str]]:
    """Legend entries of all panels, each label once, in label order."""
    entries: dict[str, Artist] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=False):
            entries.setdefault(label, handle)
    labels = sorted(entries, key=lambda label: (label.startswith("random"), label))
    return [entries[label] for label in labels], labels


def _recall_panel(
    ax: Axes, dataset: str, curves: list[RecallCurve], colours: dict[str, int]
) -> None:
    for curve in curves:
        index = colours[curve.retriever]
        ax.plot(
            curve.k, curve.recall, label=curve.retriever, color=colour(index), marker=marker(index)
        )
    randoms = [curve.random for curve in curves]
    if all(np.allclose(random, randoms[0]) for random in randoms[1:]) and all(
        curve.k == curves[0].k for curve in curves
    ):
        ax.plot(
            curves[0].k, randoms[0], label="random ranking", color=BASELINE_COLOUR, linestyle="--"
        )
    else:
        # Retrievers evaluated on different questions have different random baselines.
        for curve in curves:
            ax.plot(
                curve.k,
                curve.random,
                label=f"random ranking ({curve.retriever})",
                color=colour(colours[curve.retriever]),
                linestyle="--",
                linewidth=1.0,
            )
    ks = sorted({k for curve in curves for k in curve.k})
    ax.set_xticks(ks)
    ax.set_ylim(0, 100)
    ax.set_xlabel("k (top-ranked pages)")
    ax.set_ylabel("Evidence-page recall@k (%)")
    ax.grid(True, axis="both")
    ax.set_title(f"{dataset} ({_question_count([curve.questions for curve in curves])})")


def plot_retrieval_recall(
    recall_files: list[Path], out_png: Path, out_pdf: Path, dpi: int = DPI
) -> None:
    """Recall@k of each retriever against k, with the random-ranking baseline dashed, one
    panel per dataset."""
    curves = sorted(
        (load_recall(Path(path)) for path in recall_files),
        key=lambda curve: (curve.dataset, curve.retriever),
    )
    if not curves:
        save_placeholder(
            "No method in this experiment grid uses a retriever.", out_png, out_pdf, dpi
        )
        return
    datasets = by_dataset(curves)
    colours = {name: i for i, name in enumerate(sorted({curve.retriever for curve in curves}))}
    columns = min(len(datasets), 3)
    rows = -(-len(datasets) // columns)
    with figure_style():
        figure = Figure(
            figsize=(PAGE_WIDTH if columns > 1 else PAGE_WIDTH / 2, 0.8 + 2.4 * rows),
            layout="constrained",
        )
        axes = figure.subplots(rows, columns, squeeze=False).ravel()
        for ax, (dataset, dataset_curves) in zip(axes, datasets.items(), strict=False):
            _recall_panel(ax, dataset, dataset_curves, colours)
        for ax in axes[len(datasets) :]:
            ax.set_visible(False)
        handles, labels = unique_legend(axes[: len(datasets)])
        figure.legend(
            handles, labels, loc="outside lower center", ncols=min(len(labels), 4), frameon=False
        )
        figure.suptitle("Evidence-page recall of the retrievers")
        save_figure(figure, out_png, out_pdf, dpi)
