"""A page's text within a method's character budget: the passages that bear on the question,
not the page's first characters.

Dense real pages hold 6,000-10,000 characters; a budget such as ``max_chars_per_page`` (1,500)
that kept each page's start would hide an answer further down even when the right page is
given. A page that fits its budget is read whole, unchanged. A longer page is split into
overlapping windows of :data:`PASSAGE_CHARS` characters (whole words, each starting half a
window after the last), the windows are ranked by BM25 against the question (the ``bm25``
retriever's tokenization and scoring, :func:`docqa.retrievers.bm25.bm25_over`, with the
windows of the page as its corpus), and the best are kept while they fit the budget; the kept
spans are read in page order, each gap between them marked by :data:`GAP`. Ties and a question
that shares no term with the page keep page order, so a query-agnostic read (``question=""``)
reads the page's start.

What was left out is never silent: :class:`PageTexts` gathers the cut pages of one step, whose
trace step carries them as ``text_cut`` (:class:`docqa.core.trace.TextCut`: page, characters,
the spans read), and the score stage counts the pages cut (``pages_cut``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from docqa.core.trace import TextCut
from docqa.retrievers.bm25 import BM25Options, bm25_over

#: characters of one passage window (less when the budget is smaller)
PASSAGE_CHARS = 300
#: what stands where text was left out between (and around) the passages read
GAP = "\n[...]\n"

_WORD = re.compile(r"\S+")
#: the ``bm25`` retriever's default parameters
_K1, _B = (BM25Options.model_fields[name].default for name in ("k1", "b"))


@dataclass(frozen=True)
class PageFit:
    """What is read of one page: ``text`` (the page's own when it fits the budget), the page's
    length in ``chars`` and the ``spans`` (start, end) of it that ``text`` holds, in order."""

    text: str
    chars: int
    spans: tuple[tuple[int, int], ...]

    @property
    def cut(self) -> bool:
        """Whether characters of the page were left out."""
        return sum(end - start for start, end in self.spans) < self.chars

    def record(self, page: int) -> TextCut:
        """The trace's account of the cut of page ``page`` (0-based)."""
        read = sum(end - start for start, end in self.spans)
        return {
            "page": page,
            "chars": self.chars,
            "read": [[start, end] for start, end in self.spans],
            "left_out": self.chars - read,
        }


def fit_page(text: str, question: str, budget: int) -> PageFit:
    """``text`` within ``budget`` characters: whole when it fits, else the passages of it that
    BM25 ranks best for ``question``, in page order, joined by :data:`GAP` (counted in the
    budget)."""
    if budget < 1:
        raise ValueError(f"a page's text budget must be at least 1 character, got {budget}")
    if len(text) <= budget:
        return PageFit(text, len(text), ((0, len(text)),) if text else ())
    size = min(PASSAGE_CHARS, budget - 2 * len(GAP))
    if size < 1:  # too small a budget for a marked passage: the page's start
        return PageFit(text[:budget], len(text), ((0, budget),))
    windows = _windows(text, size)
    if not windows:  # only white space: nothing of the page is left out
        return PageFit("", len(text), ((0, len(text)),))
    scores = bm25_over([text[s:e] for s, e in windows], _K1, _B).page_scores(question)
    order = sorted(range(len(windows)), key=lambda i: (-scores[i], i))
    spans: list[tuple[int, int]] = []
    for index in order:
        candidate = _union([*spans, windows[index]])
        if _length(candidate, len(text)) <= budget:
            spans = candidate
    spans = _grow(text, spans, budget)
    return PageFit(_join(text, spans), len(text), tuple(spans))


@dataclass
class PageTexts:
    """The page texts one step reads for ``question`` under ``budget`` characters a page, and
    the pages it cut (:meth:`trace` gives the step's ``text_cut``)."""

    question: str
    budget: int
    cuts: dict[int, TextCut] = field(default_factory=dict)

    def read(self, page: int, text: str) -> str:
        """What is read of page ``page`` (0-based), whose text is ``text``."""
        fit = fit_page(text, self.question, self.budget)
        if fit.cut:
            self.cuts[page] = fit.record(page)
        return fit.text

    def trace(self, read_as_text: bool = True) -> dict[str, Any]:
        """``{"text_cut": [...]}`` for the trace step, by page; ``{}`` when no page was cut, or
        when the texts went with page images to a model that saw the images instead
        (``read_as_text`` false: its usage counted no image read as text)."""
        if not self.cuts or not read_as_text:
            return {}
        return {"text_cut": [self.cuts[p] for p in sorted(self.cuts)]}


def _windows(text: str, size: int) -> list[tuple[int, int]]:
    """Overlapping spans of whole words, at most ``size`` characters (a longer word is cut),
    each starting at the first word half a window after the last one's start."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    windows: list[tuple[int, int]] = []
    first = 0
    while first < len(words):
        start = words[first][0]
        last = first
        while last + 1 < len(words) and words[last + 1][1] - start <= size:
            last += 1
        windows.append((start, min(words[last][1], start + size)))
        if last + 1 >= len(words):
            break
        step = start + max(1, size // 2)
        following = next((i for i in range(first + 1, last + 1) if words[i][0] >= step), last + 1)
        first = following
    return windows


def _grow(text: str, spans: list[tuple[int, int]], budget: int) -> list[tuple[int, int]]:
    """The spans with the budget they leave used up: each span (in page order) extended by
    whole words, its end forward and then its start back, as far as the budget allows."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    for forward in (True, False):
        for i in range(len(spans)):
            room = budget - _length(spans, len(text))
            start, end = spans[i]
            if forward:
                limit = min(end + room, spans[i + 1][0] if i + 1 < len(spans) else len(text))
                ends = [e for _, e in words if end < e <= limit]
                spans[i] = (start, max(ends, default=end))
            else:
                limit = max(start - room, spans[i - 1][1] if i else 0)
                starts = [b for b, _ in words if limit <= b < start]
                spans[i] = (min(starts, default=start), end)
            spans = _union(spans)  # a span grown up to the next one joins it
            if i >= len(spans):
                break
    return spans


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _gaps(spans: list[tuple[int, int]], chars: int) -> int:
    """How many :data:`GAP` marks the spans need: between them, before and after them."""
    return len(spans) - 1 + (spans[0][0] > 0) + (spans[-1][1] < chars)


def _length(spans: list[tuple[int, int]], chars: int) -> int:
    return sum(end - start for start, end in spans) + len(GAP) * _gaps(spans, chars)


def _join(text: str, spans: list[tuple[int, int]]) -> str:
    parts = [text[start:end] for start, end in spans]
    head = GAP.lstrip("\n") if spans[0][0] > 0 else ""
    tail = GAP.rstrip("\n") if spans[-1][1] < len(text) else ""
    return head + GAP.join(parts) + tail
