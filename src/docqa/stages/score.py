"""The score stage: one run's predictions scored against its dataset's questions.

Steps: the metric's model step, if it has one (answer extraction: by a model when option
``model`` names one, else by rules; judging: always by a model), then each question's scores,
the metric's aggregates, evidence-page retrieval scores, and a 95% bootstrap interval for
every aggregate (:mod:`docqa.metrics.bootstrap`). The score file holds the per-question rows too, so
tables and tests can be recomputed from it without rescoring.

Every question is scored and counted. A question without a gold answer (``Question.has_gold``:
a question of your own documents may have none) is answered but left out of the answer metrics:
its row has ``score`` ``None`` and ``skipped``, the aggregates and breakdowns are over the
questions with gold answers, and ``summary.skipped`` counts what each kind of score left out
(``answer``: no gold answer; ``pages``: no evidence pages, for which the page scores are
``None``). A question without a prediction, or whose prediction
carries an error, is not sent to a model and scores 0 in every score it has; ``summary``
counts both under ``errors``, the missing ones again under ``missing`` and those that the
infrastructure caused (``error_kind`` "infrastructure": a server, key, cache or memory failure
recorded under the infer job's threshold) again under ``infrastructure_errors``. A prediction for a
question id the questions file does not hold, or two predictions for one question, is an
error: the run and the questions do not belong together, and no score would mean anything.

The file (:class:`docqa.core.scores.ScoreFile`): ``documents`` where questions are over several
documents or the dataset says how they were given theirs (how many are over several; the
dataset's ``documents`` and ``missing_documents`` settings), ``summary`` (counts, the metric's
columns ``overall``/``num``/``f1``/``em``, the evidence-page scores ``page_*``, usage (calls,
tokens, fallbacks, budget retries; ``pages_cut``: pages a method read only in part under a
character budget, each question's counted once from its trace's ``text_cut``; no wall-clock
times, so that a rerun writes the same bytes: the report reads those from the run's timings
file, :func:`docqa.report.inputs.run_timings`),
``agent`` (:func:`agent_measures`: the means of the per-question measures an agentic method
leaves as its trace's last step, if any), ``intervals`` of every score in it, and ``scorer``:
what the model step ran with, its model's identity and prompt hash, and how many questions it
failed on), ``aggregate`` (all of the metric's aggregates) with ``aggregate_intervals``,
``breakdown`` (per tag and per the benchmark's own groupings: questions, headline score,
interval), ``bootstrap`` (how the intervals were drawn) and ``per_question``.

Summary, aggregate and breakdown scores and their intervals are percentages rounded to 2
decimals (a metric's ``unscaled`` aggregates, such as MADQA's Kuiper statistic, as they are,
to 4 decimals); per-question scores are fractions in [0, 1] rounded to 4 decimals; ``None``
wherever a score is undefined.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any, Literal, TypedDict, TypeVar, cast

from docqa.backends.base import Backend
from docqa.backends.cache import ResponseCache
from docqa.backends.client import ModelClient
from docqa.core.error_kinds import INFRASTRUCTURE
from docqa.core.jsonl import read_jsonl
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.scores import (
    PAGE_PREFIX,
    PAGE_SCORES,
    AgentMeasures,
    DocumentsSetting,
    GroupScore,
    Interval,
    ScoreFile,
    ScoreRow,
    ScoreSummary,
    Skipped,
)
from docqa.core.trace import pages_cut
from docqa.metrics import METRICS, resolve_options, retrieval
from docqa.metrics.aggregation import tag_values
from docqa.metrics.base import Metric, Scores, scored_text
from docqa.metrics.bootstrap import LEVEL, RESAMPLES, SEED, bootstrap_ci, bootstrap_statistics
from docqa.runtime.spec import Options

log = logging.getLogger(__name__)

META_KEYS = ("dataset", "method", "model")
MISSING = "missing prediction"
NO_GOLD = "no gold answer"
#: Usage fields summed over a run's predictions into its summary
USAGE_COUNTS = (
    "calls",
    "tokens_in",
    "tokens_out",
    "image_tokens",
    "images_as_text",
    "fallbacks",
    "budget_retries",
)
#: Prediction fields summed over a run's predictions into its summary: pages a method did not
#: show as it meant to (docqa.methods.vanilla)
PAGE_CUTS = ("pages_truncated", "pages_downscaled")
T = TypeVar("T")

# Breakdown name → the group(s) a question's row falls in; a question with several evidence
# sources counts in each, a question without the tag in none. A metric's own breakdowns
# (``Metric.breakdowns``) are added, and replace these where the names are the same.
BREAKDOWNS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "kind": lambda row: tag_values(row, "kind"),
    "evidence_source": lambda row: tag_values(row, "evidence_sources"),
    "answer_format": lambda row: [row["answer_format"]],
}


def score_run(
    questions: Path,
    predictions: Path,
    metric: str,
    options: Mapping[str, Any],
    meta: dict[str, Any],
    *,
    backend: Backend | None = None,
    cache: Path | None = None,
) -> ScoreFile:
    """Score ``predictions`` (Prediction rows) against ``questions`` (Question rows).

    ``meta`` gives the run's ``dataset``, ``method`` and ``model``; ``options`` are the
    metric's config entry, validated by its registered spec. ``backend`` is the model of the
    metric's model step when its option ``model`` names one (``cache``: the response cache
    file for its calls); without a model, answers are extracted by rules.
    """
    missing_meta = [key for key in META_KEYS if key not in meta]
    if missing_meta:
        raise ValueError(f"score_run: meta lacks {missing_meta}; it needs {list(META_KEYS)}")
    scorer = METRICS.get(metric)
    resolved = resolve_options(metric, options)
    asked = _read_questions(questions)
    answered = _read_predictions(predictions, {q.question_id for q in asked}, questions)
    given = [answered.get(q.question_id) for q in asked]

    prepared = _prepare(scorer, resolved, metric, asked, given, backend, cache)
    rows = [
        _score_question(scorer, resolved, question, prediction, step)
        for question, prediction, step in zip(asked, given, prepared, strict=True)
    ]
    skipped = _skipped(asked)
    if any(skipped.values()):
        log.info(
            "%d question(s) without a gold answer left out of the answer metrics; %d without "
            "evidence pages left out of the page scores",
            skipped["answer"],
            skipped["pages"],
        )
    summary, aggregate, intervals, breakdown = _aggregates(
        scorer,
        resolved,
        rows,
        list(answered.values()),
        _describe(scorer, resolved, backend, rows),
        skipped,
    )
    return {
        "dataset": meta["dataset"],
        "method": meta["method"],
        "model": meta["model"],
        "metric": metric,
        "options": resolved.model_dump(),
        **_documents_settings(asked),
        "bootstrap": {"method": "percentile", "resamples": RESAMPLES, "seed": SEED, "level": LEVEL},
        "summary": summary,
        "aggregate": aggregate,
        "aggregate_intervals": intervals,
        "breakdown": breakdown,
        "per_question": [_rounded(row) for row in rows],
    }


def write_scores(scores: ScoreFile, path: Path) -> None:
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


def _failed(prediction: Prediction | None) -> bool:
    return prediction is None or bool(prediction.error)


def _prepare(
    scorer: Metric,
    options: Options,
    name: str,
    questions: list[Question],
    predictions: list[Prediction | None],
    backend: Backend | None,
    cache: Path | None,
) -> list[Scores]:
    """The model step's result per question; ``{}`` where there is no step or no answer."""
    prepared: list[Scores] = [{} for _ in questions]
    if scorer.prepare is None:
        return prepared
    todo = [
        (i, p.answer)
        for i, p in enumerate(predictions)
        if p is not None and not p.error and questions[i].has_gold
    ]
    asked = [questions[i] for i, _ in todo]
    answers = [answer for _, answer in todo]
    step = scorer.prepare
    if not scorer.uses_model(options):
        results: list[dict[str, Any]] = asyncio.run(step(asked, answers, options, None))  # type: ignore[arg-type]
    elif backend is None:
        raise ValueError(
            f"metric {name!r} is configured with model {getattr(options, 'model', None)!r}, "
            "but the score stage was given no backend: pass "
            "score_run(..., backend=create_backend(...))"
        )
    else:
        results = asyncio.run(
            _with_client(backend, cache, lambda client: step(asked, answers, options, client))
        )
    for (index, _), result in zip(todo, results, strict=True):
        prepared[index] = result
    return prepared


async def _with_client(
    backend: Backend, cache: Path | None, work: Callable[[ModelClient], Awaitable[T]]
) -> T:
    client = ModelClient(backend, None if cache is None else ResponseCache(cache))
    try:
        return await work(client)
    finally:
        await client.close()


def _score_question(
    scorer: Metric,
    options: Options,
    question: Question,
    prediction: Prediction | None,
    prepared: Scores,
) -> ScoreRow:
    """One question's row, unrounded: its scores, page scores and what was compared. The
    metric's model step (``prepared``) and scores are keys of their own, after
    ``answer_format``."""
    answered = prediction or Prediction(question.question_id, "")
    pages = retrieval.score(question.evidence, answered.locations(question.doc_id))
    if not question.has_gold:  # answered, shown, but nothing to compare the answer with
        scores: Scores = {scorer.row_score: None}
        skipped = {"skipped": NO_GOLD}
    else:
        scores = scorer.score(question, answered, prepared, options)
        skipped = {}
    if _failed(prediction):
        scores = {key: 0.0 if isinstance(value, float) else value for key, value in scores.items()}
    row = {
        "question_id": question.question_id,
        "kind": question.tags.get("kind"),
        "answer_format": question.answer_format,
        **prepared,
        **scores,
        "score": scores[scorer.row_score],
        **{PAGE_PREFIX + key: value for key, value in pages.items()},
        "answer": answered.answer,
        "pred": scored_text(answered, prepared),
        "gold": question.answer,
        "error": MISSING if prediction is None else prediction.error,
        "error_kind": "" if prediction is None else prediction.error_kind,
        "doc_id": question.doc_id,
        "evidence_pages": [] if question.over_several else question.evidence_in(question.doc_id),
        "page_window": question.page_window,
        "tags": question.tags,
        **_documents(question, answered),
        **skipped,
    }
    return cast(ScoreRow, row)  # open: the metric's keys (docqa.core.scores)


class _Documents(TypedDict, total=False):
    """The score file's ``documents`` key, where it has one."""

    documents: DocumentsSetting


def _documents_settings(questions: Sequence[Question]) -> _Documents:
    """How the questions were given their documents, where the dataset says (MADQA's option
    ``documents``, ``missing_documents``: question tags), and how many are over several."""
    several = sum(question.over_several for question in questions)
    settings = {
        key: sorted({str(q.tags[tag]) for q in questions if tag in q.tags})
        for key, tag in (("setting", "documents_setting"), ("missing", "missing_documents"))
    }
    if not several and not any(settings.values()):
        return {}
    return {
        "documents": {
            "over_several": several,
            "setting": settings["setting"],
            "missing": settings["missing"],
        }
    }


def _documents(question: Question, answered: Prediction) -> dict[str, Any]:
    """A question over several documents names them, its evidence and the pages used as
    (document, page) pairs; a one-document row has none of these keys."""
    if not question.over_several:
        return {}
    return {
        "doc_ids": question.documents,
        "evidence": [list(ref) for ref in question.evidence],
        "pages_used": [list(ref) for ref in answered.locations(question.doc_id)],
    }


def _skipped(questions: Sequence[Question]) -> Skipped:
    """How many questions each kind of score leaves out: ``answer`` (no gold answer) and
    ``pages`` (no evidence pages)."""
    return {
        "answer": sum(1 for question in questions if not question.has_gold),
        "pages": sum(1 for question in questions if not question.evidence),
    }


def _describe(
    scorer: Metric, options: Options, backend: Backend | None, rows: list[ScoreRow]
) -> dict[str, Any]:
    """What produced the scores: the metric's step, its model's identity, its failures."""
    if scorer.prepare is None:
        return {}
    described = dict(scorer.describe(options))
    if scorer.uses_model(options) and backend is not None:
        described["model_identity"] = backend.identity
    described["step_failures"] = sum(1 for row in rows if row.get("step_error"))
    return described


def _aggregates(
    scorer: Metric,
    options: Options,
    rows: list[ScoreRow],
    predictions: list[Prediction],
    described: dict[str, Any],
    skipped: Skipped,
) -> tuple[ScoreSummary, dict[str, Any], dict[str, Interval], dict[str, dict[str, GroupScore]]]:
    """``summary``, ``aggregate``, ``aggregate_intervals`` and ``breakdown`` of the rows;
    ``described`` (what the model step ran with) goes into the summary as ``scorer``. The
    metric's aggregates are over the rows with a gold answer; ``skipped`` counts the others."""

    def statistic(subset: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        return scorer.aggregate(subset, options)

    all_rows, rows = rows, [row for row in rows if row.get("skipped") != NO_GOLD]
    aggregate = statistic(rows) if rows else {}
    intervals = (
        {path[0]: bounds for path, bounds in bootstrap_statistics(rows, statistic).items()}
        if rows
        else {}
    )
    headline = scorer.columns["overall"]
    breakdowns = {**BREAKDOWNS, **scorer.breakdowns}
    summary = _summary(scorer, aggregate, intervals, all_rows, predictions)
    summary["skipped"] = skipped
    summary["scorer"] = described
    return (
        summary,
        {
            key: _scaled(value, key not in scorer.unscaled) if isinstance(value, float) else value
            for key, value in aggregate.items()
        },
        {key: _interval(value, key not in scorer.unscaled) for key, value in intervals.items()},
        {
            name: _breakdown(rows, groups_of, statistic, headline)
            for name, groups_of in breakdowns.items()
        },
    )


def _summary(
    scorer: Metric,
    aggregate: Mapping[str, Any],
    intervals: Mapping[str, tuple[float, float]],
    rows: list[ScoreRow],
    predictions: list[Prediction],
) -> ScoreSummary:
    """The summary up to its ``intervals``; the caller adds ``skipped`` and ``scorer``."""
    columns: dict[str, Any] = {}
    column_intervals: dict[str, Interval] = {}
    for column, key in scorer.columns.items():
        columns[column] = _percent(aggregate.get(key))
        column_intervals[column] = _interval(intervals.get(key))
        if f"{key}_questions" in aggregate:
            columns[f"{column}_questions"] = aggregate[f"{key}_questions"]
    for name in PAGE_SCORES:
        # the mean over the questions where the page score is defined, and its interval
        defined = [score for row in rows if (score := row[name]) is not None]
        columns[name] = _percent(fmean(defined) if defined else None)
        column_intervals[name] = _interval(bootstrap_ci(defined))
    summary = {
        "questions": len(rows),
        "predictions": len(predictions),
        "errors": sum(1 for row in rows if row["error"]),
        "missing": sum(1 for row in rows if row["error"] == MISSING),
        # of the errors, those the infrastructure caused (recorded under the infer job's
        # max_infrastructure_errors; docqa.backends.errors), not the question or the method
        "infrastructure_errors": sum(1 for p in predictions if p.error_kind == INFRASTRUCTURE),
        **{column: None for column in ("num", "f1", "overall")},
        **columns,
        **{name: sum(getattr(p.usage, name) for p in predictions) for name in USAGE_COUNTS},
        # pages left out (page cap, context) and pages sent smaller to fit the context
        **{name: sum(getattr(p, name) for p in predictions) for name in PAGE_CUTS},
        "agent": agent_measures(predictions),
        # pages a method read only in part under a character budget (their traces' text_cut)
        "pages_cut": sum(pages_cut(p.trace) for p in predictions),
        "intervals": column_intervals,
    }
    return cast(ScoreSummary, summary)  # the metric's columns, named as it says


def agent_measures(predictions: Sequence[Prediction]) -> AgentMeasures:
    """Means over questions of the measures an agentic method (DocPilot) leaves in its trace's
    last step, ``{"step": "summary", ...}``; ``{}`` when no prediction has one.

    ``recall_by_round[r]`` is the mean cumulative evidence recall after navigation round r+1
    over the questions with gold pages and at least one round; a question that stopped
    navigating earlier keeps its last recall (cumulative recall cannot drop).
    ``calls_per_action``: mean executed calls of each action per question.
    """
    last_steps = [p.trace[-1] for p in predictions if p.trace]
    summaries = [step for step in last_steps if step.get("step") == "summary"]
    if not summaries:
        return {}
    curves = [s["recall_by_round"] for s in summaries if s.get("recall_by_round")]
    rounds = max((len(curve) for curve in curves), default=0)
    actions = sorted({name for s in summaries for name in s.get("calls_per_action", {})})

    def mean(name: Literal["steps", "navigation_rounds", "pages_retrieved"]) -> float:
        return round(fmean(float(s.get(name, 0)) for s in summaries), 3)

    return {
        "questions": len(summaries),
        "recall_questions": len(curves),
        "recall_by_round": [
            round(100.0 * fmean(curve[min(r, len(curve) - 1)] for curve in curves), 2)
            for r in range(rounds)
        ],
        "calls_per_action": {
            name: round(fmean(s.get("calls_per_action", {}).get(name, 0) for s in summaries), 3)
            for name in actions
        },
        "steps": mean("steps"),
        "navigation_rounds": mean("navigation_rounds"),
        "pages_retrieved": mean("pages_retrieved"),
    }


def _breakdown(
    rows: list[ScoreRow],
    groups_of: Callable[[Mapping[str, Any]], list[str]],
    statistic: Callable[[Sequence[Mapping[str, Any]]], dict[str, Any]],
    headline: str,
) -> dict[str, GroupScore]:
    """Per group: its questions, its headline aggregate and that aggregate's interval."""
    groups: dict[str, list[ScoreRow]] = {}
    for row in rows:
        for group in groups_of(row):
            groups.setdefault(group, []).append(row)

    def overall(members: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        return {"overall": statistic(members).get(headline)}

    return {
        group: {
            "questions": len(members),
            "overall": _percent(overall(members)["overall"]),
            "interval": _interval(bootstrap_statistics(members, overall).get(("overall",))),
        }
        for group, members in sorted(groups.items())
    }


def _rounded(row: ScoreRow) -> ScoreRow:
    """The row with its scores rounded; the gold answer stays as the dataset gives it."""
    rounded = {
        key: round(value, 4) if isinstance(value, float) and key != "gold" else value
        for key, value in row.items()
    }
    return cast(ScoreRow, rounded)


def _percent(fraction: float | None) -> float | None:
    return None if fraction is None else round(100.0 * fraction, 2)


def _scaled(value: float | None, percent: bool) -> float | None:
    """A fraction as a percentage; another statistic as it is, to 4 decimals."""
    if percent or value is None:
        return _percent(value)
    return round(value, 4)


def _interval(interval: tuple[float, float] | None, percent: bool = True) -> Interval:
    if interval is None:
        return None
    return [_scaled(bound, percent) for bound in interval]  # type: ignore[misc]
