"""A method's answer to one question, with what it cost."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.core.question import PageRef
from docqa.core.records import Record
from docqa.core.trace import TraceStep


@dataclass
class Usage(Record):
    """Model usage summed over every call made for one question."""

    calls: int = 0
    cached_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    image_tokens: int = 0
    #: image parts a text-only model read as their OCR text instead
    images_as_text: int = 0
    seconds: float = 0.0
    peak_memory_mb: float = 0.0
    #: replies the method could not use as they were and replaced by a defined fallback
    fallbacks: int = 0
    #: requests that ran out of memory and were answered once more with a smaller pixel budget
    budget_retries: int = 0
    #: replies with no text at all (a reasoning model that spent ``max_new_tokens`` thinking
    #: returns one); counted by the methods that ask with small role budgets (DocPilot)
    empty_replies: int = 0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.cached_calls += other.cached_calls
        self.tokens_in += other.tokens_in
        self.tokens_out += other.tokens_out
        self.image_tokens += other.image_tokens
        self.images_as_text += other.images_as_text
        self.seconds += other.seconds
        self.peak_memory_mb = max(self.peak_memory_mb, other.peak_memory_mb)
        self.fallbacks += other.fallbacks
        self.budget_retries += other.budget_retries
        self.empty_replies += other.empty_replies


@dataclass(frozen=True)
class Prediction(Record):
    """``pages`` are the 0-based pages the method looked at; ``error`` is set when the question
    could not be answered (the answer is then empty and scores as wrong). For a question over
    several documents the pages are named by their document in ``page_refs`` ((document,
    0-based page) pairs) and ``pages`` is empty; :meth:`locations` reads both alike."""

    question_id: str
    answer: str
    pages: list[int] = field(default_factory=list)
    trace: list[TraceStep] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    error: str = ""
    #: why ``error`` is set: "input" (the question or the method), "document" (its document has
    #: no pages) or "infrastructure" (server, key, cache, memory; recorded only under the job's
    #: threshold); docqa.core.error_kinds
    error_kind: str = ""
    #: pages the method left out because the document has more than its page cap (the
    #: ``vanilla`` method's ``max_pages``) or its request would not fit the model's context;
    #: 0 when it saw every page it meant to
    pages_truncated: int = 0
    #: pages sent smaller than the model's pixel budget so that the request fits the model's
    #: context (``vanilla``; docqa.methods.context_fit)
    pages_downscaled: int = 0
    page_refs: list[PageRef] = field(default_factory=list)

    def __post_init__(self) -> None:
        refs = [(str(doc), int(page)) for doc, page in self.page_refs]  # JSON gives lists
        object.__setattr__(self, "page_refs", refs)

    def locations(self, doc_id: str) -> list[PageRef]:
        """The pages used as (document, page) pairs, in order; ``doc_id`` is the question's
        document, which a one-document prediction's ``pages`` belong to."""
        return list(self.page_refs) or [(doc_id, page) for page in self.pages]

    def to_dict(self) -> dict[str, Any]:
        """The row; without ``page_refs`` when there are none (a one-document question), so
        that such rows read as they did before."""
        row = super().to_dict()
        if not self.page_refs:
            del row["page_refs"]
        return row

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Prediction:
        data = dict(data)
        data["usage"] = Usage.from_dict(data.get("usage", {}))
        return super().from_dict(data)


# --- run-to-run varying measurements -----------------------------------------------------------
#
# Wall-clock seconds, peak memory and cache hits differ between runs, so they stay out of
# predictions.jsonl (a rerun reproduces it byte for byte) and go to <predictions>.timings.jsonl
# beside it: one row per question, {"question_id": ..., "measured": {"usage.seconds": 1.2,
# "trace.1.usage.seconds": 0.6, ...}}, each value under the path of the key it came from.

#: keys whose values change from run to run, wherever they sit in a prediction row; whether a
#: call was answered by the response cache depends on which job ran first
RUN_VARYING_KEYS = ("seconds", "peak_memory_mb", "cached_calls")


def split_run_varying(row: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The row without any ``RUN_VARYING_KEYS`` at any depth, and those values by their path."""
    measured: dict[str, Any] = {}

    def strip(value: Any, path: str) -> Any:
        if isinstance(value, dict):
            kept = {}
            for key, item in value.items():
                if key in RUN_VARYING_KEYS and not isinstance(item, (dict, list)):
                    measured[f"{path}{key}"] = item
                else:
                    kept[key] = strip(item, f"{path}{key}.")
            return kept
        if isinstance(value, list):
            return [strip(item, f"{path}{index}.") for index, item in enumerate(value)]
        return value

    return strip(row, ""), measured


def join_run_varying(row: dict[str, Any], measured: dict[str, Any]) -> dict[str, Any]:
    """``row`` with the values ``split_run_varying`` took out put back (a deep copy)."""
    joined = json.loads(json.dumps(row))
    for path, value in measured.items():
        *parents, key = path.split(".")
        target = joined
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[key] = value
    return joined


def timings_path(predictions: Path) -> Path:
    return predictions.with_name(predictions.stem + ".timings.jsonl")


def write_predictions(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write prediction rows to ``path`` without their run-varying values, and those values to
    ``timings_path(path)``."""
    stable, timings = [], []
    for row in rows:
        kept, measured = split_run_varying(row)
        stable.append(kept)
        timings.append({"question_id": row["question_id"], "measured": measured})
    write_jsonl(path, stable)
    write_jsonl(timings_path(path), timings)


def read_timings(predictions: Path) -> dict[str, dict[str, Any]]:
    """question id → its measured values (path → value) from the run's timings file."""
    path = timings_path(predictions)
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: the timings of {predictions} are written with it by the infer "
            "rule; rerun that run (snakemake --forcerun infer) to measure them"
        )
    return {row["question_id"]: row["measured"] for row in read_jsonl(path)}


def usage_summary(predictions: Path) -> dict[str, Any]:
    """The run's total of what its timings file measured: ``questions``, ``seconds`` of model
    time summed, the highest ``peak_memory_mb`` of any question, and ``cached_calls`` (the
    ``usage`` of provenance.json and of the report's cost columns)."""
    measured = list(read_timings(predictions).values())
    return {
        "questions": len(measured),
        "seconds": round(sum(m.get("usage.seconds", 0.0) for m in measured), 3),
        "peak_memory_mb": max((m.get("usage.peak_memory_mb", 0.0) for m in measured), default=0.0),
        "cached_calls": sum(m.get("usage.cached_calls", 0) for m in measured),
    }


def read_predictions_with_timings(predictions: Path) -> list[Prediction]:
    """The run's predictions with their seconds and peak memory put back, in file order."""
    timings = read_timings(predictions)
    return [
        Prediction.from_dict(join_run_varying(row, timings.get(row["question_id"], {})))
        for row in read_jsonl(predictions)
    ]
