"""The retrieval table from recall.json files: rows, the random baseline, CSV and Markdown."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from docqa.report.retrieval_table import retrieval_table, write_retrieval_table

K = list(range(1, 11))


def recall_file(
    folder: Path,
    dataset: str,
    retriever: str,
    recall: list[float],
    random: list[float] | None = None,
    questions: int = 40,
) -> Path:
    path = folder / dataset / retriever / "recall.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "dataset": dataset,
                "retriever": retriever,
                "questions": questions,
                "k": K,
                "recall": recall,
                "random": random or [10.0 * k for k in K],
            }
        )
    )
    return path


def test_rows_per_retriever_then_the_random_baseline(tmp_path: Path) -> None:
    files = [
        recall_file(tmp_path, "synth", "dense", [60.0 + k for k in K]),
        recall_file(tmp_path, "synth", "bm25", [70.0 + k for k in K]),
        recall_file(tmp_path, "alpha", "bm25", [50.0 + k for k in K], questions=7),
    ]
    table = retrieval_table(files)
    assert list(table.columns) == ["dataset", "retriever", "questions", "recall@1", "recall@4"]
    assert table.values.tolist() == [
        ["alpha", "bm25", 7, 51.0, 54.0],
        ["alpha", "random", 7, 10.0, 40.0],
        ["synth", "bm25", 40, 71.0, 74.0],
        ["synth", "dense", 40, 61.0, 64.0],
        ["synth", "random", 40, 10.0, 40.0],
    ]
    assert list(retrieval_table(files, depths=(2,)).columns)[-1] == "recall@2"


def test_written_as_csv_and_markdown_with_the_best_in_bold(tmp_path: Path) -> None:
    files = [
        recall_file(tmp_path, "synth", name, [base + k for k in K])
        for name, base in (("bm25", 70.0), ("dense", 60.0))
    ]
    csv, markdown = tmp_path / "tables" / "retrieval.csv", tmp_path / "tables" / "retrieval.md"
    write_retrieval_table(retrieval_table(files), csv, markdown)
    assert pd.read_csv(csv)["retriever"].tolist() == ["bm25", "dense", "random"]
    text = markdown.read_text()
    assert "| synth | bm25 | 40 | **71.0** | **74.0** |" in text
    assert "| synth | random | 40 | 10.0 | 40.0 |" in text


def test_files_that_disagree_on_the_baseline_are_an_error(tmp_path: Path) -> None:
    files = [
        recall_file(tmp_path, "synth", "bm25", [70.0] * 10),
        recall_file(tmp_path, "synth", "dense", [60.0] * 10, questions=39),
    ]
    with pytest.raises(ValueError, match="disagree on the random baseline"):
        retrieval_table(files)


def test_a_missing_depth_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="recall.json: no recall at k=20"):
        retrieval_table([recall_file(tmp_path, "synth", "bm25", [70.0] * 10)], depths=(20,))
