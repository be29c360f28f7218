"""LongDocURL's official scoring, v3 (``utils/utils_score_v3.py`` of dengc2023/LongDocURL).

Gold answers are JSON values as in the benchmark's data files (int, float, string, list).
Predictions go through the two steps of LongDocURL's evaluation scripts:

1. the extracted answer string is ``eval()``-ed, a set becoming a list, and kept as the string
   when that fails (``eval/extract_concise_answer_from_vllm.py``): '5' becomes 5, "'a'" becomes
   'a', '1,234' becomes the tuple (1, 234) and '2020-2021' becomes -1;
   'Fail to extract' scores 0. Turn this off with ``parse_prediction=False`` for predictions
   that are already values;
2. ``eval_score`` by the gold's format, with LongDocURL's format names:

- :func:`clean` differs from MMLongBench-Doc's: it deletes every ',' and strips units with
  ``str.rstrip``, which removes trailing *characters*: any answer ending in 'm' loses its
  trailing m's ('Amsterdam' → 'amsterda'), '5 meters' → '5', 'kingdom' → 'kingdo'; '£' too.
- ``Integer``: ``int`` of both cleaned values ('96,395' → 96395; '17.0' and the gold 17.0
  do not parse). An unparseable prediction scores 0; an unparseable gold scores 1 exactly when
  its cleaned form is empty.
- ``Float``: both cleaned and parsed, then the shared ``float_equal`` (1% tolerance,
  gold / 100 and gold * 100, rounding); anything unparseable scores 0.
- ``String`` and ``None``: as MMLongBench-Doc (exact match kinds, else ANLS at 0.5).
- any other format (``List``): strings starting with '[' are ``eval()``-ed when they can be,
  other values become one-item lists, dict items become their values joined by '-'. Numeric
  or exact-match lists (judged by the first gold item) must be equal joined by '-' *in
  order*; otherwise each gold item takes its best ANLS against any predicted item, and the
  mean is multiplied by ``sqrt(min(1, len(gold) / len(pred)))``: a longer prediction is
  penalised, a shorter one is not.

Where the original raises (an empty gold or predicted list, a list mixing dicts with other
items) :func:`score` gives 0 and says why under ``scorer_error``.

``variant="corrected"``: units are stripped as whole words after a number ('5 m', '5kg'),
Integer compares the numbers both sides parse to (17.0 equals 17), numeric lists compare as
multisets, and empty or mixed lists are scored instead of crashing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, get_args

from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.metrics import METRICS, extraction
from docqa.metrics.aggregation import Row, accuracy_and_f1, group_accuracy, tag_values
from docqa.metrics.anls import anls
from docqa.metrics.answer_rules import float_equal, is_float, needs_exact_match, strip_decorations
from docqa.metrics.base import Metric, Scores, benchmark_gold, scored_text
from docqa.metrics.pyeval import EvalError, python_eval
from docqa.runtime.spec import Field, Options, refers_to

ANSWER_FORMATS = ("Integer", "Float", "String", "None", "List")
Variant = Literal["official", "corrected"]
VARIANTS: tuple[str, ...] = get_args(Variant)
FAILED_EXTRACTION = "Fail to extract"
ELEMENT_TYPES = ("Text", "Layout", "Figure", "Table")
# docqa's answer-format names → LongDocURL's (questions without the benchmark's own row)
FORMAT_NAMES = {"Int": "Integer", "Str": "String"}

# Checked in this order, each against the string the previous ones left.
UNITS = (
    "kg",
    "mm",
    "m",
    "meters",
    "acres",
    "minutes",
    "mile",
    "miles",
    "million",
    "thousand",
    "billion",
)
_UNIT_WORD = re.compile(rf"(?<=\d)\s*(?:{'|'.join(sorted(UNITS, key=len, reverse=True))})$")


def clean(value: object, corrected: bool = False) -> str:
    """``get_clean_string`` of LongDocURL (module docstring)."""
    text = str(value).lower().strip().replace(",", "")
    if corrected:
        text = _UNIT_WORD.sub("", text).strip()
    else:
        for unit in UNITS:
            if text.endswith(unit):
                text = text.rstrip(unit).strip()
    text = strip_decorations(text).lstrip("£").strip()
    return text.rstrip("%").strip()


def parse_prediction(text: str) -> Any:
    """Step 1 of the module docstring: the value ``eval(text)`` gives, or ``text`` itself."""
    try:
        value = python_eval(text)
    except EvalError:
        return text
    return list(value) if isinstance(value, set) else value


def score(
    gold: Any,
    pred: Any,
    *,
    answer_format: str | None = None,
    question: str | None = None,
    variant: str = "official",
    parse: bool = True,
) -> dict[str, float | str]:
    """``{"score": s}`` with s in [0, 1]; plus ``scorer_error`` where the original raises.

    ``parse`` applies step 1 to a string prediction. ``question`` is not used by this
    benchmark; ``answer_format`` ``None`` or an unknown name is scored as a list, as there.
    """
    if variant not in VARIANTS:
        raise ValueError(f"longdocurl: variant {variant!r} is not one of {VARIANTS}")
    if parse and isinstance(pred, str):
        pred = parse_prediction(pred)
    if isinstance(pred, str) and pred == FAILED_EXTRACTION:
        return {"score": 0.0}
    try:
        return {"score": _score(gold, pred, answer_format, variant == "corrected")}
    except Exception as error:  # the original crashes here; one question must not
        return {
            "score": 0.0,
            "scorer_error": f"the original crashes: {type(error).__name__}: {error}",
        }


def _score(gold: Any, pred: Any, answer_format: str | None, corrected: bool) -> float:
    if answer_format == "Integer":
        return float(_integer_score(gold, pred, corrected))
    if answer_format == "Float":
        return float(_float_score(gold, pred, corrected))
    if answer_format in ("String", "None"):
        gold, pred = clean(gold, corrected), clean(pred, corrected)
        return float(gold == pred) if needs_exact_match(gold) else anls(gold, pred)
    return _list_score(gold, pred, corrected)


def _integer_score(gold: Any, pred: Any, corrected: bool) -> bool:
    gold, pred = clean(str(gold), corrected), clean(str(pred), corrected)
    if corrected:
        return is_float(gold) and is_float(pred) and float(gold) == float(pred)
    try:
        gold = int(gold)
    except ValueError:
        pass
    try:
        pred = int(pred)
    except ValueError:
        pred = ""
    return bool(gold == pred)


def _float_score(gold: Any, pred: Any, corrected: bool) -> bool:
    gold, pred = clean(str(gold), corrected), clean(str(pred), corrected)
    if not is_float(gold):
        return False  # the original's float_equal raises, and its caller scores 0
    return float_equal(float(gold), float(pred) if is_float(pred) else pred)


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, str) and value.startswith("["):
        try:
            value = python_eval(value)
        except EvalError:
            pass
    return value if isinstance(value, list) else [value]


def _joined_values(items: list[Any], corrected: bool) -> list[Any]:
    """Dict items become their values joined by '-' (judged by the first item, as there)."""
    if corrected:
        return [_join(item) if isinstance(item, dict) else item for item in items]
    if isinstance(items[0], dict):
        return [_join(item) for item in items]
    return items


def _join(item: dict[Any, Any]) -> str:
    return "-".join(str(value) for value in item.values())


def _list_score(gold: Any, pred: Any, corrected: bool) -> float:
    golds, preds = _as_list(gold), _as_list(pred)
    if corrected and (not golds or not preds):
        return float(not golds and not preds)
    golds = [clean(item, corrected) for item in _joined_values(golds, corrected)]
    preds = [clean(item, corrected) for item in _joined_values(preds, corrected)]
    if is_float(golds[0]) or needs_exact_match(golds[0]):
        if corrected:
            return float(sorted(golds) == sorted(preds))
        return float("-".join(golds) == "-".join(preds))
    best = [max(anls(g, p) for p in preds) for g in golds]
    return sum(best) / len(golds) * min(1, len(golds) / len(preds)) ** 0.5


def _page_group(row: Row) -> list[str]:
    """``calculate_metrics_fine_grained``: more than one evidence page is Multi_Page, one is
    Single_Page, none is neither."""
    count = len(row["evidence_pages"])
    return ["Multi_Page"] if count > 1 else ["Single_Page"] if count == 1 else []


BREAKDOWNS: dict[str, Callable[[Row], list[str]]] = {
    "task": lambda row: tag_values(row, "task_tag"),
    "evidence_source": lambda row: [
        source for source in tag_values(row, "evidence_sources") if source in ELEMENT_TYPES
    ],
    "evidence_pages": _page_group,
    "element_count": lambda row: (
        ["Cross_Element"] if len(tag_values(row, "evidence_sources")) > 1 else []
    ),
}


def totals(rows: Sequence[Row]) -> dict[str, Any]:
    """Accuracy, generalized F1 (with its recall and precision) and the number of questions,
    as MMLongBench-Doc (``calculate_acc_and_f1``)."""
    return {**accuracy_and_f1(rows), "questions": len(rows)}


def aggregate(rows: Sequence[Row]) -> dict[str, Any]:
    """:func:`totals` with LongDocURL's breakdowns (``calculate_metrics_fine_grained.py``).

    Per group, the accuracy and the number of questions: by task (tag ``task_tag``:
    Understanding, Reasoning, Locating), by element type (tag ``evidence_sources``, only Text,
    Layout, Figure and Table count), by evidence pages (Single_Page, Multi_Page) and
    Cross_Element (questions with more than one evidence source).
    """
    breakdown = {name: group_accuracy(rows, groups) for name, groups in BREAKDOWNS.items()}
    return {**totals(rows), "breakdown": breakdown}


class LongDocURLOptions(Options):
    """The options of metric ``longdocurl``."""

    variant: Variant = Field(
        default="official",
        description="official: the benchmark's scorer as published; corrected: its bugs fixed",
    )
    parse: bool = Field(
        default=True,
        description="parse a free-text prediction into an answer first (LongDocURL's step 1)",
    )
    model: str | None = refers_to(
        "models",
        None,
        "the model that extracts the short answer first; null: rule-based extraction",
    )


def _score_question(
    question: Question, prediction: Prediction, prepared: Scores, options: LongDocURLOptions
) -> Scores:
    if prepared.get("step_error"):  # LongDocURL scores 'Fail to extract' 0
        return {"score": 0.0}
    fmt = question.original.get("answer_format") or question.answer_format
    return score(
        benchmark_gold(question),
        scored_text(prediction, prepared),
        answer_format=FORMAT_NAMES.get(fmt, fmt),
        variant=options.variant,
        parse=options.parse,
    )


METRICS.register("longdocurl", options=LongDocURLOptions)(
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
