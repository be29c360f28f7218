"""No scorer raises on any string input, and every score stays in [0, 1] (hypothesis)."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docqa.metrics import longdocurl, mmlongbench_doc, slideagent, slidevqa
from docqa.metrics.extraction import extract_by_rules, parse_extraction
from docqa.metrics.judge import parse_verdict
from docqa.metrics.pyeval import EvalError, python_eval

# Text that reaches the scorers' branches: digits, separators, list brackets, quotes, units,
# exact-match markers, unit cues, as well as arbitrary unicode.
PIECES = st.sampled_from(
    [
        "0",
        "7",
        "17",
        "3.5",
        "1,000",
        "-",
        "%",
        "$",
        "£",
        "[",
        "]",
        "'",
        '"',
        ",",
        " ",
        "(",
        ")",
        "e",
        "kg",
        "m",
        "million",
        "a.m.",
        "https://",
        ".py",
        "page",
        "@x.com",
        "how many",
        "which",
        "and",
        "no",
        "yes",
        "the",
        "Not answerable",
        "Fail to extract",
        "[]",
        "{",
        "}",
        ":",
        "9**9",
        "ß",
        "١٢",
        "\n",
        "\x00",
    ]
)
TEXT = st.one_of(st.text(max_size=30), st.lists(PIECES, max_size=8).map("".join))
FORMATS = st.sampled_from([*mmlongbench_doc.ANSWER_FORMATS, *longdocurl.ANSWER_FORMATS, "", "X"])
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def in_unit_interval(scores: dict) -> bool:
    return all(v is None or 0.0 <= v <= 1.0 for k, v in scores.items() if isinstance(v, float))


@SETTINGS
@given(gold=TEXT, pred=TEXT, fmt=FORMATS, variant=st.sampled_from(["official", "corrected"]))
def test_mmlongbench_doc_never_raises(gold: str, pred: str, fmt: str, variant: str) -> None:
    got = mmlongbench_doc.score(gold, pred, answer_format=fmt, variant=variant)
    assert in_unit_interval(got)


@SETTINGS
@given(
    gold=st.one_of(TEXT, st.integers(), st.floats(), st.lists(TEXT, max_size=3)),
    pred=TEXT,
    fmt=FORMATS,
    variant=st.sampled_from(["official", "corrected"]),
)
def test_longdocurl_never_raises(gold: object, pred: str, fmt: str, variant: str) -> None:
    got = longdocurl.score(gold, pred, answer_format=fmt, variant=variant)
    assert in_unit_interval(got)


@SETTINGS
@given(
    gold=TEXT, pred=TEXT, question=TEXT, normalization=st.sampled_from(["official", "corrected"])
)
def test_slidevqa_never_raises(gold: str, pred: str, question: str, normalization: str) -> None:
    got = slidevqa.score(gold, pred, question=question, normalization=normalization)
    assert in_unit_interval(got)


@SETTINGS
@given(gold=TEXT, pred=TEXT, fmt=FORMATS)
def test_slideagent_never_raises(gold: str, pred: str, fmt: str) -> None:
    assert in_unit_interval(slideagent.score(gold, pred, answer_format=fmt))


@SETTINGS
@given(text=TEXT, fmt=FORMATS)
def test_extraction_and_judge_readers_never_raise(text: str, fmt: str) -> None:
    assert isinstance(extract_by_rules(text, fmt).answer, str)
    assert isinstance(parse_extraction(text).answer, str)
    assert parse_verdict(text).correct in (None, 0.0, 1.0)


@SETTINGS
@given(text=st.one_of(TEXT, st.text(alphabet=string.printable, max_size=40)))
def test_python_eval_raises_only_its_own_error(text: str) -> None:
    try:
        python_eval(text)
    except EvalError:
        pass
