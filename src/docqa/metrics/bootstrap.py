"""Bootstrap confidence intervals and paired bootstrap tests over questions.

The benchmarks report point estimates only. Here every aggregate gets a 95% percentile
bootstrap interval: the questions are resampled with replacement ``resamples`` times, the
aggregate is recomputed on each resample, and the interval is the 2.5th and 97.5th percentile
of those values. The seed is fixed, so a score file is reproducible, and each call starts
from it, so one interval never depends on what else was computed.

Two methods scored on the same questions are compared with a paired bootstrap: the same
resampled questions are used for both, and the p-value is two-sided, from the resampled
differences centred on the observed one (the null distribution by shifting).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

RESAMPLES = 1000
PAIRED_RESAMPLES = 10_000
SEED = 0
LEVEL = 0.95

T = TypeVar("T")
Interval = tuple[float, float]
KeyPath = tuple[str, ...]


def resample_indices(size: int, resamples: int, seed: int) -> np.ndarray:
    """``resamples`` rows of ``size`` question indices drawn with replacement."""
    return np.random.default_rng(seed).integers(0, size, size=(resamples, size))


def percentile_interval(values: Sequence[float] | np.ndarray, level: float = LEVEL) -> Interval:
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(np.asarray(values, dtype=float), [tail, 100.0 - tail])
    return float(low), float(high)


def bootstrap_ci(
    values: Sequence[float],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> Interval | None:
    """Interval of the mean of ``values``; ``None`` for no values."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return None
    means = data[resample_indices(data.size, resamples, seed)].mean(axis=1)
    return percentile_interval(means, level)


def bootstrap_statistics(
    items: Sequence[T],
    statistic: Callable[[Sequence[T]], Mapping[str, Any]],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> dict[KeyPath, Interval]:
    """Intervals of every statistic ``statistic(items)`` returns, by its key path.

    ``statistic`` returns a possibly nested mapping; its ``float`` leaves are statistics
    (``int`` leaves are counts, ``None`` is undefined, both are skipped). A statistic that is
    undefined on some resamples (a group no resampled question falls in) gets its interval
    from the resamples where it is defined.
    """
    if not items:
        return {}
    draws: dict[KeyPath, list[float]] = {}
    for indices in resample_indices(len(items), resamples, seed):
        resampled = [items[i] for i in indices]
        for path, value in float_leaves(statistic(resampled)):
            draws.setdefault(path, []).append(value)
    return {path: percentile_interval(values, level) for path, values in draws.items()}


def float_leaves(tree: Mapping[str, Any], prefix: KeyPath = ()) -> list[tuple[KeyPath, float]]:
    """(key path, value) of every ``float`` leaf of a nested mapping."""
    leaves: list[tuple[KeyPath, float]] = []
    for key, value in tree.items():
        if isinstance(value, Mapping):
            leaves.extend(float_leaves(value, (*prefix, str(key))))
        elif isinstance(value, float):
            leaves.append(((*prefix, str(key)), value))
    return leaves


@dataclass(frozen=True)
class PairedTest:
    """``difference`` is mean(a) - mean(b) on the shared questions; ``interval`` its
    bootstrap interval; ``p_value`` two-sided, for no difference."""

    questions: int
    difference: float
    interval: Interval
    p_value: float


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    resamples: int = PAIRED_RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> PairedTest | None:
    """Paired bootstrap of two methods' per-question scores (same questions, same order).

    ``None`` for no questions. The p-value is ``(1 + #{|d* - d| >= |d|}) / (1 + resamples)``
    with d the observed mean difference and d* the resampled ones, so it is never 0.
    """
    first, second = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if first.shape != second.shape:
        raise ValueError(
            f"paired_bootstrap: {first.size} and {second.size} scores; a paired test needs one "
            "score per question from each method, on the same questions"
        )
    if first.size == 0:
        return None
    differences = first - second
    observed = float(differences.mean())
    resampled = differences[resample_indices(differences.size, resamples, seed)].mean(axis=1)
    extreme = int(np.sum(np.abs(resampled - observed) >= abs(observed) - 1e-12))
    return PairedTest(
        questions=int(differences.size),
        difference=observed,
        interval=percentile_interval(resampled, level),
        p_value=(1 + extreme) / (1 + resamples),
    )
