import pytest

from docqa.metrics.retrieval import aggregate, score


def test_scores_by_hand() -> None:
    got = score([3, 4], [0, 3, 5, 4])
    assert got["precision"] == pytest.approx(0.5)
    assert got["recall"] == 1.0
    assert got["f1"] == pytest.approx(2 / 3)
    assert (got["recall@1"], got["recall@3"], got["recall@5"]) == (0.0, 0.5, 1.0)
    assert got["mrr"] == pytest.approx(0.5)


def test_repeated_pages_count_once_at_their_first_place() -> None:
    got = score([3], [1, 1, 3, 3])
    assert got["precision"] == pytest.approx(0.5)
    assert got["mrr"] == pytest.approx(0.5)
    assert score([0], [0])["recall"] == 1.0  # page 0 is a page


def test_undefined_cases() -> None:
    assert set(score([], [1, 2]).values()) == {None}
    nothing_used = score([2], [])
    assert nothing_used["precision"] is None
    assert (nothing_used["recall"], nothing_used["f1"], nothing_used["mrr"]) == (0.0, 0.0, 0.0)
    assert score([2], [1], ks=(2,))["recall@2"] == 0.0


def test_aggregate_means_over_defined_values() -> None:
    rows = [score([1], [1]), score([2], []), score([], [3])]
    got = aggregate(rows)
    assert got["precision"] == 1.0  # only the first used pages
    assert got["recall"] == pytest.approx(0.5)
    assert aggregate([]) == dict.fromkeys(
        ["precision", "recall", "f1", "recall@1", "recall@3", "recall@5", "mrr"]
    )
