"""Joint retrieval of pages and their elements with the original query and the sub-queries.

Pages are ranked by the method's ``retriever`` (any configured page retriever: ``bm25``,
``dense_text``, a page-image retriever such as ``colqwen2``; its index comes from the index
stage) once per query; the rankings are fused by reciprocal rank fusion
(:func:`docqa.retrievers.ranking.rrf_scores`; the original query first, so that it wins ties).
Elements are ranked among the elements of the chosen pages, by BM25 over each element's kind,
description and OCR text (the bm25 retriever's tokenizer), fused over the queries the same way;
an element that matches no query word is never chosen.
"""

from __future__ import annotations

from collections.abc import Sequence

import bm25s
import numpy as np

from docqa.methods.slideagent.knowledge import DescribedElement
from docqa.retrievers import PageSearcher
from docqa.retrievers.bm25 import tokenize
from docqa.retrievers.ranking import rrf_scores, top_pages


def retrieve_pages(
    searchers: PageSearcher | Sequence[PageSearcher], queries: Sequence[str], k: int
) -> list[int]:
    """The ``k`` best pages for the queries together, over every searcher's rankings (the
    page ranking first, then the knowledge ranking, query by query)."""
    if not isinstance(searchers, Sequence):
        searchers = [searchers]
    size = max(searcher.pages for searcher in searchers)
    rankings = [s.search(query, s.pages) for s in searchers for query in queries]
    return top_pages(rrf_scores(rankings, size), k)


def retrieve_elements(
    elements: Sequence[DescribedElement], queries: Sequence[str], k: int
) -> list[DescribedElement]:
    """The ``k`` best elements for the queries together, best first."""
    if not elements or k <= 0:
        return []
    corpus = [f"{e.kind} {e.description} {e.text}" for e in elements]
    tokens = tokenize(corpus)
    if not any(tokens):
        return []
    index = bm25s.BM25()
    index.index(tokens, show_progress=False)
    rankings = []
    matched = np.zeros(len(elements), dtype=bool)
    for query in queries:
        known = [word for word in tokenize([query])[0] if word in index.vocab_dict]
        if not known:
            continue
        scores = index.get_scores(known)
        matched |= scores > 0
        rankings.append([i for i in top_pages(scores, len(elements)) if scores[i] > 0])
    fused = rrf_scores(rankings, len(elements))
    fused[~matched] = -np.inf
    return [elements[i] for i in top_pages(fused, k) if matched[i]]
