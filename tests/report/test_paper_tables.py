"""Paper tables: layout, intervals, best values, the papers' numbers, CSV/Markdown/LaTeX."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from helpers.scored_runs import scored_run

from docqa.report.inputs import load_scores
from docqa.report.paper_tables import (
    TableSpec,
    best_cells,
    latex_escape,
    paper_table,
    to_latex,
    to_markdown,
    write_paper_table,
)
from docqa.report.reported import load_reported

ROOT = Path(__file__).resolve().parents[2]
GOOD = ["17", "42", "blue whale", "3", "2019", "red"]
HALF = ["17", "0", "blue", "3", "0", "green"]


@pytest.fixture
def runs(tmp_path: Path) -> list:
    paths = [
        scored_run(tmp_path, "alpha", "vanilla", "m1", HALF),
        scored_run(tmp_path, "alpha", "mdocagent_top1", "m1", GOOD),
        scored_run(tmp_path, "beta", "vanilla", "m1", GOOD),
        scored_run(tmp_path, "beta", "mdocagent_top1", "m1", HALF),
        scored_run(tmp_path, "gamma", "vanilla", "m1", GOOD),  # not in the table below
    ]
    return [load_scores(path) for path in paths]


def reported_file(tmp_path: Path, *entries: str) -> Path:
    path = tmp_path / "reported.yaml"
    path.write_text(
        "sources: {t1: 'Paper, Table 1'}\nnumbers:\n"
        + "".join(f"  - {{paper: P, source: t1, backbone: B, {entry}}}\n" for entry in entries)
    )
    return path


def test_dataset_columns_with_average_best_and_paper_numbers(tmp_path: Path, runs: list) -> None:
    reported = load_reported(
        reported_file(
            tmp_path,
            "dataset: alpha, method: mdocagent_top1, model: m1, metric: overall, value: 51.7",
            "dataset: average, method: mdocagent_top1, model: m1, metric: overall, value: 40.7",
        )
    )
    spec = TableSpec("main", "Main", "dataset", datasets=("alpha", "beta"))
    table = paper_table(spec, runs, reported)
    assert [c.label for c in table.columns] == ["alpha", "beta", "Avg"]
    assert table.rows == [("vanilla", "m1"), ("mdocagent_top1", "m1")]
    half, good = table.cells[0, 0].value, table.cells[1, 0].value
    assert good == 100.0
    assert 0 < half < 100
    assert table.cells[0, 2].value == pytest.approx((half + 100.0) / 2)
    low, high = table.cells[0, 0].interval
    assert low <= half <= high
    assert table.cells[1, 0].reported.value == 51.7
    assert table.cells[1, 2].reported.value == 40.7
    assert table.cells[0, 0].reported is None
    # each row wins one dataset; the averages tie and mark nothing
    assert best_cells(table) == {(1, 0), (0, 1)}
    markdown = to_markdown(table)
    assert "| mdocagent_top1 | m1 | **100.0** [100.0, 100.0] (51.7) |" in markdown
    assert "- Paper, Table 1" in markdown


def test_rows_keep_the_runs_a_group_lists(runs: list) -> None:
    spec = TableSpec.from_config(
        {
            "name": "ablations",
            "title": "Ablations",
            "columns": "dataset",
            "datasets": ["alpha", "beta"],
            "rows": [{"methods": ["mdocagent_top1"], "models": ["m1", "m2"]}],
        }
    )
    table = paper_table(spec, runs, {})
    assert table.rows == [("mdocagent_top1", "m1")]
    assert table.cells[0, 0].value == 100.0


def test_breakdown_columns_show_one_dataset_by_group(runs: list) -> None:
    spec = TableSpec("sources", "By source", "evidence_source", datasets=("alpha",))
    table = paper_table(spec, runs, {})
    assert [c.label for c in table.columns] == ["Figure", "Layout", "Table", "Text", "Avg"]
    # the half-right run: Figure and Layout right, both Table questions wrong
    assert [table.cells[0, c].value for c in range(3)] == [100.0, 100.0, 0.0]
    with pytest.raises(ValueError, match="exactly one"):
        paper_table(TableSpec("x", "x", "kind", datasets=("alpha", "beta")), runs, {})


def test_metric_columns_and_the_three_files(tmp_path: Path, runs: list) -> None:
    spec = TableSpec(
        "slide_table", "Num & F1_%", "metric", ("alpha", "beta"), ("num", "f1", "overall")
    )
    table = paper_table(spec, runs, {}, {("alpha", "vanilla", "m1"): "alpha run: commit abc"})
    assert [c.label for c in table.columns][:3] == ["alpha Num", "alpha F1", "alpha Overall"]
    paths = [tmp_path / f"t.{ext}" for ext in ("csv", "md", "tex", "html")]
    write_paper_table(table, *paths)
    frame = pd.read_csv(paths[0])
    assert list(frame.columns[:6]) == [
        "method",
        "model",
        "alpha Num",
        "alpha Num CI low",
        "alpha Num CI high",
        "alpha Num paper",
    ]
    assert frame["alpha Overall"].tolist() == [table.cells[0, 2].value, 100.0]
    latex = paths[2].read_text()
    for part in (
        r"\toprule",
        r"\midrule",
        r"\bottomrule",
        r"\textbf{100.0}",
        r"Num \& F1\_\%",
        r"mdocagent\_top1",
        "alpha run: commit abc",
    ):
        assert part in latex, part
    assert latex == to_latex(table)
    assert "<table>" in paths[3].read_text()


def test_latex_escape() -> None:
    assert latex_escape("a_b & 50% {x} #1 $") == r"a\_b \& 50\% \{x\} \#1 \$"


def test_reported_numbers_file_loads_and_names_its_sources() -> None:
    numbers = load_reported(ROOT / "config" / "reported_numbers.yaml")
    number = numbers[("longdocurl_mdocagent", "mdocagent_top4", "qwen2-vl-7b", "overall")]
    assert number.value == 57.8
    assert "MDocAgent" in number.source
    assert numbers[("slidevqa", "slideagent", "gpt-4o", "overall")].value == 84.9
    assert all(0 <= n.value <= 100 for n in numbers.values())


def test_reported_numbers_errors_name_the_entry(tmp_path: Path) -> None:
    entry = "dataset: a, method: m, model: x, metric: overall, value: "
    with pytest.raises(ValueError, match=r"numbers\[1\].*reported as 2.0 here and as 1.0"):
        load_reported(reported_file(tmp_path, entry + "1", entry + "2"))
    path = tmp_path / "bad.yaml"
    path.write_text(
        "sources: {}\nnumbers:\n  - {paper: P, source: t9, dataset: a, method: m, "
        "model: x, backbone: B, metric: overall, value: 1}\n"
    )
    with pytest.raises(ValueError, match=r"numbers\[0\]: source 't9'"):
        load_reported(path)
    path.write_text("numbers:\n  - {paper: P}\n")
    with pytest.raises(ValueError, match=r"numbers\[0\]: missing field\(s\) source"):
        load_reported(path)


def test_a_metrics_own_aggregates_are_columns_and_kuiper_is_best_low(runs: list) -> None:
    """MADQA's Table 4 columns: X-Doc from the aggregate with its interval, Kuiper (lower is
    better) as it is."""
    alpha = [run for run in runs if run.dataset == "alpha"]
    madqa = [
        replace(run, metric="madqa", aggregate={"x_doc": x_doc, "kuiper": kuiper},
                aggregate_intervals={"x_doc": [x_doc - 5, x_doc + 5]})
        for run, x_doc, kuiper in zip(alpha, (40.0, 60.0), (2.5, 1.0), strict=True)
    ]  # fmt: skip
    spec = TableSpec("t4", "Table 4", "metric", ("alpha",), ("overall", "x_doc", "kuiper"))
    table = paper_table(spec, madqa, {}, {})
    assert [c.label for c in table.columns] == ["Accuracy", "X-Doc", "Kuiper"]
    assert table.cells[0, 1].value == 40.0
    assert table.cells[0, 1].interval == (35.0, 45.0)
    assert table.cells[1, 2].value == 1.0
    best = best_cells(table)
    assert (1, 1) in best  # the higher X-Doc
    assert (1, 2) in best  # the lower Kuiper
    assert (0, 2) not in best
