"""Evidence-page retrieval scores: the pages a method used against the gold evidence pages.

Pages are 0-based indices. ``pred`` lists the pages in the order the method ranked or read
them; a page listed twice counts once, at its first place. Per question:

- ``precision``: the share of the distinct pages used that are gold pages; ``None`` when no
  page was used;
- ``recall``: the share of the gold pages among the pages used;
- ``f1``: their harmonic mean, 0 when no page was used or none is gold;
- ``recall@k``: recall over the first k distinct pages, for each k in ``ks``;
- ``mrr``: the reciprocal rank of the first gold page (0 when none is used).

Every score is ``None`` for a question without gold pages (unanswerable or unannotated ones),
which would otherwise count every page as wrong.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from statistics import fmean
from typing import Any

KS = (1, 3, 5)


def score(
    gold: Sequence[Hashable],
    pred: Sequence[Hashable],
    *,
    answer_format: str | None = None,
    question: str | None = None,
    ks: Sequence[int] = KS,
) -> dict[str, float | None]:
    """Page ``precision``, ``recall``, ``f1``, ``recall@k`` and ``mrr`` of one question; pages
    are page indices, or (document, page) pairs for a question over several documents."""
    expected = set(gold)
    ranked = list(dict.fromkeys(pred))
    if not expected:
        return dict.fromkeys(score_names(ks))
    hits = [page in expected for page in ranked]
    recall = sum(hits) / len(expected)
    precision = sum(hits) / len(ranked) if ranked else None
    f1 = 0.0 if not precision else 2 * precision * recall / (precision + recall)
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        **{f"recall@{k}": sum(hits[:k]) / len(expected) for k in ks},
        "mrr": next((1.0 / rank for rank, hit in enumerate(hits, start=1) if hit), 0.0),
    }


def score_names(ks: Sequence[int] = KS) -> list[str]:
    """The names of the scores :func:`score` gives."""
    return ["precision", "recall", "f1", *(f"recall@{k}" for k in ks), "mrr"]


def aggregate(rows: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """The mean of each score over the questions where it is defined (``None`` if nowhere;
    with no rows, ``None`` for each of the default scores)."""
    names = list(dict.fromkeys(name for row in rows for name in row)) or score_names()
    return {name: _mean([row.get(name) for row in rows]) for name in names}


def _mean(values: Sequence[float | None]) -> float | None:
    defined = [value for value in values if value is not None]
    return fmean(defined) if defined else None
