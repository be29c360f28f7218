"""BM25 over the text of each page (bm25s), scoring each page whole or by its best passage.

With ``passage_words`` a page is cut into passages of that many words (consecutive ones
sharing a third of them, :func:`docqa.retrievers.chunks.page_chunks`), every passage of the
document is indexed on its own, and a page scores as its best passage (MaxP: Dai and Callan,
"Deeper Text Understanding for IR with Contextual Neural Language Modeling", SIGIR 2019): the
one paragraph that answers a question is not outweighed by the rest of a dense page, nor a
short page favoured by length normalisation alone.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import bm25s
import numpy as np

from docqa.retrievers import RETRIEVERS, IndexedPage, RetrieverOptions
from docqa.retrievers.chunks import page_chunks
from docqa.retrievers.manifest import read_manifest, write_manifest
from docqa.retrievers.ranking import top_pages
from docqa.runtime.spec import Field


def tokenize(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


#: the page of each indexed passage, beside an index of passages
OWNERS = "passage_pages.npy"


class BM25Options(RetrieverOptions):
    """BM25's two parameters (Robertson et al., bm25s's defaults) and what a page is scored by."""

    k1: float = Field(1.5, gt=0, description="term frequency saturation")
    b: float = Field(0.75, ge=0, le=1, description="page length normalisation (0: none, 1: full)")
    passage_words: int | None = Field(
        None,
        ge=3,
        description="score a page by its best passage of this many words (passages overlap by "
        "a third) instead of as a whole: a long page is not outweighed by its other text "
        "(null: whole pages)",
    )


def passages(texts: list[str], words: int | None) -> tuple[list[str], np.ndarray | None]:
    """The units BM25 indexes: ``texts`` themselves (no owners), or every text's passages of
    ``words`` words with the index of the text each comes from."""
    if words is None:
        return texts, None
    units, owners = [], []
    for page, text in enumerate(texts):
        for passage in page_chunks(text, words, overlap=words // 3):
            units.append(passage)
            owners.append(page)
    return units, np.asarray(owners, dtype=np.int64)


def bm25_index(units: list[str], k1: float, b: float) -> bm25s.BM25 | None:
    """A BM25 index over ``units`` (pages or passages); None when none has a word to index."""
    tokens = tokenize(units)
    if not any(tokens):
        return None
    index = bm25s.BM25(k1=k1, b=b)
    index.index(tokens, show_progress=False)
    return index


@RETRIEVERS.register("bm25", options=BM25Options)
class BM25Retriever:
    def __init__(self, options: BM25Options) -> None:
        self.options = options

    def build(self, pages: list[IndexedPage], out_dir: Path) -> None:
        k1, b, words = self.options.k1, self.options.b, self.options.passage_words
        write_manifest(out_dir, len(pages), k1=k1, b=b, passage_words=words)
        shutil.rmtree(out_dir / "bm25", ignore_errors=True)  # an earlier build's, never read again
        (out_dir / OWNERS).unlink(missing_ok=True)
        units, owners = passages([page.text for page in pages], words)
        index = bm25_index(units, k1, b)
        if index is None:
            return  # no text at all: the searcher falls back to page order
        index.save(str(out_dir / "bm25"), show_progress=False)
        if owners is not None:
            np.save(out_dir / OWNERS, owners)

    def load(self, index_dir: Path) -> BM25Searcher:
        k1, b, words = self.options.k1, self.options.b, self.options.passage_words
        pages = read_manifest(index_dir, k1=k1, b=b, passage_words=words)["pages"]
        stored = index_dir / "bm25"
        index = bm25s.BM25.load(str(stored), show_progress=False) if stored.exists() else None
        owners = np.load(index_dir / OWNERS) if index is not None and words else None
        return BM25Searcher(index, pages, k1, b, words, owners)


def bm25_over(
    texts: list[str], k1: float, b: float, passage_words: int | None = None
) -> BM25Searcher:
    """A BM25 searcher over ``texts`` built in memory: one index over the pages of several
    documents, so that term statistics (IDF, mean page length) are the set's, as if its pages
    were one document. A few hundred pages index in milliseconds."""
    units, owners = passages(texts, passage_words)
    return BM25Searcher(bm25_index(units, k1, b), len(texts), k1, b, passage_words, owners)


class BM25Searcher:
    def __init__(
        self,
        index: bm25s.BM25 | None,
        pages: int,
        k1: float,
        b: float,
        passage_words: int | None = None,
        owners: np.ndarray | None = None,
    ) -> None:
        self.index = index
        self.pages = pages
        self.k1 = k1
        self.b = b
        self.passage_words = passage_words
        #: the page of each indexed passage (None: the index holds whole pages)
        self.owners = owners

    def page_scores(self, query: str) -> np.ndarray:
        """Every page's BM25 score, or its best passage's (all 0 when nothing in the query is
        in the index)."""
        if self.index is None:
            return np.zeros(self.pages)  # no text anywhere: page order
        known = [t for t in tokenize([query])[0] if t in self.index.vocab_dict]
        if not known:
            return np.zeros(self.pages)  # nothing to match on: page order
        scores = np.asarray(self.index.get_scores(known), dtype=np.float64)
        if self.owners is None:
            return scores
        best = np.zeros(self.pages)
        np.maximum.at(best, self.owners, scores)
        return best

    def search(self, query: str, k: int) -> list[int]:
        return top_pages(self.page_scores(query), k)
