"""Reading the page numbers a model writes, in one document or in a set of documents
(:meth:`docqa.methods.base.DocumentEnv.read_page_labels` turns them into its pages).

One document: page numbers as a reader writes them (``2, 5``, ``p. 2 and p. 5``, ``[2, 5]``,
a range ``3-5``). A set: each page with its document's label, ``D2:3`` (also ``D2 p. 3``,
``D2 page 3``, a range ``D2:3-5``); a bare number is ambiguous there and is not read.
"""

from __future__ import annotations

import re

#: the widest range read as a range (a larger one is a typo or two numbers)
MAX_RANGE = 50

_NUMBER_RANGE = re.compile(r"(\d+)(?:\s*(?:-|–)\s*(\d+))?")
_SET_RANGE = re.compile(
    r"\bD(\d+)\s*(?::|,)?\s*(?:p(?:age)?\.?\s*)?(\d+)(?:\s*(?:-|–)\s*(?:D\1\s*:\s*)?(\d+))?",
    re.IGNORECASE,
)


def number_ranges(text: str) -> list[tuple[int, int]]:
    """The 1-based page ranges written as bare numbers in ``text``, in order."""
    return [_range(match.group(1), match.group(2)) for match in _NUMBER_RANGE.finditer(text)]


def page_numbers(text: str) -> list[int]:
    """The 1-based page numbers written in ``text``, in order, each once."""
    pages: list[int] = []
    for first, last in number_ranges(text):
        pages += range(first, last + 1)
    return list(dict.fromkeys(pages))


def label_ranges(text: str) -> list[tuple[str, int, int]]:
    """The page ranges written with a document's label in ``text`` (``D2:3-5`` is
    ``("D2", 3, 5)``), in order: the label upper-cased, the pages 1-based."""
    return [
        (f"D{int(match.group(1))}", *_range(match.group(2), match.group(3)))
        for match in _SET_RANGE.finditer(text)
    ]


def _range(first_text: str, last_text: str | None) -> tuple[int, int]:
    first = int(first_text)
    last = int(last_text) if last_text else first
    return first, last if 0 <= last - first <= MAX_RANGE else first
