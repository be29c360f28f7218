"""Reading the fields of benchmark rows: lists stored as strings, 1-based pages, answer formats.

Benchmarks store the same things in different ways (``'[5]'`` in a string, a JSON list, a numpy
array out of parquet; ``Integer`` or ``Int``). These helpers read each kind once, for every
adapter, and raise :class:`BadRow` with what is wrong and what to do, so that the adapter can
record the row and skip it.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from docqa.core.question import UNANSWERABLE

# Every benchmark's answer-format name → docqa's (``docqa.core.question.ANSWER_FORMATS``).
FORMAT_NAMES = {
    "Int": "Int",
    "Integer": "Int",
    "Float": "Float",
    "Str": "Str",
    "String": "Str",
    "List": "List",
    "None": "None",
}

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


class BadRow(Exception):
    """A benchmark row that cannot be converted: ``error`` says why, ``fix`` what to do."""

    def __init__(self, error: str, fix: str = "report it upstream; the row is skipped") -> None:
        super().__init__(f"{error}; {fix}")
        self.error = error
        self.fix = fix


def required(row: Mapping[str, Any], name: str) -> Any:
    """The value of a field that must be present and not null."""
    value = row.get(name)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise BadRow(f"field {name!r} is missing or null")
    return value


def text(row: Mapping[str, Any], name: str) -> str:
    """A required field as a stripped, non-empty string."""
    value = str(required(row, name)).strip()
    if not value:
        raise BadRow(f"field {name!r} is empty")
    return value


def as_list(value: Any, name: str) -> list[Any]:
    """A list, however stored: a list or array, JSON text, or a Python literal (``"['a']"``)."""
    if value is None:
        return []
    if hasattr(value, "tolist"):  # numpy arrays out of parquet
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        stripped = value.strip()
        if not stripped:
            return []
        for parse in (json.loads, ast.literal_eval):
            try:
                parsed = parse(stripped)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            if isinstance(parsed, (list, tuple)):
                return list(parsed)
        raise BadRow(f"field {name!r} is not a list: {value!r:.80}")
    raise BadRow(f"field {name!r} is a {type(value).__name__}, not a list")


def page_numbers(value: Any, name: str) -> list[int]:
    """A list of page numbers as integers (``'[5, 6]'``, ``[5, 6]``, ``['5']``)."""
    pages = []
    for item in as_list(value, name):
        if isinstance(item, bool) or not isinstance(item, (int, float, str)):
            raise BadRow(f"field {name!r} holds {item!r}, not a page number")
        try:
            number = int(str(item).strip())
        except ValueError:
            raise BadRow(f"field {name!r} holds {item!r}, not a page number") from None
        pages.append(number)
    return pages


def one_based(pages: list[int], name: str, last: int | None = None) -> list[int]:
    """1-based page numbers to docqa's 0-based indices, checked against ``last`` if known."""
    for page in pages:
        if page < 1 or (last is not None and page > last):
            bound = f"1..{last}" if last is not None else ">= 1"
            raise BadRow(f"field {name!r}: page {page} is not a 1-based page number ({bound})")
    return [page - 1 for page in pages]


def answer_format(name: Any) -> str:
    """A benchmark's answer-format name in docqa's vocabulary."""
    try:
        return FORMAT_NAMES[str(name).strip()]
    except KeyError:
        known = ", ".join(sorted(FORMAT_NAMES))
        raise BadRow(f"answer format {name!r} is not one of {known}") from None


def infer_format(answer: str | list[str]) -> str:
    """The format of an answer that the benchmark does not label: List, Int, Float, None or Str."""
    if isinstance(answer, list):
        return "List"
    if answer == UNANSWERABLE:
        return "None"
    if _INT.fullmatch(answer.replace(",", "")):
        return "Int"
    if _FLOAT.fullmatch(answer.replace(",", "")):
        return "Float"
    return "Str"


def answer_text(value: Any) -> str | list[str]:
    """An answer as docqa stores it: a stripped string, or a list of strings for a list."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [str(item).strip() for item in value]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    answer = str(value).strip()
    if not answer:
        raise BadRow("field 'answer' is empty")
    return answer


def list_literal(answer: str) -> str | list[str]:
    """A List-format answer stored as text (``"['a', 'b']"``) as a list of strings.

    Text that is not a list literal (MMLongBench-Doc has List answers ``92`` and ``0.66``) is
    returned unchanged: the scorers treat a non-list gold as a one-item list.
    """
    if not answer.startswith("["):
        return answer
    try:
        parsed = ast.literal_eval(answer)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return answer
    if not isinstance(parsed, (list, tuple)):
        return answer
    return [str(item).strip() for item in parsed]


def strings(value: Any, name: str) -> list[str]:
    """A list of labels as strings (``"['Chart', 'Table']"`` → ``['Chart', 'Table']``)."""
    return [str(item).strip() for item in as_list(value, name)]


def plain(value: Any) -> Any:
    """A value out of parquet or JSON as plain JSON data (arrays become lists, NaN None)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return value


def safe_id(name: str) -> str:
    """A document id usable as a directory name: path separators replaced."""
    cleaned = name.replace("/", "_").replace("\\", "_").strip()
    if cleaned in {"", ".", ".."}:
        raise BadRow(f"document name {name!r} cannot be used as an id")
    return cleaned
