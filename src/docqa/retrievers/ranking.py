"""Turning page scores into a ranking, the same way for every retriever."""

from __future__ import annotations

from typing import Sequence

import numpy as np


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
