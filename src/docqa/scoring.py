"""The score stage: one run's predictions scored against its dataset's questions.

Every question is scored and counted. A question without a prediction, or whose prediction
carries an error, scores 0 in its column; ``summary`` counts both under ``errors`` and the
missing ones again under ``missing``. A prediction for a question id the questions file does
not hold, or two predictions for one question, is an error: the run and the questions do not
belong together, and no score would mean anything.

Summary and breakdown scores are percentages rounded to 2 decimals; per-question scores are
fractions in [0, 1] rounded to 4 decimals; ``None`` wherever a score is undefined.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from statistics import fmean
from typing import Any, Callable, NamedTuple, Sequence

from docqa.jsonl import read_jsonl
from docqa.metrics import METRICS, load_metrics
from docqa.metrics.base import AnswerScore, Metric, Options
from docqa.metrics.pages import page_precision, page_recall
from docqa.prediction import Prediction
from docqa.question import Question

META_KEYS = ("dataset", "method", "model")
MISSING = "missing prediction"


def _tag(name: str) -> Callable[[Question], list[str]]:
    def values(question: Question) -> list[str]:
        value = question.tags.get(name)
        if value is None:
            return []
        return [value] if isinstance(value, str) else list(value)

    return values


# Breakdown name → the group(s) a question falls in; a question with several evidence sources
# counts in each, a question without the tag in none.
BREAKDOWNS: dict[str, Callable[[Question], list[str]]] = {
    "kind": _tag("kind"),
    "evidence_source": _tag("evidence_sources"),
    "answer_format": lambda question: [question.answer_format],
}


def score_run(
    questions: Path, predictions: Path, metric: str, options: Options, meta: dict[str, Any]
) -> dict[str, Any]:
    """Score ``predictions`` (Prediction rows) against ``questions`` (Question rows).

    ``meta`` gives the run's ``dataset``, ``method`` and ``model``; ``options`` are the
    metric's options, checked against the ones it takes.
    """
    missing_meta = [key for key in META_KEYS if key not in meta]
    if missing_meta:
        raise ValueError(f"score_run: meta lacks {missing_meta}; it needs {list(META_KEYS)}")
    load_metrics()
    scorer = METRICS.get(metric)
    resolved = scorer.resolve_options(options, metric)
    asked = _read_questions(questions)
    answered = _read_predictions(predictions, {q.question_id for q in asked}, questions)

    scored = [_score_question(scorer, resolved, q, answered.get(q.question_id)) for q in asked]
    answer_scores = [s.score for s in scored]
    return {
        **{key: meta[key] for key in META_KEYS},
        "metric": metric,
        "options": resolved,
        "summary": _summary(scorer, resolved, scored, list(answered.values())),
        "breakdown": {
            name: _breakdown(scorer, resolved, asked, answer_scores, groups)
            for name, groups in BREAKDOWNS.items()
        },
        "per_question": [s.row for s in scored],
    }


def write_scores(scores: dict[str, Any], path: Path) -> None:
    """Write a score file atomically: it appears complete or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(scores, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _read_questions(path: Path) -> list[Question]:
    questions: list[Question] = []
    seen: set[str] = set()
    for number, row in enumerate(read_jsonl(path), start=1):
        try:
            question = Question.from_dict(row)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{path}: question row {number}: {error}") from None
        if question.question_id in seen:
            raise ValueError(f"{path}: question id {question.question_id!r} appears twice")
        seen.add(question.question_id)
        questions.append(question)
    return questions


def _read_predictions(path: Path, known: set[str], questions: Path) -> dict[str, Prediction]:
    predictions: dict[str, Prediction] = {}
    for number, row in enumerate(read_jsonl(path), start=1):
        try:
            prediction = Prediction.from_dict(row)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{path}: prediction row {number}: {error}") from None
        qid = prediction.question_id
        if qid not in known:
            raise ValueError(
                f"{path}: prediction row {number} is for question id {qid!r}, which {questions} "
                "does not hold; were the predictions made for another dataset?"
            )
        if qid in predictions:
            raise ValueError(f"{path}: question id {qid!r} has two predictions (row {number})")
        predictions[qid] = prediction
    return predictions


class _Scored(NamedTuple):
    """One question's per_question row, with its unrounded scores for the aggregates."""

    row: dict[str, Any]
    score: AnswerScore
    page_recall: float | None
    page_precision: float | None
    missing: bool


def _score_question(
    scorer: Metric, options: Options, question: Question, prediction: Prediction | None
) -> _Scored:
    answer = "" if prediction is None else prediction.answer
    error = MISSING if prediction is None else prediction.error
    score = scorer.score(question, answer, options)
    if error:
        score = score.failed()
    used = [] if prediction is None else prediction.pages
    recall = page_recall(used, question.evidence_pages)
    precision = page_precision(used, question.evidence_pages)
    row = {
        "question_id": question.question_id,
        "kind": question.tags.get("kind"),
        "answer_format": question.answer_format,
        "numeric": score.numeric,
        "score": _fraction(score.score),
        "num": None if score.num is None else int(score.num),
        "f1": _fraction(score.f1),
        "page_recall": _fraction(recall),
        "page_precision": _fraction(precision),
        "answer": answer,
        "gold": question.answer,
        "error": error,
    }
    return _Scored(row, score, recall, precision, missing=prediction is None)


def _summary(
    scorer: Metric,
    options: Options,
    scored: list[_Scored],
    predictions: list[Prediction],
) -> dict[str, Any]:
    scores = [s.score for s in scored]
    nums = [s.num for s in scores if s.num is not None]
    f1s = [s.f1 for s in scores if s.f1 is not None]
    return {
        "questions": len(scored),
        "predictions": len(predictions),
        "errors": sum(1 for s in scored if s.row["error"]),
        "missing": sum(1 for s in scored if s.missing),
        "num": _percent(_mean(nums)),
        "num_questions": len(nums),
        "f1": _percent(_mean(f1s)),
        "f1_questions": len(f1s),
        "overall": _percent(scorer.overall(scores, options)),
        "page_recall": _percent(_mean([s.page_recall for s in scored])),
        "page_precision": _percent(_mean([s.page_precision for s in scored])),
        "calls": sum(p.usage.calls for p in predictions),
        "seconds": round(sum(p.usage.seconds for p in predictions), 3),
        "tokens_in": sum(p.usage.tokens_in for p in predictions),
        "tokens_out": sum(p.usage.tokens_out for p in predictions),
    }


def _breakdown(
    scorer: Metric,
    options: Options,
    questions: list[Question],
    scores: list[AnswerScore],
    groups_of: Callable[[Question], list[str]],
) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[AnswerScore]] = {}
    for question, score in zip(questions, scores):
        for group in groups_of(question):
            groups.setdefault(group, []).append(score)
    return {
        group: {"questions": len(members), "overall": _percent(scorer.overall(members, options))}
        for group, members in sorted(groups.items())
    }


def _mean(values: Sequence[float | None]) -> float | None:
    defined = [value for value in values if value is not None]
    return fmean(defined) if defined else None


def _percent(fraction: float | None) -> float | None:
    return None if fraction is None else round(100.0 * fraction, 2)


def _fraction(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
