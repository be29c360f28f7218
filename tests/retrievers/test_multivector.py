"""Page-vector storage and exact MaxSim, on vectors small enough to score by hand."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from docqa.retrievers import multivector
from docqa.retrievers.multivector import MaxSimSearcher, PageVectors, save_page_vectors
from docqa.retrievers.ranking import top_pages

PAGES = [
    torch.tensor([[1.0, 0.0], [0.0, 1.0]]),  # page 0: both directions
    torch.tensor([[0.6, 0.8]]),  # page 1: one vector between them
    torch.zeros(0),  # page 2: nothing to match on (no text)
    torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.5, 0.0]]),  # page 3: x only
]


def stored(tmp_path: Path) -> PageVectors:
    save_page_vectors(tmp_path, PAGES)
    return PageVectors.load(tmp_path)


def test_maxsim_sums_each_query_vectors_best_match(tmp_path: Path) -> None:
    vectors = stored(tmp_path)
    assert vectors.pages == 4
    scores = vectors.maxsim(torch.tensor([[1.0, 0.0], [0.0, 1.0]])).tolist()
    assert scores[0] == pytest.approx(2.0)
    assert scores[1] == pytest.approx(0.6 + 0.8, abs=1e-3)  # float16 storage
    assert scores[2] == -math.inf
    assert scores[3] == pytest.approx(1.0)


def test_searcher_ranks_by_maxsim_and_pages_without_vectors_last(tmp_path: Path) -> None:
    searcher = MaxSimSearcher(stored(tmp_path), lambda query: torch.tensor([[0.0, 1.0]]))
    assert searcher.search("y", 4) == [0, 1, 3, 2]  # page 3 scores 0 and still beats page 2
    assert searcher.search("y", 2) == [0, 1]
    assert searcher.search("y", 0) == []


def test_scoring_in_blocks_matches_scoring_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = torch.Generator().manual_seed(0)
    pages = [torch.randn(int(n), 8, generator=generator) for n in torch.randint(0, 9, (150,))]
    save_page_vectors(tmp_path, pages)
    query = torch.randn(3, 8, generator=generator)
    expected = [
        (query @ page.to(torch.float16).float().T).max(dim=1).values.sum().item()
        if len(page)
        else -math.inf
        for page in pages
    ]
    vectors = PageVectors.load(tmp_path)
    at_once = vectors.maxsim(query).tolist()
    assert at_once == pytest.approx(expected, abs=1e-4)
    monkeypatch.setattr(multivector, "SIMILARITY_BLOCK", 7 * 8 * 3)  # 7 pages a block
    assert vectors.maxsim(query).tolist() == pytest.approx(at_once, abs=1e-6)


def test_a_document_without_any_vector_ranks_in_page_order(tmp_path: Path) -> None:
    save_page_vectors(tmp_path, [torch.zeros(0), torch.zeros(0)])
    searcher = MaxSimSearcher(PageVectors.load(tmp_path), lambda query: torch.ones(1, 4))
    assert searcher.search("anything", 2) == [0, 1]


def test_broken_vectors_are_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="attn_implementation: eager"):
        save_page_vectors(tmp_path, [torch.tensor([[float("nan"), 0.0]])])
    with pytest.raises(ValueError, match="different dims"):
        save_page_vectors(tmp_path, [torch.ones(1, 2), torch.ones(1, 3)])
    with pytest.raises(FileNotFoundError, match="rerun the index stage"):
        PageVectors.load(tmp_path / "missing")


def test_top_pages_is_stable_and_puts_nan_last() -> None:
    assert top_pages([0.5, 1.0, 0.5, float("nan"), 1.0], 5) == [1, 4, 0, 2, 3]
    assert top_pages([0.1, 0.2], 10) == [1, 0]
    assert top_pages([], 3) == []
