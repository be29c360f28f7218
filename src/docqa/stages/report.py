"""The report job: every table and figure the config plans (docqa.report.plan) from the score,
recall and failure files, with the papers' reported numbers and the runs' provenance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.report.agent_figures import plot_calls_per_action, plot_recall_by_round
from docqa.report.figures import plot_retrieval_recall, plot_score_by_kind
from docqa.report.inputs import Scores, load_scores
from docqa.report.paper_tables import TableSpec, paper_table, write_paper_table
from docqa.report.provenance_note import provenance_note, provenance_path
from docqa.report.reported import load_reported
from docqa.report.retrieval_table import retrieval_table, write_retrieval_table
from docqa.report.run_figures import plot_quantization, plot_score_by_top_k, plot_score_vs_cost
from docqa.report.style import DPI
from docqa.report.tables import results_table, write_tables
from docqa.report.traces_cli import render_traces


def top_k_series(params: list[dict[str, Any]]) -> dict[tuple[str, str], dict[int, str]]:
    """The rule's ``top_k`` param (plain lists and string keys) back in plan's shape."""
    return {
        (entry["type"], entry["model"]): {int(k): m for k, m in entry["methods"].items()}
        for entry in params
    }


def run_notes(runs: list[Scores], runs_dir: Path) -> dict[tuple[str, str, str], str]:
    """(dataset, method, model) → its provenance line, for the runs that have one."""
    notes = {}
    for run in runs:
        note = provenance_note(provenance_path(runs_dir, run.dataset, run.method, run.model))
        if note:
            notes[(run.dataset, run.method, run.model)] = note
    return notes


def build_report(
    scores: list[Path],
    recalls: list[Path],
    failures: list[Path],
    reported: Path,
    outputs: dict[str, Path],
    params: dict[str, Any],
) -> None:
    """Write every output the report rule declares; ``outputs`` by the rule's output names
    (``csv``, ``table_<name>_<ext>``, ``<figure>_png``…), ``params`` as the rule gives them."""
    dpi = int(params.get("figures", {}).get("dpi", DPI))
    runs_dir = Path(params["runs_dir"])
    runs = [load_scores(path, runs_dir) for path in scores]
    write_tables(results_table(scores, failures, runs_dir), outputs["csv"], outputs["markdown"])
    write_retrieval_table(
        retrieval_table(recalls), outputs["retrieval_csv"], outputs["retrieval_markdown"]
    )
    numbers = load_reported(reported)
    notes = run_notes(runs, runs_dir)
    for entry in params.get("tables", []):
        spec = TableSpec.from_config(entry)
        write_paper_table(
            paper_table(spec, runs, numbers, notes),
            *(outputs[f"table_{spec.name}_{ext}"] for ext in ("csv", "md", "tex", "html")),
        )
    figures = {
        "score_by_kind": lambda png, pdf: plot_score_by_kind(scores, png, pdf, dpi),
        "retrieval_recall": lambda png, pdf: plot_retrieval_recall(recalls, png, pdf, dpi),
        "score_vs_cost": lambda png, pdf: plot_score_vs_cost(runs, png, pdf, dpi),
        "score_by_top_k": lambda png, pdf: plot_score_by_top_k(
            runs, top_k_series(params["top_k"]), png, pdf, dpi
        ),
        "recall_by_round": lambda png, pdf: plot_recall_by_round(runs, png, pdf, dpi),
        "calls_per_action": lambda png, pdf: plot_calls_per_action(runs, png, pdf, dpi),
        "quantization": lambda png, pdf: plot_quantization(
            runs, params["quantization"], png, pdf, dpi
        ),
    }
    for name, plot in figures.items():
        if f"{name}_png" in outputs:
            plot(outputs[f"{name}_png"], outputs[f"{name}_pdf"])


def write_traces(predictions: Path, questions: Path, pages: Path, scores: Path, out: Path) -> None:
    """The traces rule's job: one HTML page per question of a run, and their index with each
    answer's verdict from the run's score file (a run without predictions still gets its empty
    index, so the rule's folder always exists)."""
    out.mkdir(parents=True, exist_ok=True)
    render_traces(predictions, questions, pages, out, scores_file=scores)
