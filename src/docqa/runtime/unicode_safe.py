"""Text that UTF-8 can always carry: lone surrogates replaced by U+FFFD, and counted.

Python strings may hold lone surrogates (``"\\ud800"``, from a program's output or a JSON
escape); encoding one as UTF-8 raises. Anything a sandboxed program or a model produced passes
through ``clean`` before it reaches traces, the response cache or checkpoints, so that writing
it cannot fail.
"""

from __future__ import annotations

import re
from typing import Any

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"
CUT = "<cut: nested too deep>"


def clean_text(text: str) -> tuple[str, int]:
    """``text`` with every lone surrogate replaced by U+FFFD, and how many there were."""
    replaced = len(LONE_SURROGATE.findall(text))
    return (LONE_SURROGATE.sub(REPLACEMENT, text) if replaced else text), replaced


def clean(value: Any, max_depth: int = 200) -> tuple[Any, int]:
    """A JSON-like value with its strings (keys too) cleaned, lists and dicts deeper than
    ``max_depth`` replaced by ``CUT`` and other objects by their cleaned ``repr``; returns it
    and the number of replaced characters."""
    count = [0]

    def text(item: str) -> str:
        cleaned, replaced = clean_text(item)
        count[0] += replaced
        return cleaned

    def walk(item: Any, depth: int) -> Any:
        if isinstance(item, str):
            return text(item)
        if item is None or isinstance(item, (bool, int, float)):
            return item
        if isinstance(item, (list, tuple, dict)) and depth >= max_depth:
            return CUT
        if isinstance(item, (list, tuple)):
            return [walk(element, depth + 1) for element in item]
        if isinstance(item, dict):
            return {text(str(key)): walk(element, depth + 1) for key, element in item.items()}
        return text(repr(item))

    return walk(value, 0), count[0]
