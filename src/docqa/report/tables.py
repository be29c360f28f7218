"""The results table: one row per (dataset, method, model), written as CSV and Markdown."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from docqa.report.inputs import Scores, load_failed_documents, load_scores

CI_COLUMN = "Overall 95% CI"
COLUMNS = (
    "dataset", "method", "model", "questions", "errors", "missing", "Num", "F1", "Overall",
    CI_COLUMN, "page recall", "page precision", "calls/question", "seconds/question",
)
# Summary field behind each score column (all percentages).
SCORE_FIELDS = {
    "Num": "num", "F1": "f1", "Overall": "overall",
    "page recall": "page_recall", "page precision": "page_precision",
}
HIGHER_IS_BETTER = ("Num", "F1", "Overall", "page recall", "page precision")
LOWER_IS_BETTER = ("errors", "missing", "calls/question", "seconds/question")
DECIMALS = {
    "questions": 0, "errors": 0, "missing": 0, **{column: 1 for column in SCORE_FIELDS},
    "calls/question": 2, "seconds/question": 2,
}
# Where failures are listed: DataFrame.attrs key, {dataset: [failed doc ids]}.
FAILED_DOCUMENTS = "failed_documents"

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0


def bootstrap_ci(
    scores: Sequence[float],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of ``scores``; ``None`` for no scores.

    The seed is fixed per call, so a row's interval does not depend on the other rows.
    """
    values = np.asarray(scores, dtype=float)
    if values.size == 0:
        return None
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, values.size, size=(resamples, values.size))].mean(axis=1)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return float(low), float(high)


def question_scores(scores: Scores) -> list[float]:
    """Per-question scores in percent; per-question ``score`` is a fraction in [0, 1].

    Questions whose score is undefined (``None``) are left out of the interval; a value outside
    [0, 1] means the score stage changed units, which would silently shift every interval.
    """
    values = [row.get("score") for row in scores.per_question]
    defined = [float(value) for value in values if value is not None]
    out_of_range = [value for value in defined if not 0.0 <= value <= 1.0]
    if out_of_range:
        raise ValueError(
            f"{scores.path}: per_question score {out_of_range[0]} is outside [0, 1]; "
            "the report expects fractions there and percentages in the summary"
        )
    return [100.0 * value for value in defined]


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def _per_question(total: Any, questions: int) -> float:
    return math.nan if total is None or questions == 0 else float(total) / questions


def _row(scores: Scores) -> dict[str, Any]:
    summary = scores.summary
    questions = int(summary["questions"])
    ci = bootstrap_ci(question_scores(scores))
    return {
        "dataset": scores.dataset,
        "method": scores.method,
        "model": scores.model,
        "questions": questions,
        "errors": int(summary["errors"]),
        "missing": int(summary["missing"]),
        **{column: _number(summary.get(field)) for column, field in SCORE_FIELDS.items()},
        CI_COLUMN: "" if ci is None else f"[{ci[0]:.1f}, {ci[1]:.1f}]",
        "calls/question": _per_question(summary.get("calls"), questions),
        "seconds/question": _per_question(summary.get("seconds"), questions),
    }


def results_table(score_files: list[Path], failure_files: list[Path]) -> pd.DataFrame:
    """One row per (dataset, method, model), sorted by those three.

    The failed documents of each failures file go to ``df.attrs["failed_documents"]``
    ({dataset: sorted doc ids}), where :func:`write_tables` finds them.
    """
    all_scores = [load_scores(Path(path)) for path in score_files]
    seen: dict[tuple[str, str, str], Path] = {}
    for scores in all_scores:
        key = (scores.dataset, scores.method, scores.model)
        if key in seen:
            raise ValueError(f"{scores.path} and {seen[key]} both score {'/'.join(key)}")
        seen[key] = scores.path
    df = pd.DataFrame([_row(scores) for scores in all_scores], columns=list(COLUMNS))
    df = df.sort_values(["dataset", "method", "model"], ignore_index=True)
    df.attrs[FAILED_DOCUMENTS] = dict(load_failed_documents(Path(path)) for path in failure_files)
    return df


def _format(column: str, value: Any) -> str:
    if column not in DECIMALS:
        return str(value)
    if pd.isna(value):
        return "–"
    return f"{value:.{DECIMALS[column]}f}"


def _best_cells(df: pd.DataFrame) -> set[tuple[int, str]]:
    """(row, column) of the best displayed value per column within each dataset.

    Values are compared as displayed, so ties after rounding are all marked; a column whose
    defined values within the dataset are all equal (or a single one) marks nothing.
    """
    best: set[tuple[int, str]] = set()
    for _, group in df.groupby("dataset", sort=False):
        for column in HIGHER_IS_BETTER + LOWER_IS_BETTER:
            shown = group[column].astype(float).round(DECIMALS[column]).dropna()
            if shown.nunique() < 2:
                continue
            target = shown.max() if column in HIGHER_IS_BETTER else shown.min()
            best.update((index, column) for index in shown.index[shown == target])
    return best


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown_table(df: pd.DataFrame) -> list[str]:
    best = _best_cells(df)
    right = {column for column in COLUMNS if column in DECIMALS}
    lines = [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---:" if column in right else "---" for column in COLUMNS) + "|",
    ]
    for index, row in df.iterrows():
        cells = []
        for column in COLUMNS:
            text = _cell(_format(column, row[column]))
            cells.append(f"**{text}**" if (index, column) in best else text)
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _failure_line(dataset: str, failed: list[str] | None) -> str:
    if failed is None:
        return f"- {dataset}: failures not recorded (no failures file given)"
    if not failed:
        return f"- {dataset}: 0 documents failed"
    noun = "document" if len(failed) == 1 else "documents"
    return f"- {dataset}: {len(failed)} {noun} failed and were skipped: {', '.join(failed)}"


def to_markdown(df: pd.DataFrame) -> str:
    """The Markdown report: header, table with best values in bold, failed documents."""
    failed: dict[str, list[str]] = df.attrs.get(FAILED_DOCUMENTS, {})
    datasets = sorted(set(df["dataset"]) | set(failed))
    lines = [
        "## Results",
        "",
        *_markdown_table(df),
        "",
        "Scores in percent. Bold: best per dataset (highest score; fewest errors, missing "
        "answers, calls and seconds). Overall 95% CI: percentile bootstrap over questions "
        f"({BOOTSTRAP_RESAMPLES} resamples, seed {BOOTSTRAP_SEED}).",
        "",
        "Documents that failed page preparation:",
        "",
        *(_failure_line(dataset, failed.get(dataset)) for dataset in datasets),
    ]
    return "\n".join(lines) + "\n"


def write_tables(df: pd.DataFrame, csv: Path, markdown: Path) -> None:
    """Write ``df`` as CSV (full precision) and as Markdown (see :func:`to_markdown`)."""
    for path in (csv, markdown):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(csv, index=False, lineterminator="\n")
    Path(markdown).write_text(to_markdown(df), encoding="utf-8")
