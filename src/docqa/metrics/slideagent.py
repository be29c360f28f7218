"""SlideAgent's Num, F1 and Overall (Jin et al. 2025, arXiv:2510.26615), re-implemented.

The paper describes the metrics but its code is not public, so the rules below are ours where
the paper is silent. Per question, with a list gold answer joined by ', ':

- Unanswerable gold (answer format "None", or the gold "Not answerable"): 1 if the prediction
  says the question cannot be answered (one of :data:`NOT_ANSWERABLE_PHRASES` appears in it,
  compared as lowercase words without punctuation), else 0. It counts in the F1 column.
- Numeric gold (:func:`~docqa.metrics.numbers.is_numeric_answer`: the gold states exactly one
  number): Num is 1 if the number the prediction states equals the gold's after normalisation,
  else 0. The prediction's number is :func:`~docqa.metrics.numbers.extract_number`, the first
  one it mentions ('The revenue was 17k in 2019' → 17000). Option ``rel_tol`` (default 0) is
  the relative tolerance of the comparison.
- Any other gold: F1 is :func:`~docqa.metrics.text_f1.token_f1`.

Overall, option ``overall`` (the paper does not give its weighting):

- ``per_question`` (default): the mean over all questions of each question's score, Num for
  numeric golds and F1 for the others, so every question weighs the same;
- ``mean_of_num_and_f1``: the mean of the Num column and the F1 column (of the columns that
  have questions), so both kinds of question weigh the same whatever their counts.
"""

from __future__ import annotations

import re
from statistics import fmean
from typing import Sequence

from docqa.metrics import METRICS
from docqa.metrics.base import AnswerScore, Metric, Options
from docqa.metrics.numbers import extract_number, numbers_equal, parse_number
from docqa.metrics.text_f1 import token_f1
from docqa.question import UNANSWERABLE, Question

OVERALL_CHOICES = ("per_question", "mean_of_num_and_f1")
DEFAULTS: Options = {"overall": "per_question", "rel_tol": 0.0}

NOT_ANSWERABLE_PHRASES = (
    "not answerable",
    "unanswerable",
    "cannot be answered",
    "can not be answered",
    "cant be answered",
    "cannot answer",
    "cant answer",
    "cannot be determined",
    "not enough information",
    "insufficient information",
    "no answer",
)


def gold_text(answer: str | list[str]) -> str:
    """A gold answer as one string: a list's items joined by ', '."""
    return answer if isinstance(answer, str) else ", ".join(answer)


def _words(text: str) -> str:
    text = text.lower().replace("'", "").replace("’", "")
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def says_not_answerable(answer: str) -> bool:
    """Whether a prediction says the question cannot be answered."""
    words = f" {_words(answer)} "
    return any(f" {phrase} " in words for phrase in NOT_ANSWERABLE_PHRASES)


def is_unanswerable(question: Question) -> bool:
    """Whether the gold says there is no answer (answer format "None" or "Not answerable")."""
    return not question.answerable or _words(gold_text(question.answer)) == _words(UNANSWERABLE)


def score_answer(question: Question, answer: str, options: Options) -> AnswerScore:
    """One predicted answer's score against the question's gold answer."""
    gold = gold_text(question.answer)
    if is_unanswerable(question):
        correct = float(says_not_answerable(answer))
        return AnswerScore(score=correct, numeric=False, f1=correct)
    expected = parse_number(gold)
    if expected is not None:
        stated = extract_number(answer)
        hit = stated is not None and numbers_equal(stated, expected, float(options["rel_tol"]))
        return AnswerScore(score=float(hit), numeric=True, num=float(hit))
    f1 = token_f1(answer, gold)
    return AnswerScore(score=f1, numeric=False, f1=f1)


def overall(scores: Sequence[AnswerScore], options: Options) -> float | None:
    """The headline score of a set of questions, a fraction; ``None`` for no questions."""
    if options["overall"] == "per_question":
        return fmean(s.score for s in scores) if scores else None
    columns = [
        [s.num for s in scores if s.num is not None],
        [s.f1 for s in scores if s.f1 is not None],
    ]
    means = [fmean(column) for column in columns if column]
    return fmean(means) if means else None


def check_options(options: Options) -> None:
    """Raise ``ValueError`` naming the option whose value is not allowed."""
    if options["overall"] not in OVERALL_CHOICES:
        raise ValueError(
            f"metric 'slideagent': option overall={options['overall']!r} is not one of "
            f"{OVERALL_CHOICES}"
        )
    rel_tol = options["rel_tol"]
    if isinstance(rel_tol, bool) or not isinstance(rel_tol, (int, float)) or rel_tol < 0:
        raise ValueError(
            f"metric 'slideagent': option rel_tol={rel_tol!r} must be a number >= 0"
        )


SLIDEAGENT = METRICS.register("slideagent")(
    Metric(defaults=DEFAULTS, score=score_answer, overall=overall, check=check_options)
)
