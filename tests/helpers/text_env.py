"""Small documents for method tests (blank page images of distinct shades, the given page
texts, a BM25 index over them, or a searcher whose ranking is given), and running a method
once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PIL import Image

from docqa.backends.base import Backend
from docqa.backends.client import ModelClient
from docqa.core.document import Document, Page
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods.base import DocumentEnv, Method, Models
from docqa.retrievers import IndexedPage
from docqa.retrievers.bm25 import BM25Options, BM25Retriever


def text_env(folder: Path, doc_id: str, texts: list[str], shade: int = 50) -> DocumentEnv:
    """Document ``doc_id`` with one 40x30 page per text (page i shaded ``i * shade``) and a
    ``bm25`` searcher over the texts, its files under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    pages = []
    for index in range(len(texts)):
        path = folder / f"{doc_id}-page{index}.png"
        Image.new("RGB", (40, 30), (index * shade % 256, 10, 10)).save(path)
        pages.append(Page(doc_id, index, str(path), 40, 30, 72))
    retriever = BM25Retriever(BM25Options())
    index_dir = folder / f"{doc_id}-index"
    retriever.build([IndexedPage(t, Path(p.image)) for t, p in zip(texts, pages, strict=True)],
                    index_dir)  # fmt: skip
    return DocumentEnv(
        Document(doc_id, f"{doc_id}.pdf", len(texts)),
        pages,
        list(texts),
        {"bm25": retriever.load(index_dir)},
    )


def answer(method: Method, env: DocumentEnv, backend: Backend, question: Question) -> Prediction:
    """``method``'s answer to ``question`` in ``env``, its model ``backend``."""

    async def go() -> Prediction:
        client = ModelClient(backend)
        try:
            return await method.answer(question, env, Models(client))
        finally:
            await client.close()

    return asyncio.run(go())


class FixedRanking:
    """A searcher whose ranking is given (it may repeat a page, as a passage ranking can)."""

    def __init__(self, order: list[int], pages: int) -> None:
        self.order = order
        self.pages = pages

    def search(self, query: str, k: int) -> list[int]:
        return self.order[:k]
