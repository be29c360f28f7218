"""Rules MMLongBench-Doc's ``eval_score.py`` and LongDocURL's ``utils_score_v3.py`` share.

Both benchmarks decide per answer format; these are the pieces their code has in common,
reproduced with the originals' behaviour on odd inputs (see each function).
"""

from __future__ import annotations

import re
from math import isclose

_PHONE = re.compile(r"\b\d+(-\d+|\s\d+)?\b")
_DATE = re.compile(r"\b\d{4}[-\s]\d{2}[-\s]\d{2}\b")
_MONTH = re.compile(r"\b\d{4}[-\s]\d{2}\b")
_EMAIL = re.compile(r"[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}")
_PARENTHESES = re.compile(r"\s*\([^)]*\)")
_OUTER_QUOTE = re.compile(r"^['\"]|['\"]$")

REL_TOL = 0.01


def needs_exact_match(gold: str) -> bool:
    """Whether a cleaned gold answer is compared by equality instead of ANLS.

    URLs ('https://'), code files ('.py', 'ipynb'), page references (starts with 'page'),
    phone-like digit groups ('555-1234', '12 34', and so any bare integer), times ('a.m.',
    'p.m.'), dates ('YYYY-MM-DD', 'YYYY-MM', with '-' or a space) and e-mail addresses.
    """
    return (
        "https://" in gold
        or gold.endswith(".py")
        or gold.endswith("ipynb")
        or gold.startswith("page")
        or _PHONE.fullmatch(gold) is not None
        or "a.m." in gold
        or "p.m." in gold
        or _DATE.fullmatch(gold) is not None
        or _MONTH.fullmatch(gold) is not None
        or _EMAIL.fullmatch(gold) is not None
    )


def strip_decorations(text: str) -> str:
    """The part both cleaners share: drop '(...)' groups, one outer quote on each side and
    leading '$' signs."""
    text = _PARENTHESES.sub("", text).strip()
    text = _OUTER_QUOTE.sub("", text).strip()
    text = text.strip().lstrip("$").strip()
    return text


def is_float(text: str) -> bool:
    """Whether ``float(text)`` parses ('nan', 'inf', '1e3', '1_000' and ' 5 ' all do)."""
    try:
        float(text)
    except (ValueError, TypeError):
        return False
    return True


def _decimals(value: float) -> int:
    """Digits after the '.' of ``str(value)``; 3 when there is no '.' ('1e-05', 'inf')."""
    text = str(value)
    return len(text.split(".")[-1]) if "." in text else 3


def float_equal(gold: object, pred: object) -> bool:
    """The originals' ``is_float_equal(..., include_percentage=True, is_close=True)``.

    True when ``pred`` is within 1% (relative) of ``gold``, ``gold / 100`` or ``gold * 100``,
    or equal to one of them after rounding both to ``max(min(decimals), 2)`` places, where
    decimals counts the digits after the '.' of each number as Python prints it. A trailing
    '%' is ignored on both. A ``gold`` that does not parse raises ``ValueError``, as there.
    """
    reference = float(str(gold).strip().rstrip("%").strip())
    try:
        prediction = float(str(pred).strip().rstrip("%").strip())
    except (ValueError, TypeError):
        return False
    for candidate in (reference / 100, reference, reference * 100):
        if isclose(candidate, prediction, rel_tol=REL_TOL):
            return True
        places = max(min(_decimals(prediction), _decimals(candidate)), 2)
        if round(prediction, places) == round(candidate, places):
            return True
    return False
