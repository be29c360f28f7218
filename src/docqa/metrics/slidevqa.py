"""SlideVQA's official QA and evidence-selection scores (``evaluate.py`` of
nttmdlab-nlp/SlideVQA, commit e1f0bd9).

QA: both answers are normalised (:func:`normalize_answer`) and split on whitespace; F1 is over
token multisets and EM is equality of the token lists. When no token is shared, precision,
recall, F1 and EM are all 0, even for two empty answers. Evidence selection (ES) scores the
predicted evidence pages against the gold ones the same way, as lists of page numbers: F1
over multisets, EM as list equality (so order matters to EM). The joint ("Main") score takes,
per question, precision P_qa * P_es and recall R_qa * R_es.

The script does not run as shipped. Three fixes make it run, and change nothing else (the
casebook in ``tests/data/scorer_cases`` was built by the script with exactly these): the gold
lines are read into their own name instead of being overwritten by ``gts = {}`` before the
loop that reads them; the question is taken from the gold line (``pred['question']`` names
an undefined ``pred``); and the joint metrics call ``evaluate_f1_em_main`` (the script calls
a missing ``evaluate_f1_main``). The normalisation, quirks included (they produced the
published numbers):

1. lowercase; 2. replace, in this order and anywhere in the text (substrings too):
   'this is ' and 'it is ' → '', '&' and 'and' → ',' (so 'hand' → 'h,', 'thousand' →
   'thous,'), 'percent' → '', 'organisation' → 'organization', 'because of', 'because',
   'due to' → '', 'hours' → 'hrs', 'minites' → 'min';
3. when the question contains 'how many' (or then 'which'), the word after it is deleted
   from the answer wherever it occurs as a substring. The question is not lowercased, so
   'How many ...' at the start of a question never triggers it; a question ending in
   'how many' makes the original raise ``IndexError`` (here: score 0 and ``scorer_error``);
4. ASCII punctuation is deleted; 5. 'a', 'an', 'the' become spaces;
6. an answer starting with the letters 'yes' or 'no' keeps only its first word ('north
   america' → 'north', 'yesterday evening' → 'yesterday'); 7. whitespace is collapsed;
8. the words zero..nineteen become digits.

``normalization="corrected"`` lowercases the question, replaces and deletes whole words only,
deletes the unit word only as a whole word (and not at all when nothing follows 'how many'),
keeps only 'yes'/'no' when that is the whole first word, and deletes Unicode punctuation too.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.metrics import METRICS
from docqa.metrics.base import Metric, Scores, gold_text
from docqa.runtime.spec import Field, Options

Normalization = Literal["official", "corrected"]
NORMALIZATIONS: tuple[str, ...] = get_args(Normalization)


class SlideVQAOptions(Options):
    """The options of metric ``slidevqa``."""

    normalization: Normalization = Field(
        default="official",
        description="official: evaluate.py's answer normalisation; corrected: whole words only",
    )


WORD_NUMBERS = {
    word: str(value)
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
# (old, new), applied in this order with str.replace.
REPLACEMENTS = (
    ("this is ", ""),
    ("it is ", ""),
    ("&", ","),
    ("and", ","),
    ("percent", ""),
    ("organisation", "organization"),
    ("because of", ""),
    ("because", ""),
    ("due to", ""),
    ("hours", "hrs"),
    ("minites", "min"),
)
# The corrected normalisation's replacements: whole words only.
WORD_REPLACEMENTS = tuple(
    (re.compile(pattern), new)
    for pattern, new in (
        (r"\bthis is\b", " "),
        (r"\bit is\b", " "),
        (r"&", " "),
        (r"\band\b", " "),
        (r"\bpercent\b", " "),
        (r"\borganisation\b", "organization"),
        (r"\bbecause of\b", " "),
        (r"\bbecause\b", " "),
        (r"\bdue to\b", " "),
        (r"\bhours\b", "hrs"),
        (r"\bminites\b", "min"),
    )
)
UNIT_CUES = ("how many", "which")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ASCII_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str, question: str = "", normalization: str = "official") -> str:
    """The normalised answer (module docstring); ``question`` drives the unit deletion."""
    if normalization not in NORMALIZATIONS:
        raise ValueError(
            f"slidevqa: normalization {normalization!r} is not one of {NORMALIZATIONS}"
        )
    corrected = normalization == "corrected"
    text = text.lower()
    text = _replace_words(text) if corrected else _replace(text)
    text = _remove_unit(text, question.lower() if corrected else question, corrected)
    text = "".join(c for c in text if not _is_punctuation(c, corrected))
    text = _ARTICLES.sub(" ", text)
    text = _first_word_if_yes_no(text, corrected)
    return " ".join(WORD_NUMBERS.get(word, word) for word in text.split())


def _replace(text: str) -> str:
    for old, new in REPLACEMENTS:
        text = text.replace(old, new)
    return text


def _replace_words(text: str) -> str:
    for pattern, new in WORD_REPLACEMENTS:
        text = pattern.sub(new, text)
    return text


def _remove_unit(text: str, question: str, corrected: bool) -> str:
    for cue in UNIT_CUES:
        if cue not in question:
            continue
        rest = question[question.find(cue) + len(cue) :].split()
        if corrected:
            unit = rest[0].strip(string.punctuation) if rest else ""
            if unit:
                text = re.sub(rf"\b{re.escape(unit)}\b", "", text)
        else:
            text = text.replace(rest[0], "")  # IndexError when nothing follows, as there
    return text


def _is_punctuation(char: str, corrected: bool) -> bool:
    if char in _ASCII_PUNCTUATION:
        return True
    return corrected and unicodedata.category(char).startswith("P")


def _first_word_if_yes_no(text: str, corrected: bool) -> str:
    if corrected:
        words = text.split()
        return words[0] if words and words[0] in ("yes", "no") else text
    if text[:3] == "yes" or text[:2] == "no":
        return text.split()[0]
    return text


def _overlap(pred: Sequence[Any], gold: Sequence[Any]) -> dict[str, float]:
    """Precision, recall, F1 and EM of two token (or page) lists, as ``evaluate.py``."""
    same = sum((Counter(pred) & Counter(gold)).values())
    if same == 0:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0, "em": 0.0}
    precision, recall = same / len(pred), same / len(gold)
    return {
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / (precision + recall),
        "em": float(list(pred) == list(gold)),
    }


def score(
    gold: str,
    pred: str,
    *,
    answer_format: str | None = None,
    question: str | None = None,
    normalization: str = "official",
) -> dict[str, float | str]:
    """QA ``f1``, ``em``, ``precision`` and ``recall`` of one answer, in [0, 1].

    ``question`` is the question text (``None`` is read as ''); ``answer_format`` is not used
    by this benchmark. Where the original raises, all four are 0 and ``scorer_error`` says why.
    """
    try:
        pred_tokens = normalize_answer(str(pred), question or "", normalization).split()
        gold_tokens = normalize_answer(str(gold), question or "", normalization).split()
    except IndexError as error:
        return {
            **_overlap([], []),
            "scorer_error": f"the original crashes: IndexError: {error} "
            f"(nothing follows a unit cue in the question {question!r})",
        }
    scores: dict[str, float | str] = {**_overlap(pred_tokens, gold_tokens)}
    return scores


def evidence(gold_pages: Sequence[int], pred_pages: Sequence[int]) -> dict[str, float]:
    """Evidence-selection ``es_precision``, ``es_recall``, ``es_f1`` and ``es_em``."""
    return {f"es_{key}": value for key, value in _overlap(pred_pages, gold_pages).items()}


def _joint(row: Mapping[str, Any]) -> tuple[float, float]:
    """One question's joint F1 and EM (``evaluate_f1_em_main``)."""
    precision = row["precision"] * row["es_precision"]
    recall = row["recall"] * row["es_recall"]
    if precision + recall == 0:
        return 0.0, 0.0
    both_exact = float(row["em"] == row["es_em"] == 1)
    return 2 * precision * recall / (precision + recall), both_exact


def aggregate(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Means over questions: QA ``f1`` and ``em``; with ES scores in every row also ``es_f1``,
    ``es_em`` and the joint ``joint_f1`` and ``joint_em``. ``None`` for no rows."""
    count = len(rows)
    result: dict[str, Any] = {
        "f1": _mean([row["f1"] for row in rows]),
        "em": _mean([row["em"] for row in rows]),
        "questions": count,
    }
    if rows and all("es_f1" in row for row in rows):
        joint = [_joint(row) for row in rows]
        result.update(
            {
                "es_f1": _mean([row["es_f1"] for row in rows]),
                "es_em": _mean([row["es_em"] for row in rows]),
                "joint_f1": _mean([f1 for f1, _ in joint]),
                "joint_em": _mean([em for _, em in joint]),
            }
        )
    return result


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _score_question(
    question: Question, prediction: Prediction, prepared: Scores, options: SlideVQAOptions
) -> Scores:
    return {
        **score(
            gold_text(question.answer),
            prediction.answer,
            question=question.question,
            normalization=options.normalization,
        ),
        **evidence(question.evidence_in(question.doc_id), prediction.pages),
    }


METRICS.register("slidevqa", options=SlideVQAOptions)(
    Metric(
        score=_score_question,
        aggregate=lambda rows, options: aggregate(rows),
        columns={"overall": "f1", "f1": "f1", "em": "em"},
        row_score="f1",
    )
)
