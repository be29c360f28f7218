"""The number a short answer states: '17k' → 17000, '2.5 million' → 2500000, '97%' → 0.97.

SlideAgent's Num metric compares numbers "in various formats, including percentages, decimals,
integers, and word-based representations" after normalising them to one form. This module is
that normalisation. What counts as one number mention:

- Digits, with ',' only as a thousands separator between groups of three ('1,234,567.8'),
  or a no-break or thin space the same way ('1\u202f234', as typeset documents write it),
  one kind of separator per number. A comma anywhere else is not part of a number, so '1,5'
  is not read as 1.5; an ordinary space separates two numbers ('1 234' is 1 and 234).
- Percent ('%', 'percent', 'per cent', 'pct', 'percentage point(s)', 'pp') divides by 100.
- Scale: the attached suffixes k, m, b, t, mn, bn, tn, mln ('17k', '$5M', '3bn', any case) and
  the words hundred, thousand, million, billion, trillion (and bn, mn, tn, mln) after a space
  multiply. A spaced single letter ('5 m') is read as a unit, not a scale: metres and
  millions cannot be told apart there.
- Currency before the number is part of it: symbols ($ € £ ¥ ₹ ₩, also 'US$', 'HK$') and ISO
  codes ('USD 5'). Currency after the number ('5 dollars', '5 USD') is a unit.
- Known units attached to the digits ('5kg', '2.5x', '10GB', '25°C') are dropped. Other
  attached letters mean the token is a name, not a number: '3D', '4G', '1990s', 'Q3', '1st'.
- A minus sign ('-', '−') before the digits or the currency, or 'minus'/'negative' before
  number words, makes the number negative. A hyphen between two numbers ('2019-2020') is a
  separator.
- Number words: zero to nineteen, the tens, hundred, thousand, million, billion, trillion,
  joined by spaces, hyphens or 'and' ('one hundred and five', 'twenty-one', 'two thousand');
  'a'/'an' counts as one before a scale word ('a million'). A run of words that breaks this
  grammar holds several numbers: 'one two' is 1 and 2, 'nineteen eighty-four' is 19 and 84.

Answers with several numbers. :func:`parse_number` reads a *short answer* (a gold answer, or a
prediction that is just an answer): it is numeric only if it states exactly one number and the
words around it are at most a hedge before it ('about', 'over', ...) and at most two words of
unit after it ('people', 'km/h', 'US dollars'). So '2019 and 2020', 'Q3 2019' and
'Revenue: 5' are not numeric. :func:`extract_number` reads a *prediction in prose* ('The revenue
was 17k.'): it takes the first number mentioned.
"""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass
from decimal import Decimal

_SMALL = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
}
_TEENS = {
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALE_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}

# Multipliers written after digits: attached ('17k') or, for the words and the abbreviations
# of two letters or more, after a space ('2.5 million', '3 bn').
_ATTACHED_SCALES = {
    "k": 10**3,
    "m": 10**6,
    "mn": 10**6,
    "mln": 10**6,
    "b": 10**9,
    "bn": 10**9,
    "t": 10**12,
    "tn": 10**12,
}
_SPACED_SCALES = {
    "hundred": 100,
    **_SCALE_WORDS,
    "mn": 10**6,
    "mln": 10**6,
    "bn": 10**9,
    "tn": 10**12,
}
_PERCENT_SUFFIXES = {"percent", "pct", "pp"}
_UNIT_SUFFIXES = {
    "kg",
    "mg",
    "lb",
    "lbs",
    "oz",
    "km",
    "cm",
    "mm",
    "ft",
    "mi",
    "ml",
    "kb",
    "mb",
    "gb",
    "tb",
    "pb",
    "hz",
    "khz",
    "mhz",
    "ghz",
    "w",
    "kw",
    "mw",
    "gw",
    "kwh",
    "mwh",
    "gwh",
    "v",
    "h",
    "hr",
    "hrs",
    "min",
    "mins",
    "sec",
    "secs",
    "ms",
    "yr",
    "yrs",
    "x",
    "°",
    "°c",
    "°f",
}
_HEDGES = {
    "about",
    "approximately",
    "approx",
    "around",
    "roughly",
    "nearly",
    "almost",
    "over",
    "under",
    "more than",
    "less than",
    "at least",
    "at most",
    "up to",
    "~",
    "≈",
}

# Longest first, so that 'seventeen' is not read as 'seven'.
_WORD = "|".join(
    sorted([*_SMALL, *_TEENS, *_TENS, "hundred", *_SCALE_WORDS], key=len, reverse=True)
)
_SCALE_WORD = "|".join(["hundred", *_SCALE_WORDS])
_CURRENCY_CODES = "usd|eur|gbp|jpy|cny|rmb|inr|aud|cad|chf|hkd|sgd|rs\\.?"
_CURRENCY = rf"(?:[a-z]{{0,2}}\$|€|£|¥|₹|₩|(?:{_CURRENCY_CODES})(?=\s?[-−]?\d))"
_PERCENT = r"(?:\s*%|\s+(?:percent|per\s?cent|pct|percentage\s+points?|pp)\b)"
_NUMBER = re.compile(
    rf"""
    (?<![\w.,])
    (?P<sign>[-−])?
    (?:(?P<currency>{_CURRENCY})\s?)?
    (?P<sign2>[-−])?
    (?P<digits>(?:\d{{1,3}}(?:(?P<sep>[,\u00a0\u202f\u2009])\d{{3}})(?:(?P=sep)\d{{3}})*|\d+)
        (?:\.\d+)?|\.\d+)(?![.,\u00a0\u202f\u2009]?\d)
    (?P<suffix>°?[^\W\d_]*)
    (?P<scales>(?:\s+(?:{"|".join(_SPACED_SCALES)})s?\b)*)
    (?P<percent>{_PERCENT})?
    (?!\w)
    |
    (?<![\w-])
    (?P<word_sign>(?:minus|negative)\s+)?
    (?P<words>
        (?:an?\s+(?=(?:{_SCALE_WORD})\b))?
        (?:{_WORD})\b
        (?:(?:\s+and\s+|\s*-\s*|\s+)(?:{_WORD})\b)*
    )
    (?P<word_percent>{_PERCENT})?
    (?![\w-])
    """,
    re.IGNORECASE | re.VERBOSE,
)
_SEPARATORS = "[,\u00a0\u202f\u2009]"
_PUNCTUATION = string.punctuation + "“”‘’«»…–—"
_UNIT_RESIDUE = re.compile(r"[^\W\d_][^\s\d]*(?:\s+[^\W\d_][^\s\d]*)?")


@dataclass(frozen=True)
class NumberMention:
    """One number stated in a text, and where: ``text[start:end]`` is how it was written."""

    value: float
    start: int
    end: int


def find_numbers(text: str) -> list[NumberMention]:
    """Every number ``text`` states, in order (see the module docstring for the formats)."""
    mentions = []
    for match in _NUMBER.finditer(text):
        if match.group("digits") is not None:
            value = _digit_value(match)
            if value is not None:
                mentions.append(NumberMention(value, match.start(), match.end()))
        else:
            values = _word_values(match)
            mentions.extend(NumberMention(value, match.start(), match.end()) for value in values)
    return mentions


def parse_number(text: str) -> float | None:
    """The single number a short answer states, or ``None`` if it states none or several.

    Allowed around the number: a hedge before it ('about 5') and up to two words of unit after
    it ('5 people'); anything else (another number, a digit, a leading word) makes it ``None``.
    """
    mentions = find_numbers(text)
    if len(mentions) != 1:
        return None
    mention = mentions[0]
    before = " ".join(text[: mention.start].strip(_PUNCTUATION + " \t\n").lower().split())
    after = text[mention.end :].strip(_PUNCTUATION + "€£¥₹₩ \t\n")
    if before and before not in _HEDGES:
        return None
    if after and not _UNIT_RESIDUE.fullmatch(after):
        return None
    return mention.value


def extract_number(text: str) -> float | None:
    """The number a prediction in prose states: the first one mentioned, or ``None``."""
    mentions = find_numbers(text)
    return mentions[0].value if mentions else None


def is_numeric_answer(text: str) -> bool:
    """Whether a gold answer is a number (:func:`parse_number` finds exactly one)."""
    return parse_number(text) is not None


def numbers_equal(a: float, b: float, rel_tol: float = 0.0) -> bool:
    """Equality after normalisation; ``rel_tol`` 0 still allows float rounding (1e-9)."""
    return math.isclose(a, b, rel_tol=max(rel_tol, 1e-9))


def _digit_value(match: re.Match[str]) -> float | None:
    value = Decimal(re.sub(_SEPARATORS, "", match.group("digits")))
    suffix = match.group("suffix").lower()
    percent = match.group("percent") is not None
    if suffix in _ATTACHED_SCALES:
        value *= _ATTACHED_SCALES[suffix]
    elif suffix in _PERCENT_SUFFIXES:
        percent = True
    elif suffix and suffix not in _UNIT_SUFFIXES:
        return None
    for scale in match.group("scales").lower().split():
        value *= _SPACED_SCALES[scale if scale in _SPACED_SCALES else scale[:-1]]
    if percent:
        value /= 100
    if match.group("sign") or match.group("sign2"):
        value = -value
    return float(value)


def _word_values(match: re.Match[str]) -> list[float]:
    tokens = re.split(r"[\s-]+", match.group("words").lower())
    values = [Decimal(value) for value in _parse_word_run(tokens)]
    if match.group("word_percent") is not None:
        values[-1] /= 100
    if match.group("word_sign"):
        values[0] = -values[0]
    return [float(value) for value in values]


def _kind(token: str) -> tuple[str, int]:
    if token in ("a", "an"):
        return "small", 1
    if token in _SMALL:
        return "small", _SMALL[token]
    if token in _TEENS:
        return "teen", _TEENS[token]
    if token in _TENS:
        return "tens", _TENS[token]
    if token == "hundred":
        return "hundred", 100
    if token == "and":
        return "and", 0
    return "scale", _SCALE_WORDS[token]


def _parse_word_run(tokens: list[str]) -> list[int]:
    """Values of a run of number words; where the grammar breaks, a new number starts."""
    numbers: list[int] = []
    total = current = 0  # total: the part above a thousand; current: the part below it
    last: str | None = None  # kind of the previous token of the current number
    scale_cap = math.inf  # scales must fall: 'two million three thousand'
    for token in tokens:
        kind, value = _kind(token)
        if last is not None and not _follows(last, kind, current, value, scale_cap):
            numbers.append(total + current)
            total = current = 0
            last, scale_cap = None, math.inf
        if last is None and kind == "and":
            continue
        if last is None and kind in ("hundred", "scale"):
            current = 1  # a bare 'thousand' is one thousand
        if kind in ("small", "teen", "tens"):
            current += value
        elif kind == "hundred":
            current *= 100
        elif kind == "scale":
            total += current * value
            current, scale_cap = 0, value
        last = kind
    if last is not None:
        numbers.append(total + current)
    return numbers


def _follows(last: str, kind: str, current: int, value: int, scale_cap: float) -> bool:
    """Whether a token of ``kind`` can continue a number whose previous token was ``last``."""
    after_break = last in ("hundred", "scale", "and")
    if kind == "and":
        return last in ("hundred", "scale")
    if kind == "small":
        return after_break or (last == "tens" and value > 0)
    if kind in ("teen", "tens"):
        return after_break
    if kind == "hundred":
        return last in ("small", "teen", "tens") and 0 < current < 100
    return last in ("small", "teen", "tens", "hundred") and current > 0 and value < scale_cap
