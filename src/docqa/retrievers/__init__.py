"""Page retrievers: rank the pages of one document for a query.

Retrieval happens within a document (as in MDocAgent and M3DocRAG), so each retriever builds one
small index per document at the index stage and methods load it at inference time. A retriever
module registers a class with ``build`` (pages → index folder) and ``load`` (folder → searcher).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from docqa.registry import Registry


class PageSearcher(Protocol):
    pages: int

    def search(self, query: str, k: int) -> list[int]:
        """The indices of the ``k`` best pages, best first (fewer if the document is shorter)."""


class PageRetriever(Protocol):
    def build(self, page_texts: list[str], out_dir: Path) -> None: ...

    def load(self, index_dir: Path) -> PageSearcher: ...


RETRIEVERS: Registry[type[PageRetriever]] = Registry("retriever")


def load_retrievers() -> None:
    """Import every retriever module so that it registers itself."""
    from docqa.retrievers import bm25  # noqa: F401
