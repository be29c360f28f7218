"""The retrieval table: evidence-page recall@k per (dataset, retriever), with a random ranking's
expected recall as the baseline row of each dataset; written as CSV and Markdown."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

import pandas as pd

from docqa.report.inputs import RecallCurve, load_recall

DEPTHS = (1, 4)
RANDOM = "random"


def _at(curve: RecallCurve, values: list[float], k: int) -> float:
    if k not in curve.k:
        raise ValueError(
            f"{curve.path}: no recall at k={k} (has k={curve.k}); rerun the index stage"
        )
    return values[curve.k.index(k)]


def retrieval_table(recall_files: list[Path], depths: tuple[int, ...] = DEPTHS) -> pd.DataFrame:
    """One row per (dataset, retriever), sorted, then a ``random`` row per dataset.

    Columns: dataset, retriever, questions, ``recall@k`` for each of ``depths`` (percent). The
    random row is the expected recall of a uniformly random page ranking over the same
    questions; the recall files of one dataset must agree on it (they cover the same questions
    and documents), or the table would compare retrievers on different questions.
    """
    curves = sorted(
        (load_recall(Path(path)) for path in recall_files),
        key=lambda curve: (curve.dataset, curve.retriever),
    )
    rows: list[dict[str, object]] = []
    for _, members in groupby(curves, key=lambda curve: curve.dataset):
        group = list(members)
        for curve in group:
            rows.append(_row(curve, curve.retriever, curve.recall, depths))
        random = [_row(curve, RANDOM, curve.random, depths) for curve in group]
        for curve, row in zip(group[1:], random[1:], strict=True):
            if row != random[0]:
                raise ValueError(
                    f"{curve.path} and {group[0].path} disagree on the random baseline "
                    "(questions or documents differ); rebuild both indexes from the same OCR output"
                )
        rows.append(random[0])
    columns = ["dataset", "retriever", "questions", *(f"recall@{k}" for k in depths)]
    return pd.DataFrame(rows, columns=columns)


def _row(
    curve: RecallCurve, retriever: str, values: list[float], depths: tuple[int, ...]
) -> dict[str, object]:
    recall = {f"recall@{k}": _at(curve, values, k) for k in depths}
    return {
        "dataset": curve.dataset,
        "retriever": retriever,
        "questions": curve.questions,
        **recall,
    }


def to_markdown(table: pd.DataFrame) -> str:
    """A Markdown table, the best retriever per dataset and column in bold."""
    recall_columns = [column for column in table.columns if column.startswith("recall@")]
    best: set[tuple[int, str]] = set()
    for _, group in table[table["retriever"] != RANDOM].groupby("dataset"):
        for column in recall_columns:
            shown = group[column].round(1)
            if shown.nunique() > 1:
                best.update((index, column) for index in shown.index[shown == shown.max()])
    lines = [
        "## Retrieval",
        "",
        "| " + " | ".join(table.columns) + " |",
        "|---|---|---:|" + "---:|" * len(recall_columns),
    ]
    for index, row in table.iterrows():
        cells = [str(row["dataset"]), str(row["retriever"]), str(int(row["questions"]))]
        for column in recall_columns:
            text = f"{row[column]:.1f}"
            cells.append(f"**{text}**" if (index, column) in best else text)
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Evidence-page recall@k in percent over answerable questions (the share of a question's "
        "evidence pages among the top k pages of its document). random: the expected recall of "
        "a uniformly random page ranking. Bold: best retriever per dataset.",
    ]
    return "\n".join(lines) + "\n"


def write_retrieval_table(table: pd.DataFrame, csv: Path, markdown: Path) -> None:
    """Write ``table`` as CSV (full precision) and as Markdown (see :func:`to_markdown`)."""
    for path in (csv, markdown):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(csv, index=False, lineterminator="\n")
    Path(markdown).write_text(to_markdown(table), encoding="utf-8")
