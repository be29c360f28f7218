"""MADQA's official evaluation (``eval/metrics.py`` and ``eval/evaluate.py`` of OxRML/MADQA).

Per question:

- ``anls``: ANLS*, case-insensitive, the best of the gold's answer variants (each a list of
  strings), lists matched item to item by the ``anls_star`` package, the reference
  implementation the original calls (:func:`docqa.metrics.madqa_judge.anls_star`). The gold
  variants are the MADQA row's ``answer_variants`` (``Question.original``), else the question's
  answer as one variant. The prediction is the method's answer (:func:`answer_items`): a reply
  that is a JSON list of strings is that list (MADQA's answers are lists, one item per part, and
  its baselines are told to answer so), any other reply one string; docqa's methods answer in
  a string, so a multi-part answer written as prose is one item against several, which the
  original would score the same way for a string.
- ``correct``: 1 when ANLS* >= 0.5 (option ``accuracy: anls``, the default) or, with
  ``accuracy: semantic``, when the ``semantic`` score >= 0.5: 1, 0.5 or 0 from the judge model
  of option ``model`` (:mod:`docqa.metrics.madqa_judge`; the original's judge is
  gemini-2.5-flash at temperature 0).
- ``citation_doc_f1`` and ``citation_page_f1``: MADQA's Document F1 and Page F1, the F1 of
  the pages the method used (``Prediction.locations``, docqa's citations) against the gold
  evidence (``Question.evidence``), both as sets of documents or of (document, page) pairs, so
  a page cited twice counts once; no gold evidence scores 0 (the original's support 0).
- ``hop_type``: ``single`` (one evidence page or none), ``cross_page`` (several pages of one
  document) or ``cross_doc`` (pages of several documents), as ``derive_hop_type``.
- ``effort``: the method's model calls (``Prediction.usage.calls``). The original reads the
  length of a result's ``search_history`` or its ``iterations``, and the Kuiper functions fall
  back from ``steps`` to ``llm_calls`` to ``effort``; docqa records model calls for every
  method, the original's ``llm_calls``. Questions with effort 0 (no prediction) are left out of
  the two effort measures, as in the original.

Aggregates (``aggregate_metrics``), over the rows in the order given:

- ``accuracy`` (mean ``correct``), ``mean_anls``, ``citation_doc_f1``, ``citation_page_f1``
  (means; named apart from the score stage's evidence-page ``page_f1``, which leaves out
  questions without evidence pages where MADQA counts them 0);
- with ``accuracy: semantic``, ``semantic_raw`` (mean semantic score), ``semantic_accuracy``
  (its Rogan-Gladen correction with the judge's calibration from MADQA's 200-question human
  evaluation: specificity 1.0, sensitivity 0.98) and ``semantic_ci_low``/``semantic_ci_high``
  (its 95% interval, the original's ``confidence_interval``; z is the exact normal quantile,
  which the original takes from scipy when scipy is installed and rounds to 1.96 otherwise),
  and ``judge_unparseable``/``judge_failed``, the judge replies that scored 0 without a verdict;
- ``kuiper``: the Kuiper statistic of correctness ordered by effort (ties in row order): the
  range of the cumulative sums of (correct - mean correct), not divided by the number of
  questions; ``None`` when it is degenerate (no effort, or all correct or all wrong);
- ``wasted_effort_ratio``: mean effort of the wrong questions over that of the correct ones
  (``None`` where the original gives infinity: no correct question with effort), with
  ``effort_correct`` and ``effort_incorrect``;
- ``overall``: the headline, ``accuracy``, or ``semantic_accuracy`` with ``accuracy: semantic``;
- ``x_page`` and ``x_doc``: the headline over the ``cross_page`` and over the ``cross_doc``
  questions (``None`` when there are none), with their numbers of questions; the breakdown
  ``hop_type`` gives the headline of every hop type, and ``document_category`` and ``domain``
  (tags; empty is ``Unknown`` and ``Other``) those of the original's ``--by-category`` and
  ``--by-domain``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from math import sqrt
from statistics import NormalDist
from typing import Any, Literal, get_args

from pydantic import ConfigDict, ValidationInfo, field_validator

from docqa.backends.client import ModelClient
from docqa.core.prediction import Prediction
from docqa.core.question import PageRef, Question
from docqa.metrics import METRICS
from docqa.metrics.base import Metric, Row, Scores, judge_client
from docqa.metrics.madqa_judge import FAILED, UNPARSEABLE, anls_star, judge_semantic, prompt_sha256
from docqa.runtime.spec import Field, Options, refers_to

Accuracy = Literal["anls", "semantic"]
ACCURACY_CHOICES: tuple[str, ...] = get_args(Accuracy)
HOP_TYPES = ("single", "cross_page", "cross_doc")
#: the judge's calibration (MADQA's human evaluation of 200 judged answers)
SPECIFICITY = 1.0  # q0: P(judge says incorrect | human says incorrect)
SENSITIVITY = 0.98  # q1: P(judge says correct | human says correct)
CALIBRATION_INCORRECT = 48  # m0: calibration answers a human found incorrect
CALIBRATION_CORRECT = 152  # m1: calibration answers a human found correct
Z_95 = NormalDist().inv_cdf(0.975)


def gold_variants(question: Question) -> list[Any]:
    """The accepted answers: the MADQA row's ``answer_variants``, else the answer as one."""
    variants = question.original.get("answer_variants")
    if variants:
        return list(variants)
    return [question.answer if isinstance(question.answer, list) else [question.answer]]


def hop_type(evidence: Iterable[PageRef]) -> str:
    """``single``, ``cross_page`` or ``cross_doc`` from (document, page) evidence pairs."""
    pairs = set(evidence)
    if len({doc for doc, _ in pairs}) > 1:
        return "cross_doc"
    return "cross_page" if len(pairs) > 1 else "single"


def citation_f1(
    predicted: Iterable[PageRef], gold: Iterable[PageRef], level: str = "page"
) -> dict[str, float | int]:
    """Precision, recall, F1 and support (gold items) of the cited documents (``level``
    ``document``) or (document, page) pairs (``page``); all 0 without gold evidence."""
    if level not in ("document", "page"):
        raise ValueError(f"citation_f1: level {level!r} is not 'document' or 'page'")

    def items(pairs: Iterable[PageRef]) -> set[Any]:
        if level == "document":
            return {doc for doc, _ in pairs if doc}
        return {(doc, page) for doc, page in pairs if doc is not None and page is not None}

    golds, cited = items(gold), items(predicted)
    if not golds:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}
    hits = len(golds & cited)
    precision = hits / len(cited) if cited else 0.0
    recall = hits / len(golds)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "support": len(golds)}


def kuiper(efforts: Sequence[float], correct: Sequence[bool | float]) -> float | None:
    """The Kuiper statistic of correctness ordered by effort; ``None`` when degenerate."""
    ordered = sorted(
        (
            (effort, 1 if hit else 0)
            for effort, hit in zip(efforts, correct, strict=True)
            if effort > 0
        ),
        key=lambda pair: pair[0],
    )
    if not ordered:
        return None
    mean = sum(hit for _, hit in ordered) / len(ordered)
    if mean in (0.0, 1.0):
        return None
    running, low, high = 0.0, float("inf"), float("-inf")
    for _, hit in ordered:
        running += hit - mean
        low, high = min(low, running), max(high, running)
    return high - low


def wasted_effort(efforts: Sequence[float], correct: Sequence[bool | float]) -> dict[str, Any]:
    """``ratio`` (mean effort wrong / mean effort correct; ``None`` for the original's
    infinity), ``effort_correct`` and ``effort_incorrect`` (0.0 for none), over effort > 0."""
    pairs = list(zip(efforts, correct, strict=True))
    right = [float(effort) for effort, hit in pairs if hit and effort > 0]
    wrong = [float(effort) for effort, hit in pairs if not hit and effort > 0]
    mean_right = sum(right) / len(right) if right else 0.0
    mean_wrong = sum(wrong) / len(wrong) if wrong else 0.0
    return {
        "ratio": mean_wrong / mean_right if mean_right > 0 else None,
        "effort_correct": mean_right,
        "effort_incorrect": mean_wrong,
    }


def bias_adjusted(raw: float, q0: float = SPECIFICITY, q1: float = SENSITIVITY) -> float:
    """Rogan-Gladen: (raw + q0 - 1) / (q0 + q1 - 1) in [0, 1]; ``raw`` for a useless judge."""
    if q0 + q1 <= 1:
        return raw
    return max(0.0, min(1.0, (raw + q0 - 1) / (q0 + q1 - 1)))


def standard_error(raw: float, n: int, q0: float = SPECIFICITY, q1: float = SENSITIVITY) -> float:
    """The binomial standard error of ``raw`` over ``n``, scaled as the correction scales."""
    if n <= 0 or q0 + q1 <= 1:
        return 0.0
    binomial = sqrt(raw * (1 - raw) / n) if 0 < raw < 1 else 0.0
    return binomial / (q0 + q1 - 1)


def confidence_interval(
    raw: float,
    n: int,
    q0: float = SPECIFICITY,
    q1: float = SENSITIVITY,
    m0: int = CALIBRATION_INCORRECT,
    m1: int = CALIBRATION_CORRECT,
    z: float = Z_95,
) -> tuple[float, float]:
    """The original's 95% interval of the corrected score. With a calibration as good as
    MADQA's (q0 + q1 > 1.9) the calibration is trusted: the corrected score +- z times the
    scaled binomial error. Otherwise the regularised estimate of the paper the original
    follows (arXiv 2511.21140), with its bias term and the calibration's own variance."""
    if q0 + q1 > 1.9:
        theta = bias_adjusted(raw, q0, q1)
        spread = z * ((sqrt(raw * (1 - raw) / n) if n > 0 else 0.0) / (q0 + q1 - 1))
        return max(0.0, theta - spread), min(1.0, theta + spread)
    zz = z * z
    p = (n * raw + zz / 2) / (n + zz)
    q0r, q1r = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    if q0r + q1r <= 1:
        return 0.0, 1.0
    theta = (p + q0r - 1) / (q0r + q1r - 1)
    var0, var1 = q0r * (1 - q0r) / (m0 + 2), q1r * (1 - q1r) / (m1 + 2)
    shift = 2 * zz * (-(1 - theta) * var0 + theta * var1)
    error = sqrt(p * (1 - p) / (n + zz) + (1 - theta) ** 2 * var0 + theta**2 * var1) / (
        q0r + q1r - 1
    )
    return max(0.0, theta + shift - z * error), min(1.0, theta + shift + z * error)


def semantic_aggregate(scores: Sequence[float]) -> dict[str, float | None]:
    """``semantic_raw``, ``semantic_accuracy`` (corrected) and its interval; ``None`` for no
    scores (the original reports zeros)."""
    if not scores:
        return dict.fromkeys(
            ("semantic_raw", "semantic_accuracy", "semantic_ci_low", "semantic_ci_high")
        )
    raw = sum(scores) / len(scores)
    low, high = confidence_interval(raw, len(scores))
    return {
        "semantic_raw": raw,
        "semantic_accuracy": bias_adjusted(raw),
        "semantic_ci_low": low,
        "semantic_ci_high": high,
    }


def judge_counts(rows: Sequence[Row]) -> dict[str, int]:
    """How many judge replies scored 0 without a verdict: ``judge_unparseable`` (no readable
    judgment: a reply cut short by the model's token limit reads so) and ``judge_failed`` (the
    call failed). The original scores both 0 too, but a run where many do is not MADQA's number,
    so the score file says how many there were."""
    return {
        "judge_unparseable": sum(1 for row in rows if row.get("judge_status") == UNPARSEABLE),
        "judge_failed": sum(1 for row in rows if row.get("judge_status") == FAILED),
    }


def _headline(rows: Sequence[Row], semantic: bool) -> float | None:
    if not rows:
        return None
    if semantic:
        return semantic_aggregate([float(row["semantic"]) for row in rows])["semantic_accuracy"]
    return sum(float(row["correct"]) for row in rows) / len(rows)


def aggregate(rows: Sequence[Row], semantic: bool = False) -> dict[str, Any]:
    """MADQA's aggregates of scored rows (module docstring); ``semantic`` for ``accuracy:
    semantic``. Each row has ``anls``, ``correct``, ``citation_doc_f1``, ``citation_page_f1``,
    ``hop_type``, ``effort`` and, for ``semantic``, ``semantic``."""
    n = len(rows)

    def mean(key: str) -> float | None:
        return sum(float(row[key]) for row in rows) / n if n else None

    efforts = [row["effort"] for row in rows]
    correct = [bool(row["correct"]) for row in rows]
    wasted = wasted_effort(efforts, correct) if n else {}
    hops = {hop: [row for row in rows if row["hop_type"] == hop] for hop in HOP_TYPES}
    result: dict[str, Any] = {
        "questions": n,
        "overall": _headline(rows, semantic),
        "accuracy": mean("correct"),
        "mean_anls": mean("anls"),
        **(semantic_aggregate([float(row["semantic"]) for row in rows]) if semantic else {}),
        **(judge_counts(rows) if semantic else {}),
        "citation_doc_f1": mean("citation_doc_f1"),
        "citation_page_f1": mean("citation_page_f1"),
        "kuiper": kuiper(efforts, correct) if n else None,
        "wasted_effort_ratio": wasted.get("ratio"),
        "effort_correct": wasted.get("effort_correct"),
        "effort_incorrect": wasted.get("effort_incorrect"),
        "x_page": _headline(hops["cross_page"], semantic),
        "x_page_questions": len(hops["cross_page"]),
        "x_doc": _headline(hops["cross_doc"], semantic),
        "x_doc_questions": len(hops["cross_doc"]),
    }
    return result


def answer_items(answer: str) -> str | list[str]:
    """A method's answer as MADQA's evaluation receives it: a reply that is a JSON list of
    strings (the form MADQA's baselines are told to answer in, one item per part) is that list,
    so that its items are matched one to one; any other reply is one string."""
    text = answer.strip()
    if text.startswith("[") and text.endswith("]"):
        try:
            items = json.loads(text)
        except ValueError:
            return answer
        if isinstance(items, list) and all(isinstance(item, str) for item in items):
            return items
    return answer


def score(question: Question, prediction: Prediction, prepared: Scores, semantic: bool) -> Scores:
    """One question's scores (module docstring); ``prepared`` holds the judge's ``semantic``
    score when ``semantic``."""
    anls = anls_star(answer_items(prediction.answer), gold_variants(question))
    gold = question.evidence
    cited = prediction.locations(question.doc_id)
    scores: Scores = {"anls": anls}
    if semantic:
        scores["semantic"] = float(prepared.get("semantic", 0.0))
        scores["correct"] = 1.0 if scores["semantic"] >= 0.5 else 0.0
    else:
        scores["correct"] = 1.0 if anls >= 0.5 else 0.0
    return {
        **scores,
        "citation_doc_f1": float(citation_f1(cited, gold, "document")["f1"]),
        "citation_page_f1": float(citation_f1(cited, gold, "page")["f1"]),
        "hop_type": hop_type(gold),
        "effort": int(prediction.usage.calls),  # an int: a failed prediction keeps its effort
    }


class MADQAOptions(Options):
    """The options of metric ``madqa``: a judge ``model`` exactly when ``accuracy`` is
    ``semantic``."""

    model_config = ConfigDict(validate_default=True)  # a missing judge is checked too

    accuracy: Accuracy = Field(
        default="anls", description="anls: ANLS* >= 0.5 is correct; semantic: a judge model decides"
    )
    model: str | None = refers_to(
        "models", None, "the judge of accuracy: semantic (required with it, refused without)"
    )

    @field_validator("model")
    @classmethod
    def _judge_only_for_semantic(cls, model: str | None, info: ValidationInfo) -> str | None:
        if "accuracy" not in info.data:  # a bad accuracy is reported on its own
            return model
        semantic = info.data["accuracy"] == "semantic"
        if semantic and model is None:
            raise ValueError(
                "accuracy: semantic needs a judge: set model to a model defined under 'models:'"
            )
        if not semantic and model is not None:
            raise ValueError(
                f"model {model!r} is only used with accuracy: semantic (the judge); remove it, "
                "or set accuracy: semantic"
            )
        return model


async def _prepare(
    questions: Sequence[Question],
    answers: Sequence[str],
    options: MADQAOptions,
    client: ModelClient | None,
) -> list[Scores]:
    if options.accuracy != "semantic":
        return [{} for _ in questions]
    client = judge_client("madqa", options.model, client)
    items = [
        (q.question.strip(), answer_items(answer), gold_variants(q))
        for q, answer in zip(questions, answers, strict=True)
    ]
    return await judge_semantic(client, items)


def _describe(options: MADQAOptions) -> dict[str, Any]:
    if options.accuracy != "semantic":
        return {"accuracy": "anls"}
    return {"accuracy": "semantic", "judge": options.model, "prompt_sha256": prompt_sha256()}


def _tag_group(tag: str, empty: str) -> Callable[[Row], list[str]]:
    def groups(row: Row) -> list[str]:
        value = row.get("tags", {}).get(tag)
        return [str(value) if value else empty]

    return groups


BREAKDOWNS: dict[str, Callable[[Row], list[str]]] = {
    "hop_type": lambda row: [row["hop_type"]],
    "document_category": _tag_group("document_category", "Unknown"),
    "domain": _tag_group("domain", "Other"),
}

METRICS.register("madqa", options=MADQAOptions)(
    Metric(
        score=lambda question, prediction, prepared, options: score(
            question, prediction, prepared, options.accuracy == "semantic"
        ),
        aggregate=lambda rows, options: aggregate(rows, options.accuracy == "semantic"),
        columns={"overall": "overall"},
        row_score="correct",
        breakdowns=BREAKDOWNS,
        prepare=_prepare,
        describe=_describe,
        unscaled=("kuiper", "wasted_effort_ratio", "effort_correct", "effort_incorrect"),
    )
)
