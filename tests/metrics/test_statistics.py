"""docqa.metrics.bootstrap: bootstrap intervals and the paired bootstrap test."""

import pytest

from docqa.metrics.bootstrap import (
    bootstrap_ci,
    bootstrap_statistics,
    float_leaves,
    paired_bootstrap,
)


def test_bootstrap_ci_is_deterministic_contains_the_mean_and_narrows_with_n() -> None:
    scores = [0.0, 1.0, 1.0, 0.0, 1.0]
    low, high = bootstrap_ci(scores)
    assert bootstrap_ci(scores) == (low, high)
    assert low < 0.6 < high
    assert bootstrap_ci([0.5, 0.5]) == (0.5, 0.5)
    wide = bootstrap_ci([0.0, 1.0] * 5)
    narrow = bootstrap_ci([0.0, 1.0] * 500)
    assert narrow[1] - narrow[0] < (wide[1] - wide[0]) / 5
    assert bootstrap_ci([]) is None


def test_bootstrap_statistics_covers_every_float_leaf_and_skips_counts() -> None:
    rows = [{"score": v, "group": g} for v, g in [(1.0, "a"), (0.0, "a"), (1.0, "b"), (0.5, "b")]]

    def statistic(subset):
        groups = {}
        for row in subset:
            groups.setdefault(row["group"], []).append(row["score"])
        return {
            "mean": sum(r["score"] for r in subset) / len(subset),
            "questions": len(subset),
            "undefined": None,
            "by_group": {
                g: {"mean": sum(v) / len(v), "questions": len(v)} for g, v in groups.items()
            },
        }

    intervals = bootstrap_statistics(rows, statistic, resamples=200)
    assert set(intervals) == {("mean",), ("by_group", "a", "mean"), ("by_group", "b", "mean")}
    low, high = intervals[("mean",)]
    assert 0.0 <= low < 0.625 < high <= 1.0
    assert bootstrap_statistics([], statistic) == {}


def test_float_leaves() -> None:
    assert float_leaves({"a": 1.0, "b": {"c": 2.0, "n": 3}, "d": None}) == [
        (("a",), 1.0),
        (("b", "c"), 2.0),
    ]


def test_paired_bootstrap() -> None:
    same = paired_bootstrap([1.0, 0.0, 1.0], [1.0, 0.0, 1.0])
    assert (same.difference, same.p_value) == (0.0, 1.0)
    better = [1.0] * 40 + [0.0] * 10
    worse = [0.0] * 40 + [1.0] * 10
    test = paired_bootstrap(better, worse)
    assert test.questions == 50
    assert test.difference == pytest.approx(0.6)
    assert test.p_value < 0.01
    assert test.interval[0] > 0
    close = paired_bootstrap([1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0])
    assert close.p_value > 0.5
    assert paired_bootstrap([], []) is None
    with pytest.raises(ValueError, match="same questions"):
        paired_bootstrap([1.0], [1.0, 0.0])
