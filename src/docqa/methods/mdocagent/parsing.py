"""Reading MDocAgent's two structured replies: the critical agent's clues and the final answer.

Two strictness levels (the method's ``clue_parser`` and ``answer_parser`` options):

``original``, as the original code reads them:
  * clues: the text from the first ``{`` to the *first* ``}``, through ``json.loads``; any
    failure leaves both clues empty (so a clue containing ``}`` or a nested dict is lost);
  * answer: the *whole* reply through ``json.loads``, then its ``"Answer"``; a reply that is not
    exactly a JSON object (a code fence, a sentence around it, the unquoted
    ``{"Answer": Paris}`` that the prompt's own example invites) becomes the answer verbatim.

``lenient``: code fences stripped; the span from the first ``{`` to the last ``}`` (then to the
first ``}``) read as JSON or as a Python literal; keys matched without regard to case; failing
that, the values are picked out of ``"key": value`` text with a regular expression.

Every departure from a clean reply is named in ``fallbacks`` (the method counts them):
``clue_not_json``, ``clue_incomplete`` (a key missing), ``clue_not_text`` (a value that is not a
string — the original crashes on it; here it becomes its text), ``summary_not_json``,
``summary_no_answer`` (a dict without ``Answer``: the original's answer is then ``None``, here
``""``) and ``answer_not_text``.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

Parser = Literal["original", "lenient"]

_FENCE = re.compile(r"```[a-zA-Z]*\s*|```")
#: a value, up to the next quoted key, the closing brace or the end of the reply
_VALUE_END = r"""(.*?)\s*(?=,\s*(?:["'][A-Za-z_ ]+["']|[A-Za-z_]+)\s*:|}|$)"""


@dataclass(frozen=True)
class Clues:
    """The critical agent's keypoints for the text agent and the image agent."""

    text: str = ""
    image: str = ""
    fallbacks: tuple[str, ...] = ()


@dataclass(frozen=True)
class FinalAnswer:
    answer: str
    fallbacks: tuple[str, ...] = ()


def parse_clues(reply: str, parser: str = "original") -> Clues:
    found = _original_dict(reply) if parser == "original" else _lenient_dict(reply)
    if found is None and parser == "lenient":
        found = _key_values(reply, ("text", "image"))
    if found is None:
        return Clues(fallbacks=("clue_not_json",))
    fallbacks: list[str] = []
    values = {}
    for key in ("text", "image"):
        value = _get(found, key, exact=parser == "original")
        if value is _MISSING:
            fallbacks.append("clue_incomplete")
            value = ""
        values[key], converted = _as_text(value)
        if converted:
            fallbacks.append("clue_not_text")
    return Clues(values["text"], values["image"], tuple(dict.fromkeys(fallbacks)))


def parse_answer(reply: str, parser: str = "original") -> FinalAnswer:
    if parser == "original":
        try:
            found = json.loads(reply)
        except ValueError:
            found = None
        if not isinstance(found, dict):
            return FinalAnswer(reply.strip(), ("summary_not_json",))
    else:
        found = _lenient_dict(reply) or _key_values(reply, ("answer",))
        if found is None:
            return FinalAnswer(_strip_fences(reply).strip(), ("summary_not_json",))
    value = _get(found, "Answer", exact=parser == "original")
    if value is _MISSING:
        return FinalAnswer("", ("summary_no_answer",))
    answer, converted = _as_text(value)
    return FinalAnswer(answer.strip(), ("answer_not_text",) if converted else ())


_MISSING = object()


def _get(found: dict[Any, Any], key: str, exact: bool) -> Any:
    if key in found:
        return found[key]
    if not exact:
        for name, value in found.items():
            if isinstance(name, str) and name.strip().lower() == key.lower():
                return value
    return _MISSING


def _as_text(value: Any) -> tuple[str, bool]:
    """The value as text, and whether it had to be converted (``None`` becomes ``""``; other
    values their ``str``, which is what the original's judge saw of a non-string answer)."""
    if isinstance(value, str):
        return value, False
    return ("" if value is None else str(value)), True


def _original_dict(reply: str) -> dict[Any, Any] | None:
    start, end = reply.find("{"), reply.find("}")
    if start < 0 or end < start:
        return None
    return _load(reply[start : end + 1], python=False)


def _lenient_dict(reply: str) -> dict[Any, Any] | None:
    text = _strip_fences(reply)
    start = text.find("{")
    if start < 0:
        return None
    for end in (text.rfind("}"), text.find("}", start)):
        if end > start:
            found = _load(text[start : end + 1], python=True)
            if found is not None:
                return found
    return None


def _load(span: str, python: bool) -> dict[Any, Any] | None:
    try:
        found = json.loads(span)
    except ValueError:
        found = None
        if python:
            try:
                found = ast.literal_eval(span)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                found = None
    return found if isinstance(found, dict) else None


def _key_values(reply: str, keys: tuple[str, ...]) -> dict[str, str] | None:
    """``"key": value`` pairs in text that is no valid literal, e.g. ``{"Answer": Paris}``.

    A value runs to the next quoted key, the closing brace or the end of the reply, and loses
    its surrounding quotes.
    """
    text = _strip_fences(reply)
    found = {}
    for key in keys:
        name = rf"""(?<![A-Za-z_])["']?{key}["']?\s*:\s*"""
        match = re.search(name + _VALUE_END, text, flags=re.IGNORECASE | re.DOTALL)
        if match:
            found[key] = match.group(1).strip().strip("\"'").strip()
    return found or None


def _strip_fences(reply: str) -> str:
    return _FENCE.sub("", reply)
