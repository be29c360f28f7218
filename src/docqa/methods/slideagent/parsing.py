"""Reading the replies of SlideAgent's models, each with a defined fallback.

Every reply that cannot be used as it is gets the fallback named here, and the fallback's name
is returned so that the caller counts it (``usage.fallbacks``, the trace's ``fallbacks``):

* ``classifier_unparsed``: no query type in the reply → ``ambiguous`` (every level);
* ``subqueries_unparsed``: no usable query line → no sub-queries (the original query alone);
* ``element_description_missing``: no line for an element → its kind and OCR text;
* ``element_description_copied``: a line that copies the prompt's example → the same;
* ``empty_global`` / ``empty_page`` / ``empty_refine``: an empty knowledge reply → the OCR text
  of the page(s) (refine keeps the draft);
* ``empty_answer``: an empty synthesis → the last non-empty level answer.
"""

from __future__ import annotations

import re

#: query types and the levels each activates (the paper's routing)
QUERY_LEVELS: dict[str, tuple[str, ...]] = {
    "global": ("global",),
    "factual": ("page", "element"),
    "multi-hop": ("global", "page", "element"),
    "layout": ("element",),
    "ambiguous": ("global", "page", "element"),
}
LEVELS = ("global", "page", "element")

#: words of a reply that name a type (the first one in the reply wins)
_TYPE_WORDS = re.compile(r"\b(multi[- ]?hop|global|factual|layout|ambiguous)\b", re.IGNORECASE)
_LIST_MARK = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s*")
_ELEMENT_LINE = re.compile(r"^\s*E(\d+)\s*[:.)-]\s*(.+?)\s*$", re.IGNORECASE)
_ANSWER_LABEL = re.compile(r"^\s*(?:final\s+)?answer\s*:\s*", re.IGNORECASE)


def parse_query_type(reply: str) -> tuple[str, tuple[str, ...]]:
    """The query type named first in the reply, and the fallbacks used."""
    found = _TYPE_WORDS.search(reply)
    if not found:
        return "ambiguous", ("classifier_unparsed",)
    word = found.group(1).lower()
    return ("multi-hop" if word.startswith("multi") else word), ()


def parse_subqueries(
    reply: str, question: str, limit: int, opened_list: bool = True
) -> tuple[list[str], tuple[str, ...]]:
    """Up to ``limit`` distinct query lines (list marks stripped; the question itself and lines
    without a word left out). ``opened_list``: the prompt ended with ``1.``, so the reply's
    first line is the first query."""
    queries: list[str] = []
    for number, line in enumerate(reply.splitlines()):
        if not opened_list or number > 0:
            if not _LIST_MARK.match(line):
                if queries:
                    break  # the list ended: what follows is not a query
                continue
        text = _LIST_MARK.sub("", line).strip().strip('"').strip()
        if not re.search(r"\w", text) or text.lower() == question.strip().lower():
            continue
        if text.lower() not in (q.lower() for q in queries):
            queries.append(text)
        if len(queries) == limit:
            break
    return queries, (() if queries else ("subqueries_unparsed",))


def parse_descriptions(reply: str, count: int, opened: bool = True) -> dict[int, str]:
    """Element number (1-based) → description, for numbers 1..count; ``opened``: the prompt
    ended with ``E1:``, so the reply starts with the first description."""
    lines = reply.splitlines()
    found: dict[int, str] = {}
    if opened and lines and lines[0].strip() and not _ELEMENT_LINE.match(lines[0]):
        found[1] = lines[0].strip()
        lines = lines[1:]
    for line in lines:
        match = _ELEMENT_LINE.match(line)
        if match and 1 <= int(match.group(1)) <= count:
            found.setdefault(int(match.group(1)), match.group(2))
    return found


def parse_answer(reply: str) -> str:
    """The first non-empty line of a reply, without an ``Answer:`` label."""
    for line in reply.splitlines():
        text = _ANSWER_LABEL.sub("", line).strip()
        if text:
            return text
    return ""
