"""MMLongBench-Doc's official scoring (``eval/eval_score.py`` of mayubo2333/MMLongBench-Doc).

The benchmark scores an answer *extracted* from the model's response (see
:mod:`docqa.metrics.extraction`) by the gold's answer format:

- ``Int``: ``int(gold) == int(float(pred))``, so '17.9' matches 17 (truncation), '1_000' and
  ' 5 ' parse, '1,000' does not. An unparseable prediction scores 0; a gold that is not an
  integer string scores 1 exactly when it is the empty string.
- ``Float``: both cleaned (:func:`clean`) and parsed, then
  :func:`~docqa.metrics.answer_rules.float_equal`: 1% relative tolerance against the gold, the
  gold / 100 and the gold * 100, or equality after rounding.
- ``Str`` and ``None``: both cleaned; equality when the gold is an exact-match kind (URL,
  code file, page reference, phone number or bare integer, time, date, e-mail), else ANLS
  with the 0.5 cut-off.
- any other format (``List``): gold and prediction strings that start with '[' are
  ``eval()``-ed (here: :func:`~docqa.metrics.pyeval.python_eval`), other values become
  one-item lists; different lengths score 0; else both lists are cleaned and sorted as
  strings, and compared joined by '-' when the first gold item parses as a float or is an
  exact-match kind, else by the *minimum* ANLS of the aligned pairs.

Where the original raises (a gold Float that does not parse, a prediction list that ``eval()``
rejects, two empty lists), :func:`score` gives 0 and says why under ``scorer_error``.

``variant="corrected"`` fixes what is plainly wrong, and nothing else: two empty lists match,
a list prediction that does not evaluate is one string item (as LongDocURL does), and an
empty ``Int`` gold no longer matches every unparseable prediction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, get_args

from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.metrics import METRICS, extraction
from docqa.metrics.aggregation import (
    NOT_ANSWERABLE,
    Row,
    accuracy_and_f1,
    group_accuracy,
    tag_values,
)
from docqa.metrics.anls import anls
from docqa.metrics.answer_rules import float_equal, is_float, needs_exact_match, strip_decorations
from docqa.metrics.base import Metric, Scores, benchmark_gold, scored_text
from docqa.metrics.pyeval import EvalError, python_eval
from docqa.runtime.spec import Field, Options, refers_to

ANSWER_FORMATS = ("Int", "Float", "Str", "None", "List")
Variant = Literal["official", "corrected"]
VARIANTS: tuple[str, ...] = get_args(Variant)


class MMLongBenchDocOptions(Options):
    """The options of metric ``mmlongbench_doc``."""

    variant: Variant = Field(
        default="official",
        description="official: the benchmark's scorer as published; corrected: its bugs fixed",
    )
    model: str | None = refers_to(
        "models",
        None,
        "the model that extracts the short answer first; null: rule-based extraction",
    )


def clean(value: object) -> str:
    """``get_clean_string``: lowercase, strip, drop '(...)', outer quotes, '$' and '%'.

    The original's lines that look as if they strip 'mile', 'miles' and 'million' do nothing
    (``s.rstrip(...)`` without assigning the result), so nothing happens here either.
    """
    return strip_decorations(str(value).lower().strip()).rstrip("%").strip()


def score(
    gold: Any,
    pred: Any,
    *,
    answer_format: str | None = None,
    question: str | None = None,
    variant: str = "official",
) -> dict[str, float | str]:
    """``{"score": s}`` with s in [0, 1]; plus ``scorer_error`` where the original raises.

    ``question`` is not used by this benchmark. ``answer_format`` ``None`` (or any name not in
    ``Int``/``Float``/``Str``/``None``) is scored as a list, as the original does.
    """
    if variant not in VARIANTS:
        raise ValueError(f"mmlongbench_doc: variant {variant!r} is not one of {VARIANTS}")
    try:
        return {"score": _score(gold, pred, answer_format, variant == "corrected")}
    except Exception as error:  # the original crashes here; one question must not
        return {"score": 0.0, "scorer_error": _why(error)}


def _why(error: Exception) -> str:
    if isinstance(error, EvalError):
        return f"the original crashes: {error}"
    return f"the original crashes: {type(error).__name__}: {error}"


def _score(gold: Any, pred: Any, answer_format: str | None, corrected: bool) -> float:
    if answer_format == "Int":
        return float(_int_score(gold, pred, corrected))
    if answer_format == "Float":
        return float(_float_score(gold, pred))
    if answer_format in ("Str", "None"):
        gold, pred = clean(gold), clean(pred)
        return float(gold == pred) if needs_exact_match(gold) else anls(gold, pred)
    return _list_score(gold, pred, corrected)


def _int_score(gold: Any, pred: Any, corrected: bool) -> bool:
    try:  # both parse before either is replaced, as in ``gt, pred = int(gt), int(float(pred))``
        gold, pred = int(gold), int(float(pred))
    except Exception:  # the original's bare except
        if corrected:
            return False
        pred = ""
    return bool(gold == pred)


def _float_score(gold: Any, pred: Any) -> bool:
    try:
        gold = float(clean(str(gold)))
        pred = float(clean(str(pred)))
    except Exception:
        pred = ""
    return float_equal(gold, pred)


def _as_list(value: Any, corrected: bool) -> list[Any]:
    if isinstance(value, str) and value.startswith("["):
        try:
            value = python_eval(value)
        except EvalError:
            if not corrected:
                raise
    return value if isinstance(value, list) else [value]


def _list_score(gold: Any, pred: Any, corrected: bool) -> float:
    golds, preds = _as_list(gold, corrected), _as_list(pred, corrected)
    if len(golds) != len(preds):
        return 0.0
    if corrected and not golds:
        return 1.0
    golds = sorted(clean(item) for item in golds)
    preds = sorted(clean(item) for item in preds)
    if is_float(golds[0]) or needs_exact_match(golds[0]):
        return float("-".join(golds) == "-".join(preds))
    return min(anls(g, p) for g, p in zip(golds, preds, strict=True))


def _page_group(row: Row) -> list[str]:
    """``show_results``: single-page is one evidence page (unanswerable ones included),
    cross-page is any other count of an answerable question, unanswerable is the gold."""
    groups = []
    if len(row["evidence_pages"]) == 1:
        groups.append("single-page")
    if row["gold"] == NOT_ANSWERABLE:
        groups.append("unanswerable")
    elif len(row["evidence_pages"]) != 1:
        groups.append("cross-page")
    return groups


BREAKDOWNS: dict[str, Callable[[Row], list[str]]] = {
    "evidence_pages": _page_group,
    "evidence_source": lambda row: tag_values(row, "evidence_sources"),
    "doc_type": lambda row: tag_values(row, "doc_type"),
}


def totals(rows: Sequence[Row]) -> dict[str, Any]:
    """Accuracy, generalized F1 (with its recall and precision) and the number of questions."""
    return {**accuracy_and_f1(rows), "questions": len(rows)}


def aggregate(rows: Sequence[Row]) -> dict[str, Any]:
    """:func:`totals` and ``show_results``' breakdowns of a set of scored rows.

    Rows are described in :mod:`docqa.metrics.aggregation`. The breakdowns give, per group,
    the accuracy and the number of questions: by evidence pages (single-page, cross-page,
    unanswerable), by evidence source (tag ``evidence_sources``), by document type (tag
    ``doc_type``).
    """
    breakdown = {name: group_accuracy(rows, groups) for name, groups in BREAKDOWNS.items()}
    return {**totals(rows), "breakdown": breakdown}


def _score_question(
    question: Question, prediction: Prediction, prepared: Scores, options: MMLongBenchDocOptions
) -> Scores:
    if prepared.get("step_error"):  # run_lvlm.py scores a failed extraction 0
        return {"score": 0.0}
    return score(
        benchmark_gold(question),
        scored_text(prediction, prepared),
        answer_format=question.answer_format,
        variant=options.variant,
    )


METRICS.register("mmlongbench_doc", options=MMLongBenchDocOptions)(
    Metric(
        score=_score_question,
        aggregate=lambda rows, options: totals(rows),
        breakdowns=BREAKDOWNS,
        columns={"overall": "acc", "f1": "f1"},
        row_score="score",
        prepare=extraction.prepare,
        describe=lambda options: extraction.describe(options.model),
    )
)
