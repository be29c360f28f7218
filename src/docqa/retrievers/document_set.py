"""One page ranking over several documents, from the searchers of each.

Indexes are built per document (the index stage); a question over several documents ranks the
pages of all of them at once, numbered end to end in document order (the first document's
pages, then the second's, ...). How the per-document searchers are joined depends on what
their scores mean:

- BM25: one in-memory index over the set's page texts, so that term statistics (IDF, mean
  page length) are the set's; per-document indexes weigh the same term differently.
- hybrid (reciprocal rank fusion): each component joined over the set, then fused, as the
  hybrid retriever fuses within one document.
- every other retriever (dense text, ColBERT, ColPali, ColQwen2): page scores come from one
  model and one query, so they compare across documents and are merged as they are; ColBERT's
  passage ranking (``search_with_repeats``) is merged passage by passage the same way.

Ties keep document order, then page order, as within one document.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from docqa.retrievers import PageSearcher
from docqa.retrievers.bm25 import BM25Searcher, bm25_over
from docqa.retrievers.hybrid import FusedSearcher
from docqa.retrievers.ranking import top_pages


def join_searchers(searchers: Sequence[Any], texts: Sequence[Sequence[str]]) -> PageSearcher:
    """One searcher over the pages of every document, numbered end to end: ``searchers`` are
    one retriever's searchers of the documents in order, ``texts`` their page texts."""
    if len(searchers) != len(texts):
        raise ValueError(f"{len(searchers)} searchers for {len(texts)} documents")
    if all(isinstance(searcher, BM25Searcher) for searcher in searchers):
        first = searchers[0]
        return bm25_over(
            [text for pages in texts for text in pages], first.k1, first.b, first.passage_words
        )
    if all(isinstance(searcher, FusedSearcher) for searcher in searchers):
        components = len(searchers[0].searchers)
        joined = [
            join_searchers([searcher.searchers[i] for searcher in searchers], texts)
            for i in range(components)
        ]
        return FusedSearcher(joined, searchers[0].rrf_k, sum(len(pages) for pages in texts))
    if all(hasattr(searcher, "passage_scores") for searcher in searchers):
        return MergedPassageSearcher(list(searchers))
    return MergedSearcher(list(searchers))


class MergedSearcher:
    """Pages of several documents ranked by their own searchers' scores, end to end."""

    def __init__(self, searchers: list[Any]) -> None:
        missing = [type(s).__name__ for s in searchers if not hasattr(s, "page_scores")]
        if missing:
            raise TypeError(
                f"searchers {missing} give no page_scores, so their pages cannot be ranked "
                "against other documents' pages; add page_scores(query) to the searcher"
            )
        self.searchers = searchers
        self.starts = np.cumsum([0] + [s.pages for s in searchers[:-1]]).tolist()
        self.pages = sum(s.pages for s in searchers)

    def page_scores(self, query: str) -> np.ndarray:
        return np.concatenate([np.asarray(s.page_scores(query)) for s in self.searchers])

    def search(self, query: str, k: int) -> list[int]:
        if k <= 0:
            return []
        return top_pages(self.page_scores(query), k)


class MergedPassageSearcher(MergedSearcher):
    """Merged searchers that rank passages (a best-passage ColBERT index): the set also has
    the passage ranking MDocAgent reads, which page-level searchers (MaxSim over whole pages,
    dense text) lack, so a set of those offers no ``search_with_repeats`` either."""

    def search_with_repeats(self, query: str, k: int) -> list[int]:
        """The pages of the ``k`` best passages over every document, a page once per passage."""
        if k <= 0:
            return []
        scores, pages = [], []
        for searcher, start in zip(self.searchers, self.starts, strict=True):
            passage_scores, owners = searcher.passage_scores(query)
            scores.append(np.asarray(passage_scores))
            pages += [start + page for page in owners]
        if not pages:
            return []
        return [pages[i] for i in top_pages(np.concatenate(scores), k)]
