"""BM25 over the OCR text of each page (bm25s)."""

from __future__ import annotations

import json
from pathlib import Path

import bm25s

from docqa.retrievers import RETRIEVERS


def _tokenize(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


@RETRIEVERS.register("bm25")
class BM25Retriever:
    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b

    def build(self, page_texts: list[str], out_dir: Path) -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "pages.json").write_text(json.dumps({"pages": len(page_texts)}))
        tokens = _tokenize(page_texts)
        if not any(tokens):
            return  # no text at all: the searcher falls back to page order
        index = bm25s.BM25(k1=self.k1, b=self.b)
        index.index(tokens, show_progress=False)
        index.save(str(out_dir / "bm25"), show_progress=False)

    def load(self, index_dir: Path) -> "BM25Searcher":
        pages = json.loads((index_dir / "pages.json").read_text())["pages"]
        stored = index_dir / "bm25"
        index = bm25s.BM25.load(str(stored), show_progress=False) if stored.exists() else None
        return BM25Searcher(index, pages)


class BM25Searcher:
    def __init__(self, index: bm25s.BM25 | None, pages: int) -> None:
        self.index = index
        self.pages = pages

    def search(self, query: str, k: int) -> list[int]:
        k = min(k, self.pages)
        if k <= 0:
            return []
        query_tokens = _tokenize([query])[0]
        known = [t for t in query_tokens if self.index is not None and t in self.index.vocab_dict]
        if not known:
            return list(range(k))  # nothing to match on: first pages, a deterministic fallback
        scores = self.index.get_scores(known)
        # stable ranking: ties keep page order, so the result never depends on numpy's sort
        return sorted(range(self.pages), key=lambda page: (-float(scores[page]), page))[:k]
