"""Reading the files the report stage is handed: score, retrieval-recall and failure files.

Each reader checks the fields the report uses and names the file and the field when one is
missing, so a broken upstream file is a clear error here rather than a blank cell in a table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from docqa.core.jsonl import read_jsonl
from docqa.core.prediction import timings_path, usage_summary
from docqa.core.scores import GroupScore, Interval, ScoreRow, ScoreSummary

SCORE_KEYS = ("dataset", "method", "model", "summary", "per_question")
SUMMARY_KEYS = ("questions", "errors", "missing")
RECALL_KEYS = ("dataset", "retriever", "questions", "k", "recall", "random")


@dataclass(frozen=True)
class Scores:
    """One score file (:class:`docqa.core.scores.ScoreFile`): a (dataset, method, model) run
    scored by one metric, with the parts the report reads.

    Summary scores are percentages (0-100) or ``None`` where undefined; ``breakdown`` maps a
    tag (``kind``, ``evidence_source``, ...) to its values and their ``questions``/``overall``.
    """

    path: Path
    dataset: str
    method: str
    model: str
    metric: str
    summary: ScoreSummary
    breakdown: dict[str, dict[str, GroupScore]]
    per_question: list[ScoreRow]
    #: every aggregate of the metric (MADQA's ``x_doc``, ``kuiper``...) and their intervals
    aggregate: dict[str, Any] = field(default_factory=dict)
    aggregate_intervals: dict[str, Interval] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.method} / {self.model}"


@dataclass(frozen=True)
class RecallCurve:
    """Evidence-page recall@k (percent) of one retriever on one dataset, with the expected
    recall of a random page ranking at the same k."""

    path: Path
    dataset: str
    retriever: str
    questions: int
    k: list[int]
    recall: list[float]
    random: list[float]


def load_json_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{path}: not valid JSON ({error.msg}); rerun the stage that wrote it"
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def _require(path: Path, data: dict[str, Any], keys: tuple[str, ...], where: str = "") -> None:
    missing = [key for key in keys if key not in data]
    if missing:
        raise ValueError(f"{path}: {where}missing field(s) {', '.join(missing)}")


class Timings(TypedDict, total=False):
    """A run's measured times, which the report adds to its summary."""

    seconds: float
    peak_memory_mb: float


def run_timings(predictions: Path) -> Timings:
    """A run's wall-clock ``seconds`` (summed over questions) and ``peak_memory_mb`` (the
    highest of any question), from the timings file beside its ``predictions`` (they change
    from run to run, so neither the predictions nor the score file hold them); ``{}`` when the
    run has no timings file."""
    if not timings_path(predictions).is_file():
        return {}
    usage = usage_summary(predictions)
    return {"seconds": usage["seconds"], "peak_memory_mb": round(usage["peak_memory_mb"], 1)}


def load_scores(path: Path, runs_dir: Path | None = None) -> Scores:
    """One score file; with ``runs_dir`` (``results/runs``), its summary also gets the run's
    ``seconds`` and ``peak_memory_mb`` (:func:`run_timings`)."""
    data = load_json_object(path)
    _require(path, data, SCORE_KEYS)
    _require(path, data["summary"], SUMMARY_KEYS, where="summary: ")
    summary: ScoreSummary = data["summary"]
    if runs_dir is not None:
        run = Path(runs_dir, str(data["dataset"]), str(data["method"]), str(data["model"]))
        summary = {**summary, **run_timings(run / "predictions.jsonl")}
    return Scores(
        path=Path(path),
        dataset=str(data["dataset"]),
        method=str(data["method"]),
        model=str(data["model"]),
        metric=str(data.get("metric", "")),
        summary=summary,
        breakdown=data.get("breakdown", {}),
        per_question=data["per_question"],
        aggregate=data.get("aggregate", {}),
        aggregate_intervals=data.get("aggregate_intervals", {}),
    )


def load_recall(path: Path) -> RecallCurve:
    data = load_json_object(path)
    _require(path, data, RECALL_KEYS)
    lengths = {len(data[key]) for key in ("k", "recall", "random")}
    if len(lengths) != 1:
        raise ValueError(f"{path}: k, recall and random must have the same length")
    return RecallCurve(
        path=Path(path),
        dataset=str(data["dataset"]),
        retriever=str(data["retriever"]),
        questions=int(data["questions"]),
        k=[int(k) for k in data["k"]],
        recall=[float(r) for r in data["recall"]],
        random=[float(r) for r in data["random"]],
    )


def load_failed_documents(path: Path) -> tuple[str, list[str]]:
    """Return (dataset, sorted unique ids of the documents that failed).

    The dataset is the name of the folder holding the file (``pages/{dataset}/failures.jsonl``),
    because a failure record names its document, not its dataset.
    """
    path = Path(path)
    doc_ids = set()
    for row in read_jsonl(path):
        if not row.get("doc_id"):
            raise ValueError(f"{path}: failure record without a doc_id: {row}")
        doc_ids.add(str(row["doc_id"]))
    return path.parent.name, sorted(doc_ids)
