"""ColBERT late interaction over the OCR text of each page, exact MaxSim within the document.

The encoder is sentence-transformers' ``MultiVectorEncoder``, its port of PyLate's ColBERT
model: it loads PyLate checkpoints and Stanford-NLP ColBERT checkpoints such as
``colbert-ir/colbertv2.0`` (query/document markers, query expansion, punctuation skiplist),
without PyLate itself, whose pins (transformers<=5.3, torch 2.11) conflict with docqa's. As in
MDocAgent, pages are cut into chunks (passages) that fit the document length. How a page is
scored from its passages is option ``page_score``:

* ``union`` (default): a page keeps the token vectors of all its passages, and MaxSim runs over
  their union; every query token finds its best match anywhere on the page, which favours long
  pages;
* ``best_passage``: each passage is scored on its own and a page scores as its best passage,
  which is how MDocAgent ranks pages (RAGatouille ranks passages, and the page of each
  passage is read in passage order; ``retrieval/text_retrieval.py`` of aiming-lab/MDocAgent).

A page without text has no vectors and ranks last.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from docqa.retrievers import RETRIEVERS, Device, IndexedPage, RetrieverOptions
from docqa.retrievers.chunks import page_chunks
from docqa.retrievers.manifest import read_manifest, write_manifest
from docqa.retrievers.model_files import check_device, model_folder
from docqa.retrievers.multivector import (
    BestPassageSearcher,
    MaxSimSearcher,
    PageVectors,
    save_page_vectors,
)
from docqa.runtime.spec import Field

if TYPE_CHECKING:
    import torch
    from sentence_transformers import MultiVectorEncoder

NAME = "colbert"


@lru_cache(maxsize=4)
def _encoder(folder: Path, device: str) -> MultiVectorEncoder:
    from sentence_transformers import MultiVectorEncoder

    check_device(device, NAME)
    return MultiVectorEncoder(str(folder), device=device, local_files_only=True)


class ColBERTOptions(RetrieverOptions):
    model: str = Field(description="a local ColBERT folder (PyLate or Stanford format)")
    device: Device = Field("cpu", description="cpu, cuda or cuda:N")
    batch_size: int = Field(32, ge=1, description="passages encoded at once")
    chunk_words: int = Field(120, ge=1, description="pages are cut in passages of this many words")
    page_score: Literal["union", "best_passage"] = Field(
        "union",
        description="MaxSim over the union of a page's passages, or its best passage (MDocAgent)",
    )


@RETRIEVERS.register(NAME, options=ColBERTOptions)
class ColBERTRetriever:
    def __init__(self, options: ColBERTOptions) -> None:
        self.options = options

    def _encoder(self) -> MultiVectorEncoder:
        return _encoder(model_folder(self.options.model, NAME), self.options.device)

    def _encode_query(self, query: str) -> torch.Tensor:
        return self._encoder().encode_query([query])[0].cpu()

    def build(self, pages: list[IndexedPage], out_dir: Path) -> None:
        import torch

        chunks = [page_chunks(page.text, self.options.chunk_words) for page in pages]
        flat = [chunk for page in chunks for chunk in page]
        encoder = self._encoder()
        encoded: Any = (
            encoder.encode_document(flat, batch_size=self.options.batch_size) if flat else []
        )
        if self.options.page_score == "best_passage":  # one vector set per passage, and its page
            owners = [page for page, page_chunks_ in enumerate(chunks) for _ in page_chunks_]
            passages = list(encoded) if flat else [torch.zeros(0)]
            save_page_vectors(out_dir, passages)
            write_manifest(out_dir, len(pages), passage_pages=owners, **self._built_with())
            return
        vectors, start = [], 0
        for page in chunks:
            tokens = encoded[start : start + len(page)]
            vectors.append(torch.cat(tokens) if tokens else torch.zeros(0))
            start += len(page)
        save_page_vectors(out_dir, vectors)
        write_manifest(out_dir, len(pages), **self._built_with())

    def _built_with(self) -> dict[str, Any]:
        built = {"model": self.options.model, "chunk_words": self.options.chunk_words}
        if self.options.page_score != "union":  # indexes built before the option stay valid
            built["page_score"] = self.options.page_score
        return built

    def load(self, index_dir: Path) -> MaxSimSearcher | BestPassageSearcher:
        manifest = read_manifest(index_dir, **self._built_with())
        if self.options.page_score == "best_passage":
            return BestPassageSearcher(
                PageVectors.load(index_dir),
                manifest["passage_pages"],
                manifest["pages"],
                self._encode_query,
            )
        return MaxSimSearcher(PageVectors.load(index_dir), self._encode_query)
