"""Over a set of documents, a passage ranking (MDocAgent's ``search_with_repeats``) exists only
when every document's searcher ranks passages: page-level MaxSim searchers (ColBERT's default
``union``, dense text, ColPali) merge into a searcher without one, so MDocAgent reads their
page ranking over the set as it does within one document instead of failing."""

from __future__ import annotations

import torch

from docqa.retrievers.document_set import join_searchers
from docqa.retrievers.multivector import BestPassageSearcher, MaxSimSearcher, PageVectors

DIM = 4


def vectors(count: int, seed: int) -> PageVectors:
    generator = torch.Generator().manual_seed(seed)
    padded = torch.randn(count, 3, DIM, generator=generator)
    return PageVectors(padded, torch.ones(count, 3, dtype=torch.bool))


def encode(query: str) -> torch.Tensor:
    return torch.randn(2, DIM, generator=torch.Generator().manual_seed(len(query)))


def test_page_level_searchers_merge_without_a_passage_ranking() -> None:
    joined = join_searchers(
        [MaxSimSearcher(vectors(3, 1), encode), MaxSimSearcher(vectors(2, 2), encode)],
        [["a"] * 3, ["b"] * 2],
    )
    # one document's MaxSimSearcher has no passage ranking; neither has a set of them
    assert not hasattr(MaxSimSearcher(vectors(3, 1), encode), "search_with_repeats")
    assert not hasattr(joined, "search_with_repeats")
    assert sorted(joined.search("revenue", 5)) == [0, 1, 2, 3, 4]


def test_passage_searchers_merge_passage_by_passage() -> None:
    first = BestPassageSearcher(vectors(4, 3), [0, 0, 1, 2], 3, encode)
    second = BestPassageSearcher(vectors(3, 4), [0, 1, 1], 2, encode)
    joined = join_searchers([first, second], [["a"] * 3, ["b"] * 2])
    scores = torch.cat(
        [
            torch.as_tensor(first.passage_scores("q")[0]),
            torch.as_tensor(second.passage_scores("q")[0]),
        ]
    )
    owners = [0, 0, 1, 2, 3, 4, 4]  # the second document's pages follow the first's three
    expected = [owners[i] for i in torch.argsort(scores, descending=True, stable=True).tolist()]
    assert joined.search_with_repeats("q", 7) == expected
