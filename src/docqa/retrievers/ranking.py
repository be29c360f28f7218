"""Turning page scores into a ranking, the same way for every retriever."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: reciprocal rank fusion's constant (Cormack et al., 2009)
RRF_K = 60


def rrf_scores(rankings: Sequence[Sequence[int]], size: int, rrf_k: int = RRF_K) -> np.ndarray:
    """Reciprocal-rank-fusion scores of ``size`` items from best-first rankings:
    ``1 / (rrf_k + rank)`` summed over the rankings an item appears in."""
    scores = np.zeros(size)
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] += 1.0 / (rrf_k + rank)
    return scores


def top_pages(scores: Sequence[float] | np.ndarray, k: int) -> list[int]:
    """The ``k`` best pages by score, best first.

    Ties keep page order (a stable sort), so a ranking never depends on the sort algorithm.
    NaN scores count as the lowest, as does ``-inf`` (a page with nothing to match on).
    """
    values = np.nan_to_num(np.asarray(scores, dtype=np.float64), nan=-np.inf)
    k = min(k, len(values))
    if k <= 0:
        return []
    return [int(page) for page in np.argsort(-values, kind="stable")[:k]]
