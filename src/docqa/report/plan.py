"""Which report outputs a config has: figures whose inputs the experiment grid cannot produce
(no run of a method whose traces have rounds, no second top-k, no bf16/nf4 pair) are not
planned at all, so no empty figure files lie around. Decided from the config alone (and the
declarations of its methods' types), so the DAG is known before any job."""

from __future__ import annotations

from typing import Any

from docqa.methods import METHODS

Grid = list[tuple[str, str, str]]
#: figures every grid has (an empty grid is impossible: the schema needs one experiment)
ALWAYS = ("score_by_kind", "retrieval_recall", "score_vs_cost")
#: planned when a method of the grid declares ``traces_rounds`` (docqa.methods.base.Method)
AGENT_FIGURES = ("recall_by_round", "calls_per_action")
DEFAULT_PRECISION = "bf16"


def top_k_series(config: dict[str, Any], grid: Grid) -> dict[tuple[str, str], dict[int, str]]:
    """(method type, model) → {top_k: method name} for the grid's methods with a ``top_k``;
    an ablation (``ablation`` other than none, or actions taken away) is no point of it."""
    series: dict[tuple[str, str], dict[int, str]] = {}
    for _, method, model in grid:
        entry = config["methods"][method]
        ablated = entry.get("ablation", "none") != "none" or entry.get("without")
        if "top_k" in entry and not ablated:
            series.setdefault((entry["type"], model), {})[int(entry["top_k"])] = method
    return series


def weights_of(entry: dict[str, Any]) -> str | None:
    """What a model entry loads (its Hub id or folder), whatever its precision."""
    return entry.get("hf_id") or entry.get("path")


def precision_of(entry: dict[str, Any]) -> str:
    if entry.get("quantization"):
        return str(entry["quantization"])
    return str(entry.get("precision", DEFAULT_PRECISION))


def quantization_groups(config: dict[str, Any], grid: Grid) -> dict[str, list[str]]:
    """Weights → the grid's model names that load them at different precisions (two or more)."""
    groups: dict[str, dict[str, str]] = {}
    for model in dict.fromkeys(model for _, _, model in grid):
        entry = config["models"][model]
        weights = weights_of(entry)
        if weights:
            groups.setdefault(weights, {}).setdefault(precision_of(entry), model)
    return {weights: list(models.values()) for weights, models in groups.items() if len(models) > 1}


def report_figures(config: dict[str, Any], grid: Grid) -> list[str]:
    figures = list(ALWAYS)
    if any(len(ks) > 1 for ks in top_k_series(config, grid).values()):
        figures.append("score_by_top_k")
    types = {config["methods"][method]["type"] for _, method, _ in grid}
    if any(METHODS.get(method_type).traces_rounds for method_type in types):
        figures.extend(AGENT_FIGURES)
    if quantization_groups(config, grid):
        figures.append("quantization")
    return figures


def report_tables(config: dict[str, Any]) -> list[str]:
    """Names of the paper tables (``report.tables``), besides results and retrieval.

    A table naming a dataset the config does not define, or two tables with one name, is an
    error naming it: the table would otherwise show an empty column or overwrite the other.
    """
    tables = config.get("report", {}).get("tables", [])
    names = [table["name"] for table in tables]
    for number, table in enumerate(tables):
        if names.count(table["name"]) > 1:
            raise ValueError(f"report.tables[{number}].name: {table['name']!r} is used twice")
        for dataset in table.get("datasets", []):
            if dataset not in config["datasets"]:
                raise ValueError(
                    f"report.tables[{number}].datasets: {dataset!r} is not defined under "
                    f"'datasets:' (defined: {', '.join(sorted(config['datasets']))})"
                )
    return names
