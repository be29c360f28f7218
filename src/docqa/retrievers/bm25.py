"""BM25 over the OCR text of each page (bm25s)."""

from __future__ import annotations

from pathlib import Path

import bm25s
import numpy as np

from docqa.retrievers import RETRIEVERS, IndexedPage, RetrieverOptions
from docqa.retrievers.manifest import read_manifest, write_manifest
from docqa.retrievers.ranking import top_pages
from docqa.runtime.spec import Field


def tokenize(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


class BM25Options(RetrieverOptions):
    """BM25's two parameters (Robertson et al.), bm25s's defaults."""

    k1: float = Field(1.5, gt=0, description="term frequency saturation")
    b: float = Field(0.75, ge=0, le=1, description="page length normalisation (0: none, 1: full)")


@RETRIEVERS.register("bm25", options=BM25Options)
class BM25Retriever:
    def __init__(self, options: BM25Options) -> None:
        self.options = options

    def build(self, pages: list[IndexedPage], out_dir: Path) -> None:
        k1, b = self.options.k1, self.options.b
        write_manifest(out_dir, len(pages), k1=k1, b=b)
        tokens = tokenize([page.text for page in pages])
        if not any(tokens):
            return  # no text at all: the searcher falls back to page order
        index = bm25s.BM25(k1=k1, b=b)
        index.index(tokens, show_progress=False)
        index.save(str(out_dir / "bm25"), show_progress=False)

    def load(self, index_dir: Path) -> BM25Searcher:
        k1, b = self.options.k1, self.options.b
        pages = read_manifest(index_dir, k1=k1, b=b)["pages"]
        stored = index_dir / "bm25"
        index = bm25s.BM25.load(str(stored), show_progress=False) if stored.exists() else None
        return BM25Searcher(index, pages, k1, b)


def bm25_over(texts: list[str], k1: float, b: float) -> BM25Searcher:
    """A BM25 searcher over ``texts`` built in memory: one index over the pages of several
    documents, so that term statistics (IDF, mean page length) are the set's, as if its pages
    were one document. A few hundred pages index in milliseconds."""
    tokens = tokenize(texts)
    index = None
    if any(tokens):
        index = bm25s.BM25(k1=k1, b=b)
        index.index(tokens, show_progress=False)
    return BM25Searcher(index, len(texts), k1, b)


class BM25Searcher:
    def __init__(self, index: bm25s.BM25 | None, pages: int, k1: float, b: float) -> None:
        self.index = index
        self.pages = pages
        self.k1 = k1
        self.b = b

    def page_scores(self, query: str) -> np.ndarray:
        """Every page's BM25 score (all 0 when nothing in the query is in the index)."""
        if self.index is None:
            return np.zeros(self.pages)  # no text anywhere: page order
        known = [t for t in tokenize([query])[0] if t in self.index.vocab_dict]
        if not known:
            return np.zeros(self.pages)  # nothing to match on: page order
        return np.asarray(self.index.get_scores(known), dtype=np.float64)

    def search(self, query: str, k: int) -> list[int]:
        return top_pages(self.page_scores(query), k)
