"""Whether an answer says the question cannot be answered ('Not answerable', 'cannot be
determined', 'not enough information', ...).

The phrases are compared as lowercase words without punctuation or apostrophes, so
"can't answer" matches 'cant answer' and 'Not answerable.' matches 'not answerable'.
"""

from __future__ import annotations

import re

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


def words(text: str) -> str:
    """Lowercase words of ``text``, without apostrophes and punctuation, one space apart."""
    text = text.lower().replace("'", "").replace("’", "")
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def says_not_answerable(answer: str) -> bool:
    """Whether an answer says the question cannot be answered."""
    padded = f" {words(answer)} "
    return any(f" {phrase} " in padded for phrase in NOT_ANSWERABLE_PHRASES)
