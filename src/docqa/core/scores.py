"""The score file's records: what the score stage writes and the report reads.

A score file (``results/scores/{dataset}/{method}/{model}.json``, written by
:mod:`docqa.stages.score`) is one JSON object, :class:`ScoreFile`: the run, the metric, the
run's :class:`ScoreSummary`, the metric's aggregates, the breakdowns (:class:`GroupScore` per
group) and one :class:`ScoreRow` per question. These TypedDicts are the one declaration of those
shapes; the JSON on disk is exactly these dicts, in the order the score stage builds them.

Keys a TypedDict cannot name stay open: a score row also holds the metric's own per-question
scores (``acc``, ``f1``, ``extracted``... between ``answer_format`` and ``score``), and the
summary's ``scorer`` holds what the metric's model step ran with. Code that reads those keys
reads the row as a ``Mapping[str, Any]``, as the metrics do.

Scores in the summary, the aggregates and the breakdowns are percentages rounded to 2
decimals; per-question scores are fractions in [0, 1] rounded to 4 decimals; ``None`` where a
score is undefined.
"""

# no ``from __future__ import annotations``: TypedDict reads NotRequired from real annotations
from typing import Any, Literal, NotRequired, Required, TypedDict, get_args

#: a score given as a fraction or percentage, or ``None`` where it is undefined
Score = float | None
#: a 95% bootstrap interval [low, high], or ``None`` where the score is undefined
Interval = list[float] | None

#: prefix of the evidence-page scores (``docqa.metrics.retrieval``) in a row and the summary
PAGE_PREFIX = "page_"
#: the evidence-page scores of a row and the summary: ``docqa.metrics.retrieval.score_names()``
#: (at its default ``ks``), each with ``PAGE_PREFIX``
PageScore = Literal[
    "page_precision",
    "page_recall",
    "page_f1",
    "page_recall@1",
    "page_recall@3",
    "page_recall@5",
    "page_mrr",
]
PAGE_SCORES: tuple[PageScore, ...] = get_args(PageScore)

#: One question's scores: what was asked and answered, the metric's scores (open keys, see the
#: module docstring), the headline ``score``, the evidence-page scores, and, for a question
#: over several documents, its documents, evidence and the pages used as (document, page)
#: pairs. ``skipped`` says why the answer metrics left it out (no gold answer); ``step_error``
#: (from the metric's model step) that the step failed for it.
ScoreRow = TypedDict(
    "ScoreRow",
    {
        "question_id": str,
        "kind": str | list[str] | None,
        "answer_format": str,
        "step_error": NotRequired[str],
        "score": Score,
        # the page scores of docqa.metrics.retrieval.score_names(), PAGE_PREFIX first
        "page_precision": Score,
        "page_recall": Score,
        "page_f1": Score,
        "page_recall@1": Score,
        "page_recall@3": Score,
        "page_recall@5": Score,
        "page_mrr": Score,
        "answer": str,
        "pred": str,
        "gold": str | list[str],
        "error": str,
        "error_kind": str,
        "doc_id": str,
        "evidence_pages": list[int],
        "page_window": list[int],
        "tags": dict[str, str | list[str]],
        "doc_ids": NotRequired[list[str]],
        "evidence": NotRequired[list[list[str | int]]],
        "pages_used": NotRequired[list[list[str | int]]],
        "skipped": NotRequired[str],
    },
)


class Skipped(TypedDict):
    """How many questions each kind of score left out."""

    #: no gold answer: left out of the answer metrics
    answer: int
    #: no evidence pages: left out of the page scores
    pages: int


class AgentMeasures(TypedDict, total=False):
    """Means over questions of what an agentic method (DocPilot) leaves in its trace's last
    step, ``{"step": "summary", ...}`` (:func:`docqa.stages.score.agent_measures`); empty when
    no prediction has one."""

    questions: int
    #: questions with gold pages and at least one navigation round
    recall_questions: int
    #: mean cumulative evidence recall (percent) after each navigation round
    recall_by_round: list[float]
    #: mean executed calls of each action per question
    calls_per_action: dict[str, float]
    steps: float
    navigation_rounds: float
    pages_retrieved: float


#: A run's summary: counts, the metric's summary columns (``overall``, ``num``, ``f1``,
#: ``em``; ``<column>_questions`` where the metric counts the questions a column is over), the
#: mean evidence-page scores, usage summed over the predictions, ``agent`` measures, the
#: ``intervals`` of every score here, ``skipped`` and ``scorer`` (what the metric's model step
#: ran with). ``questions``, ``errors`` and ``missing`` are in every score file the report
#: reads; ``seconds`` and ``peak_memory_mb`` are not in the file (they change from run to run):
#: :func:`docqa.report.inputs.load_scores` adds them from the run's timings.
ScoreSummary = TypedDict(
    "ScoreSummary",
    {
        "questions": Required[int],
        "predictions": int,
        "errors": Required[int],
        "missing": Required[int],
        "infrastructure_errors": int,
        "num": Score,
        "f1": Score,
        "overall": Score,
        "em": Score,
        "overall_questions": int,
        "num_questions": int,
        "f1_questions": int,
        "em_questions": int,
        "page_precision": Score,
        "page_recall": Score,
        "page_f1": Score,
        "page_recall@1": Score,
        "page_recall@3": Score,
        "page_recall@5": Score,
        "page_mrr": Score,
        "calls": int,
        "tokens_in": int,
        "tokens_out": int,
        "image_tokens": int,
        "images_as_text": int,
        "fallbacks": int,
        "budget_retries": int,
        "pages_truncated": int,
        "pages_downscaled": int,
        #: pages read only in part under a method's character budget (docqa.core.trace.pages_cut)
        "pages_cut": int,
        "agent": AgentMeasures,
        "intervals": dict[str, Interval],
        "skipped": Skipped,
        "scorer": dict[str, Any],
        "seconds": float,
        "peak_memory_mb": float,
    },
    total=False,
)


class GroupScore(TypedDict):
    """One group of a breakdown: its questions, its headline score and that score's interval."""

    questions: int
    overall: Score
    interval: Interval


class Bootstrap(TypedDict):
    """How the intervals were drawn (:mod:`docqa.metrics.bootstrap`)."""

    method: str
    resamples: int
    seed: int
    level: float


class DocumentsSetting(TypedDict):
    """How the questions were given their documents: how many are over several, and the
    dataset's ``documents`` and ``missing_documents`` settings."""

    over_several: int
    setting: list[str]
    missing: list[str]


class ScoreFile(TypedDict):
    """One score file, in the order it is written."""

    dataset: str
    method: str
    model: str
    metric: str
    #: the metric's options, defaults filled in
    options: dict[str, Any]
    #: only where questions are over several documents or the dataset says how they got theirs
    documents: NotRequired[DocumentsSetting]
    bootstrap: Bootstrap
    summary: ScoreSummary
    #: every aggregate of the metric (MADQA's ``x_doc``, ``kuiper``...) and their intervals
    aggregate: dict[str, Any]
    aggregate_intervals: dict[str, Interval]
    #: breakdown name (``kind``, ``evidence_source``...) → group → its scores
    breakdown: dict[str, dict[str, GroupScore]]
    per_question: list[ScoreRow]
