"""Reading model replies: the orchestrator's decision, page picks, facts, verdicts and code.

Every parser accepts the loose forms small models write (a JSON object instead of the three
lines, ``p. 3`` for ``3``, bullets before facts) and returns ``None`` or an empty result when
nothing usable is there; the caller turns that into a defined response.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from docqa.methods.docpilot.actions import BAD_ARGUMENTS, INVALID_ACTION, ActionError
from docqa.methods.page_labels import page_numbers

_ACTION = re.compile(r"^\s*\**action\**\s*[:=]\s*\**\s*([A-Za-z_]+)", re.IGNORECASE | re.MULTILINE)
_ARGUMENTS = re.compile(
    r"^\s*\**(?:arguments|action input|input)\**\s*[:=]", re.IGNORECASE | re.MULTILINE
)
_THOUGHT = re.compile(r"^\s*\**thought\**\s*[:=]\s*(.*)$", re.IGNORECASE | re.MULTILINE)
_NONE = re.compile(r"^\W*(none|nothing|no relevant|n/?a)\b", re.IGNORECASE)
_FACT_NUMBER = re.compile(r"(?i)^(?:\[?\s*)?p(?:age)?\.?\s*(\d+)\s*\]?\s*[:\-–)]\s*(.+)$")
_FACT_LABEL = re.compile(
    r"(?i)^(?:\[?\s*)?(?:p(?:age)?\.?\s*)?(D\d+\s*(?::|,)?\s*(?:p(?:age)?\.?\s*)?\d+)\s*\]?\s*"
    r"[:\-–)]\s*(.+)$"
)


@dataclass(frozen=True)
class Decision:
    """The orchestrator's step: ``arguments`` as the model wrote them (not yet checked)."""

    thought: str
    action: str
    arguments: Any


def parse_decision(reply: str) -> Decision:
    """``Thought: … / Action: name / Arguments: {json}`` (the prompt ends with ``Thought:``, so
    the reply starts with the thought), or one JSON object with ``action`` and ``arguments``.
    Raises ``ActionError`` (invalid action, or bad arguments) when neither is there."""
    text = "Thought:" + reply if not _THOUGHT.search(reply) else reply
    thought_match = _THOUGHT.search(text)
    thought = thought_match.group(1).strip() if thought_match else ""
    action = _ACTION.search(text)
    if action is None:
        whole = first_json(text, "{")
        if isinstance(whole, dict) and isinstance(whole.get("action"), str):
            said = whole.get("thought")
            return Decision(
                said.strip() if isinstance(said, str) else "",
                whole["action"].strip().lower(),
                whole.get("arguments", {}),
            )
        raise ActionError(
            INVALID_ACTION,
            "no action found: reply with a Thought line, an Action line and an Arguments line",
        )
    arguments_at = _ARGUMENTS.search(text, action.end())
    if arguments_at is None:
        return Decision(thought, action.group(1).lower(), {})
    arguments = first_json(text[arguments_at.end() :], "{")
    if arguments is None:
        raise ActionError(BAD_ARGUMENTS, "the Arguments line must hold one JSON object")
    return Decision(thought, action.group(1).lower(), arguments)


def first_json(text: str, opener: str) -> Any:
    """The first JSON value in ``text`` that starts with ``opener`` (``{`` or ``[``), or None."""
    decoder = json.JSONDecoder()
    start = text.find(opener)
    while start != -1:
        try:
            return decoder.raw_decode(text, start)[0]
        except ValueError:
            start = text.find(opener, start + 1)
    return None


def navigation_reply(reply: str) -> tuple[str | None, bool]:
    """(the navigator's picks line as written, None when it says it picks none; whether it
    asks for more pages). The caller reads the pages in the line."""
    lines = reply.strip().splitlines() or [""]
    more = bool(re.search(r"more\s*[:=]\s*yes", reply, re.IGNORECASE))
    first = re.sub(r"(?i)^\s*pages?\s*[:=]", "", lines[0])
    first = re.split(r"(?i)\bmore\s*[:=]", first)[0]
    if _NONE.match(first.strip()):
        return None, more
    return first, more


def parse_navigation(reply: str) -> tuple[list[int] | None, bool]:
    """(pages picked, 1-based page numbers of one document; None when the reply names no
    page line at all, asks for more)."""
    first, more = navigation_reply(reply)
    if first is None:
        return [], more
    pages = page_numbers(first)
    return (pages or None), more


def parse_facts(reply: str, max_facts: int, max_chars: int) -> list[tuple[int | None, str]]:
    """Facts as (1-based page or None, text), one per line of ``p. N: fact``; lines without a
    page are kept without one; ``none`` ends the list."""
    return [
        (None if written is None else int(written), text)
        for written, text in fact_lines(reply, max_facts, max_chars)
    ]


def fact_lines(
    reply: str, max_facts: int, max_chars: int, several: bool = False
) -> list[tuple[str | None, str]]:
    """Facts as (the page as written or None, text), one per line of ``p. N: fact`` (in a set
    of documents, ``several``: ``p. D2:3: fact`` or ``D2:3: fact``; a bare number is kept as
    written and a set's reader finds no page in it); ``none`` ends the list."""
    patterns = (_FACT_LABEL, _FACT_NUMBER) if several else (_FACT_NUMBER,)
    facts: list[tuple[str | None, str]] = []
    for line in reply.splitlines():
        line = line.strip().lstrip("-*•").strip()
        if not line:
            continue
        if _NONE.match(line):
            break
        match = next((m for m in (p.match(line) for p in patterns) if m is not None), None)
        written, text = (match.group(1), match.group(2)) if match else (None, line)
        text = " ".join(text.split())[:max_chars]
        if text:
            facts.append((written, text))
        if len(facts) == max_facts:
            break
    return facts


def parse_verdict(reply: str) -> tuple[bool | None, bool | None, str]:
    """(grounded, coverage sufficient, advice) from ``Grounded: yes / Coverage: … / Advice: …``;
    the prompt ends with ``Grounded:``, so the first line may be the bare yes or no."""
    text = "Grounded:" + reply if not re.match(r"(?i)\s*grounded", reply) else reply
    grounded = _yes_no(re.search(r"(?i)grounded\s*[:=]\s*(\w+)", text))
    coverage = re.search(r"(?i)coverage\s*[:=]\s*(\w+)", text)
    sufficient = None
    if coverage:
        word = coverage.group(1).lower()
        sufficient = (
            True
            if word in ("sufficient", "yes", "enough", "complete")
            else (False if word in ("insufficient", "no", "incomplete", "not") else None)
        )
    advice = re.search(r"(?i)advice\s*[:=]\s*(.+)", text)
    return grounded, sufficient, " ".join(advice.group(1).split())[:200] if advice else ""


def _yes_no(match: re.Match[str] | None) -> bool | None:
    if match is None:
        return None
    word = match.group(1).lower()
    return True if word in ("yes", "true") else False if word in ("no", "false") else None


def code_block(reply: str) -> str:
    """The Python in a reply. The prompt opens a fence, so the code is the text before the
    closing fence; a model that opens a fence of its own has its first fenced block taken."""
    if reply.lstrip().startswith("```"):
        fenced = re.search(r"```[A-Za-z]*\s*\n(.*?)(?:```|$)", reply, re.DOTALL)
        return fenced.group(1).strip("\n") if fenced else ""
    return reply.split("```")[0].strip("\n")


def first_line(reply: str) -> str:
    for line in reply.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""
