"""Paper tables: methods as rows, datasets or metrics or question groups as columns, each cell
docqa's score with its 95% interval and, where the paper gives one, the paper's number; written
as CSV, Markdown and LaTeX (booktabs).

A table is one entry of ``report.tables`` in the config (:class:`TableSpec`); its rows are the
(method, model) runs of the score files given, in the order given (the experiment grid's).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import pandas as pd

from docqa.core.scores import Interval
from docqa.metrics.bootstrap import RESAMPLES, SEED
from docqa.report.inputs import Scores
from docqa.report.reported import AVERAGE, Key, Reported
from docqa.report.tables import METRIC_LABELS as BENCHMARK_LABELS

METRIC_LABELS = {
    "overall": "Overall",
    "num": "Num",
    "f1": "F1",
    "em": "EM",
    "page_recall": "Page recall",
    "page_precision": "Page precision",
    "page_f1": "Page F1",
    "page_mrr": "Page MRR",
    # MADQA's official aggregates (docqa.metrics.madqa), as DocPilot's Table 4 names them
    "x_page": "X-Page",
    "x_doc": "X-Doc",
    "citation_page_f1": "Page F1",
    "kuiper": "Kuiper",
}
#: columns where lower is better (the best value is the lowest)
LOWER_IS_BETTER = ("kuiper",)
BREAKDOWN_COLUMNS = ("evidence_source", "kind")
AVERAGE_LABEL = "Avg"


@dataclass(frozen=True)
class TableSpec:
    """One ``report.tables`` entry of the config (see config.schema.yaml)."""

    name: str
    title: str
    columns: str
    datasets: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ("overall",)
    #: (methods, models) groups: a run is a row when one group lists both; empty: every run
    rows: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    #: the key of ``config/reported_numbers.yaml``'s ``sources:`` this table reproduces
    reproduces: str | None = None

    @classmethod
    def from_config(cls, entry: dict[str, Any]) -> TableSpec:
        return cls(
            name=entry["name"],
            title=entry["title"],
            columns=entry["columns"],
            datasets=tuple(entry.get("datasets", ())),
            metrics=tuple(entry.get("metrics", ("overall",))),
            rows=tuple(
                (tuple(group["methods"]), tuple(group["models"])) for group in entry.get("rows", ())
            ),
            reproduces=entry.get("reproduces"),
        )

    def shows(self, method: str, model: str) -> bool:
        """Whether the run (``method``, ``model``) is one of this table's rows."""
        return not self.rows or any(
            method in methods and model in models for methods, models in self.rows
        )


@dataclass(frozen=True)
class Column:
    """``field``: a summary score (``overall``, ``num``…), another of the metric's aggregates
    (MADQA's ``x_doc``, ``kuiper``), or ``<breakdown>/<group>``."""

    dataset: str
    field: str
    label: str


@dataclass(frozen=True)
class Cell:
    value: float | None
    interval: tuple[float, float] | None = None
    reported: Reported | None = None


@dataclass
class PaperTable:
    spec: TableSpec
    columns: list[Column]
    rows: list[tuple[str, str]]
    cells: dict[tuple[int, int], Cell]
    #: per run ("dataset / method / model"), a line on how and where it was made
    notes: list[str] = field(default_factory=list)


def _value(run: Scores, name: str) -> tuple[float | None, tuple[float, float] | None]:
    """A run's score and interval for a column field."""
    if "/" in name:
        breakdown, group = name.split("/", 1)
        entry = run.breakdown.get(breakdown, {}).get(group)
        if entry is None:
            return None, None
        return entry["overall"], _pair(entry["interval"])
    # a column names a summary field by a name the table's spec gives
    summary: Mapping[str, Any] = run.summary
    if name not in summary and name in run.aggregate:
        return run.aggregate[name], _pair(run.aggregate_intervals.get(name))
    return summary.get(name), _pair(run.summary.get("intervals", {}).get(name))


def _pair(interval: Interval) -> tuple[float, float] | None:
    return None if not interval else (interval[0], interval[1])


def _label(metric: str, benchmark_metric: str) -> str:
    """A summary column's name as the dataset's benchmark names it (MMLongBench-Doc's
    ``overall`` is its Acc, ``f1`` its generalized F1; ``tables.METRIC_LABELS``)."""
    generic = METRIC_LABELS[metric]
    return BENCHMARK_LABELS.get(benchmark_metric, {}).get(generic) or generic


def _columns(spec: TableSpec, runs: list[Scores]) -> list[Column]:
    datasets = list(spec.datasets) or list(dict.fromkeys(run.dataset for run in runs))
    if spec.columns == "dataset":
        return [
            *(Column(dataset, "overall", dataset) for dataset in datasets),
            Column(AVERAGE, "overall", AVERAGE_LABEL),
        ]
    if spec.columns == "metric":
        several = len(datasets) > 1
        scored_by = {run.dataset: run.metric for run in runs}
        return [
            Column(
                dataset,
                metric,
                f"{dataset} {_label(metric, scored_by.get(dataset, ''))}"
                if several
                else _label(metric, scored_by.get(dataset, "")),
            )
            for dataset in datasets
            for metric in spec.metrics
        ]
    if spec.columns in BREAKDOWN_COLUMNS:
        if len(datasets) != 1:
            raise ValueError(
                f"report table {spec.name!r}: columns {spec.columns} show one dataset's groups; "
                f"give exactly one under datasets (got {datasets})"
            )
        dataset = datasets[0]
        groups = sorted(
            {
                group
                for run in runs
                if run.dataset == dataset
                for group in run.breakdown.get(spec.columns, {})
            }
        )
        return [
            *(Column(dataset, f"{spec.columns}/{group}", group) for group in groups),
            Column(dataset, "overall", AVERAGE_LABEL),
        ]
    raise ValueError(f"report table {spec.name!r}: unknown columns {spec.columns!r}")


def paper_table(
    spec: TableSpec,
    runs: list[Scores],
    reported: dict[Key, Reported],
    notes: dict[tuple[str, str, str], str] | None = None,
) -> PaperTable:
    """The table ``spec`` asks for from the score files ``runs`` (other datasets ignored).

    The average column (``columns: dataset``) is the mean of a row's dataset scores, defined
    only when the row has all of them, as the papers average; it has no interval.
    """
    columns = _columns(spec, runs)
    datasets = {column.dataset for column in columns}
    runs = [run for run in runs if run.dataset in datasets and spec.shows(run.method, run.model)]
    rows = list(dict.fromkeys((run.method, run.model) for run in runs))
    by_key = {(run.dataset, run.method, run.model): run for run in runs}
    cells: dict[tuple[int, int], Cell] = {}
    for r, (method, model) in enumerate(rows):
        for c, column in enumerate(columns):
            if column.dataset == AVERAGE:
                values = [cells[r, i].value for i in range(c)]
                known = [v for v in values if v is not None]
                value = sum(known) / len(known) if values and len(known) == len(values) else None
                interval = None
            else:
                run = by_key.get((column.dataset, method, model))
                value, interval = _value(run, column.field) if run else (None, None)
            cells[r, c] = Cell(
                value, interval, reported.get((column.dataset, method, model, column.field))
            )
    table_notes = [notes[key] for key in sorted(by_key) if notes and key in notes]
    return PaperTable(spec, columns, rows, cells, table_notes)


def best_cells(table: PaperTable) -> set[tuple[int, int]]:
    """(row, column) of the best value per column as displayed (one decimal): the highest, the
    lowest in a :data:`LOWER_IS_BETTER` column; ties all marked; a column with fewer than two
    different values marks nothing."""
    best: set[tuple[int, int]] = set()
    for c in range(len(table.columns)):
        values = {r: table.cells[r, c].value for r in range(len(table.rows))}
        shown = {r: round(value, 1) for r, value in values.items() if value is not None}
        if len(set(shown.values())) < 2:
            continue
        lowest = table.columns[c].field in LOWER_IS_BETTER
        top = min(shown.values()) if lowest else max(shown.values())
        best.update((r, c) for r, value in shown.items() if value == top)
    return best


def to_frame(table: PaperTable) -> pd.DataFrame:
    """The CSV layout: method, model, then per column its value, interval bounds and the
    paper's number (full precision; empty where undefined)."""
    records = []
    for r, (method, model) in enumerate(table.rows):
        record: dict[str, Any] = {"method": method, "model": model}
        for c, column in enumerate(table.columns):
            cell = table.cells[r, c]
            record[column.label] = _nan(cell.value)
            record[f"{column.label} CI low"] = _nan(cell.interval[0] if cell.interval else None)
            record[f"{column.label} CI high"] = _nan(cell.interval[1] if cell.interval else None)
            record[f"{column.label} paper"] = _nan(cell.reported.value if cell.reported else None)
        records.append(record)
    return pd.DataFrame.from_records(records)


def _nan(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _sources(table: PaperTable) -> list[str]:
    return sorted({cell.reported.source for cell in table.cells.values() if cell.reported})


def _caption(table: PaperTable) -> str:
    return (
        f"{table.spec.title}. Scores in percent with 95% percentile bootstrap intervals over "
        f"questions ({RESAMPLES} resamples, seed {SEED}); best per column in bold; the paper's "
        "reported number in parentheses where it gives one."
    )


def to_markdown(table: PaperTable) -> str:
    best = best_cells(table)
    lines = [
        f"## {table.spec.name}",
        "",
        "| method | model | " + " | ".join(c.label for c in table.columns) + " |",
        "|---|---|" + "---:|" * len(table.columns),
    ]
    for r, (method, model) in enumerate(table.rows):
        cells = []
        for c in range(len(table.columns)):
            cell = table.cells[r, c]
            value = "–" if cell.value is None else f"{cell.value:.1f}"
            text = f"**{value}**" if (r, c) in best else value
            if cell.interval:
                text += f" [{cell.interval[0]:.1f}, {cell.interval[1]:.1f}]"
            if cell.reported:
                text += f" ({cell.reported.value:.1f})"
            cells.append(text)
        lines.append(f"| {method} | {model} | " + " | ".join(cells) + " |")
    lines += ["", _caption(table)]
    sources = _sources(table)
    if sources:
        lines += ["", "Paper numbers from:", "", *(f"- {source}" for source in sources)]
    if table.notes:
        lines += ["", "Runs:", "", *(f"- {note}" for note in table.notes)]
    return "\n".join(lines) + "\n"


LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "–": "--",
}


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(char, char) for char in text)


def to_latex(table: PaperTable) -> str:
    """A booktabs table (needs ``\\usepackage{booktabs}``): value in bold where best, the
    interval in small type below it, the paper's number in parentheses."""
    best = best_cells(table)
    header = " & ".join(["Method", "Model", *(latex_escape(c.label) for c in table.columns)])
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        rf"\caption{{{latex_escape(_caption(table))}}}",
        rf"\label{{tab:{table.spec.name}}}",
        r"\begin{tabular}{ll" + "r" * len(table.columns) + "}",
        r"\toprule",
        header + r" \\",
        r"\midrule",
    ]
    for r, (method, model) in enumerate(table.rows):
        cells = [latex_escape(method), latex_escape(model)]
        for c in range(len(table.columns)):
            cell = table.cells[r, c]
            if cell.value is None:
                cells.append("--")
                continue
            text = f"{cell.value:.1f}"
            text = rf"\textbf{{{text}}}" if (r, c) in best else text
            if cell.reported:
                text += f" ({cell.reported.value:.1f})"
            if cell.interval:
                text += rf" {{\tiny [{cell.interval[0]:.1f}, {cell.interval[1]:.1f}]}}"
            cells.append(text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    notes = [f"Paper numbers: {source}." for source in _sources(table)] + table.notes
    if notes:
        lines.append(r"\par\footnotesize " + r" \\ ".join(latex_escape(n) for n in notes))
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


HTML_STYLE = (
    "body{font-family:sans-serif;font-size:14px}table{border-collapse:collapse}"
    "th,td{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:right}"
    "th:nth-child(-n+2),td:nth-child(-n+2){text-align:left}small{color:#555}"
)


def to_html(table: PaperTable) -> str:
    """A self-contained page of the table, for the HTML report."""
    best = best_cells(table)
    header = "".join(f"<th>{escape(c.label)}</th>" for c in table.columns)
    rows = []
    for r, (method, model) in enumerate(table.rows):
        cells = []
        for c in range(len(table.columns)):
            cell = table.cells[r, c]
            text = "–" if cell.value is None else f"{cell.value:.1f}"
            text = f"<b>{text}</b>" if (r, c) in best else text
            if cell.interval:
                text += f" <small>[{cell.interval[0]:.1f}, {cell.interval[1]:.1f}]</small>"
            if cell.reported:
                text += f" ({cell.reported.value:.1f})"
            cells.append(f"<td>{text}</td>")
        rows.append(f"<tr><td>{escape(method)}</td><td>{escape(model)}</td>{''.join(cells)}</tr>")
    notes = [f"Paper numbers: {source}" for source in _sources(table)] + table.notes
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(table.spec.name)}</title><style>{HTML_STYLE}</style></head><body>"
        f"<table><caption>{escape(_caption(table))}</caption>"
        f"<tr><th>method</th><th>model</th>{header}</tr>{''.join(rows)}</table>"
        + "".join(f"<p><small>{escape(note)}</small></p>" for note in notes)
        + "</body></html>\n"
    )


def write_paper_table(
    table: PaperTable, csv: Path, markdown: Path, latex: Path, html: Path
) -> None:
    for path in (csv, markdown, latex, html):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    to_frame(table).to_csv(csv, index=False, lineterminator="\n")
    Path(markdown).write_text(to_markdown(table), encoding="utf-8")
    Path(latex).write_text(to_latex(table), encoding="utf-8")
    Path(html).write_text(to_html(table), encoding="utf-8")
