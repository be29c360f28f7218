"""SlideAgent's Num, F1 and Overall (Jin et al. 2025, arXiv:2510.26615), re-implemented.

The paper describes the metrics but its code is not public, so the rules below are ours where
the paper is silent. Per question, with a list gold answer joined by ', ':

- Unanswerable gold (answer format "None", or the gold "Not answerable"): 1 if the prediction
  says the question cannot be answered (:func:`~docqa.metrics.unanswerable.says_not_answerable`),
  else 0. It counts in the F1 column.
- Numeric gold (:func:`~docqa.metrics.numbers.parse_number` finds exactly one number in it):
  Num is 1 if the number the prediction states equals the gold's after normalisation ('17k',
  '17,000' and 'seventeen thousand' are all 17000; '97%' is 0.97), else 0. The prediction's
  number is the first one it mentions ('The revenue was 17k in 2019' → 17000). ``rel_tol``
  (default 0) is the relative tolerance of the comparison.
- Any other gold: F1 is :func:`~docqa.metrics.text_f1.token_f1`.

Overall per question is the question's Num or F1. Over a set, option ``overall`` (the paper
does not give its weighting):

- ``per_question`` (default): the mean of the per-question Overall, every question weighing
  the same;
- ``mean_of_num_and_f1``: the mean of the Num column and the F1 column (of the columns that
  have questions), both kinds of question weighing the same whatever their counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any, Literal, get_args

from docqa.core.prediction import Prediction
from docqa.core.question import UNANSWERABLE, Question
from docqa.metrics import METRICS
from docqa.metrics.base import Metric, Scores, gold_text
from docqa.metrics.numbers import extract_number, numbers_equal, parse_number
from docqa.metrics.text_f1 import token_f1
from docqa.metrics.unanswerable import says_not_answerable, words
from docqa.runtime.spec import Field, Options

Overall = Literal["per_question", "mean_of_num_and_f1"]
OVERALL_CHOICES: tuple[str, ...] = get_args(Overall)


class SlideAgentOptions(Options):
    """The options of metric ``slideagent``."""

    overall: Overall = Field(
        default="per_question",
        description="Overall of a set: the mean per question, or of the Num and F1 columns",
    )
    rel_tol: float = Field(
        default=0.0, ge=0, description="relative tolerance of the numeric comparison (Num)"
    )


def score(
    gold: Any,
    pred: str,
    *,
    answer_format: str | None = None,
    question: str | None = None,
    rel_tol: float = 0.0,
) -> dict[str, float | None]:
    """``num`` (``None`` when the gold is not numeric), ``f1`` (``None`` when it is) and
    ``overall`` of one prediction; ``question`` is not used by this recipe."""
    expected_text = gold_text(gold)
    if answer_format == "None" or words(expected_text) == words(UNANSWERABLE):
        correct = float(says_not_answerable(pred))
        return {"num": None, "f1": correct, "overall": correct}
    expected = parse_number(expected_text)
    if expected is not None:
        stated = extract_number(pred)
        hit = float(stated is not None and numbers_equal(stated, expected, rel_tol))
        return {"num": hit, "f1": None, "overall": hit}
    f1 = token_f1(pred, expected_text)
    return {"num": None, "f1": f1, "overall": f1}


def aggregate(
    rows: Sequence[Mapping[str, Any]], *, overall: str = "per_question"
) -> dict[str, Any]:
    """Num, F1 and Overall of a set of scored rows (``None`` where no question counts), with
    the number of questions in each column."""
    if overall not in OVERALL_CHOICES:
        raise ValueError(f"slideagent: overall={overall!r} is not one of {OVERALL_CHOICES}")
    nums = [row["num"] for row in rows if row["num"] is not None]
    f1s = [row["f1"] for row in rows if row["f1"] is not None]
    if overall == "per_question":
        headline = fmean(row["overall"] for row in rows) if rows else None
    else:
        means = [fmean(column) for column in (nums, f1s) if column]
        headline = fmean(means) if means else None
    return {
        "num": fmean(nums) if nums else None,
        "f1": fmean(f1s) if f1s else None,
        "overall": headline,
        "num_questions": len(nums),
        "f1_questions": len(f1s),
    }


def _score_question(
    question: Question, prediction: Prediction, prepared: Scores, options: SlideAgentOptions
) -> Scores:
    return score(
        question.answer,
        prediction.answer,
        answer_format=question.answer_format,
        rel_tol=options.rel_tol,
    )


METRICS.register("slideagent", options=SlideAgentOptions)(
    Metric(
        score=_score_question,
        aggregate=lambda rows, options: aggregate(rows, overall=options.overall),
        columns={"overall": "overall", "num": "num", "f1": "f1"},
        row_score="overall",
    )
)
