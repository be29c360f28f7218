"""How the score stage runs a scorer: the :class:`Metric` each scorer module registers.

A scorer module (``docqa.metrics.mmlongbench_doc``, ...) offers the benchmark's own pure
functions, ``score(gold, pred, *, answer_format=None, question=None)`` and
``aggregate(rows)``, with the benchmark's names. Its :class:`Metric` adapts them to docqa's
:class:`~docqa.core.question.Question` and adds what the score stage needs: the summary
columns, and an optional model step (answer extraction, judging) run before scoring.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from docqa.backends.client import ModelClient
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.runtime.spec import Options

Row = Mapping[str, Any]
Scores = dict[str, Any]
#: a metric's option spec (registered with it: ``METRICS.register(name, options=Spec)``)
SpecT = TypeVar("SpecT", bound=Options)

# prepare(questions, answers, options, client) -> one dict per question, merged into its row
# and handed to ``score``; a non-empty ``step_error`` there says the step failed for that
# question. ``client`` is None when no model is configured.
Prepare = Callable[
    [Sequence[Question], Sequence[str], SpecT, ModelClient | None], Awaitable[list[Scores]]
]

SUMMARY_COLUMNS = ("overall", "num", "f1", "em")


@dataclass(frozen=True)
class Metric(Generic[SpecT]):
    """A registered scorer; ``options`` below is its validated option spec
    (:func:`docqa.metrics.resolve_options`).

    - ``score(question, prediction, prepared, options)``: the question's scores, fractions
      in [0, 1] or ``None`` where undefined, plus text fields such as ``scorer_error``;
      ``prepared`` is what ``prepare`` gave for the question (``{}`` without a step); a
      ``pred`` there replaces the prediction's answer as the text scored (:func:`scored_text`);
    - ``aggregate(rows, options)``: the scorer's aggregates of a set of rows (each row holds
      the scores and ``gold``, ``pred``, ``answer_format``, ``evidence_pages`` and ``tags``),
      a flat mapping: statistics are floats (or ``None``), counts are ints;
    - ``breakdowns``: the benchmark's own groupings of rows (name → the groups a row falls
      in); the score stage reports the headline aggregate per group;
    - ``columns``: summary column (``overall``, ``num``, ``f1``, ``em``) → aggregate key;
    - ``row_score``: the per-question key that is the question's headline ``score``;
    - ``prepare``: the model step, if any; ``describe(options)`` says what it ran with;
    - ``unscaled``: aggregate keys that are not fractions, reported unscaled.

    Option ``model`` (when the spec has one) names the configured model of the model step;
    ``None`` means no model.
    """

    score: Callable[[Question, Prediction, Scores, SpecT], Scores]
    aggregate: Callable[[Sequence[Row], SpecT], dict[str, Any]]
    columns: Mapping[str, str]
    row_score: str
    breakdowns: Mapping[str, Callable[[Row], list[str]]] = field(default_factory=dict)
    prepare: Prepare[SpecT] | None = None
    describe: Callable[[SpecT], dict[str, Any]] = lambda options: {}
    #: aggregates that are not fractions (a statistic, a ratio, a mean count): the score file
    #: gives them as they are, not as percentages
    unscaled: tuple[str, ...] = ()

    def uses_model(self, options: Options) -> bool:
        return self.prepare is not None and getattr(options, "model", None) is not None


def scored_text(prediction: Prediction, prepared: Scores) -> str:
    """The text a scorer compares with the gold: the extracted answer if a step extracted one."""
    return str(prepared.get("pred", prediction.answer))


def benchmark_gold(question: Question) -> Any:
    """The gold answer as the benchmark's own row gives it (``Question.original``), which the
    official scorers expect (LongDocURL's JSON numbers, MMLongBench-Doc's list strings); the
    adapter's converted answer when the row was not kept."""
    return question.original.get("answer", question.answer)


def gold_text(answer: Any) -> str:
    """A gold answer as one string: a list's items joined by ', ', other values by ``str``."""
    if isinstance(answer, str):
        return answer
    if isinstance(answer, list):
        return ", ".join(str(item) for item in answer)
    return str(answer)


def judge_client(metric: str, model: str | None, client: ModelClient | None) -> ModelClient:
    """The client of a metric whose model step needs its model ``model`` (a judge); an error
    naming the fix when the config names none or the score stage was given none."""
    if model is None:
        raise ValueError(
            f"metric {metric!r} needs a judge model: set metrics.{metric}.model to the name of "
            "a model defined under 'models:'"
        )
    if client is None:
        raise ValueError(
            f"metric {metric!r} needs its model {model!r}, but the score stage was "
            "given no backend for it; pass one to docqa.stages.score.score_run(..., backend=...)"
        )
    return client
