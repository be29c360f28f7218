"""Evidence-page recall and precision of the pages a prediction used (0-based indices)."""

from __future__ import annotations

from typing import Sequence


def page_recall(used: Sequence[int], gold: Sequence[int]) -> float | None:
    """Share of the gold evidence pages among the pages used; ``None`` without gold pages."""
    expected = set(gold)
    if not expected:
        return None
    return len(expected & set(used)) / len(expected)


def page_precision(used: Sequence[int], gold: Sequence[int]) -> float | None:
    """Share of the pages used that are gold evidence pages.

    ``None`` when no pages were used, and also when the question has no gold evidence pages:
    unanswerable questions and unannotated ones would otherwise count every page as wrong.
    """
    pages, expected = set(used), set(gold)
    if not pages or not expected:
        return None
    return len(expected & pages) / len(pages)
