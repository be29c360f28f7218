"""ColBERT late interaction over the OCR text of each page, exact MaxSim within the document.

The encoder is sentence-transformers' ``MultiVectorEncoder``, its port of PyLate's ColBERT
model: it loads PyLate checkpoints and Stanford-NLP ColBERT checkpoints such as
``colbert-ir/colbertv2.0`` (query/document markers, query expansion, punctuation skiplist),
without PyLate itself, whose pins (transformers<=5.3, torch 2.11) conflict with docqa's. As in
MDocAgent, pages are cut into chunks (passages) that fit the document length, consecutive ones
sharing ``overlap_words`` words (RAGatouille's splitter overlaps by 64 of 256 tokens). How a
page is scored from its passages is option ``page_score``:

* ``union`` (default): a page keeps the token vectors of all its passages, and MaxSim runs over
  their union; every query token finds its best match anywhere on the page, which favours long
  pages;
* ``best_passage``: each passage is scored on its own and a page scores as its best passage,
  which is how MDocAgent ranks pages (RAGatouille ranks passages, and the page of each
  passage is read in passage order; ``retrieval/text_retrieval.py`` of aiming-lab/MDocAgent).

A page without text has no vectors and ranks last.

**Document length.** The encoder reads at most ``doc_maxlen`` tokens of a passage (its
``[D]`` marker and ``[CLS]``/``[SEP]`` included) and drops the rest. A Stanford checkpoint
carries its training length (``artifact.metadata``: 180 for ``colbertv2.0``), which would cut a
190-word passage; RAGatouille, which MDocAgent indexes with, sets ``doc_maxlen`` to its
passage length (``max_document_length``, 256 tokens: its passages are split to that length).
docqa's passages are counted in words (``chunk_words``), so the default (``null``) is the
encoder's own positions (512 for ColBERTv2's BERT): every passage is read whole, as in
RAGatouille. The build records the length in the index manifest, with ``passages_cut``, the
passages longer than it (0 unless ``doc_maxlen`` is set below the passages or a passage
outgrows the encoder).

**Query length.** A ColBERT query is padded with ``[MASK]`` up to ``query_maxlen`` tokens
(markers included; ``artifact.metadata``: 32 for ``colbertv2.0``), and ColBERT's query
tokenizer truncates a longer query to it. Option ``query_length``:

* ``words`` (default): RAGatouille's ``search()``, which MDocAgent calls: per query,
  ``query_maxlen`` is raised to ``int(len(query.split(" ")) * 1.35)`` when that is more (at
  most the encoder's positions; ``_upgrade_searcher_maxlen``), so a long question is encoded
  whole and padded with ``[MASK]`` to that length; a short one keeps the 32 expanded tokens;
* ``checkpoint``: the checkpoint's ``query_maxlen`` for every query (ColBERT's own searcher),
  cutting longer queries.

Only queries change, so an index does not depend on it.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import model_validator

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
log = logging.getLogger(__name__)


@lru_cache(maxsize=4)
def _encoder(folder: Path, device: str, doc_maxlen: int | None) -> MultiVectorEncoder:
    """The encoder of ``folder``, reading ``doc_maxlen`` tokens of a document (``None``: as many
    as its positions allow), in place of the length its checkpoint was trained with."""
    from sentence_transformers import MultiVectorEncoder

    check_device(device, NAME)
    encoder = MultiVectorEncoder(str(folder), device=device, local_files_only=True)
    transformer: Any = encoder[0]
    positions = transformer.auto_model.config.max_position_embeddings
    transformer.document_length = doc_maxlen or positions
    return encoder


def _checkpoint_query_maxlen(transformer: Any) -> int | None:
    """The checkpoint's ``query_maxlen``, the length its queries are ``[MASK]``-expanded to
    (``None``: a checkpoint that expands no query, as some PyLate ones)."""
    expansion = transformer.query_expansion
    if expansion is None or expansion["strategy"] != "fixed":
        return None
    return int(expansion["length"])


def document_length(encoder: MultiVectorEncoder) -> int:
    """The tokens of a passage ``encoder`` reads."""
    transformer: Any = encoder[0]
    return int(transformer.document_length)


def passage_tokens(encoder: MultiVectorEncoder, passages: list[str]) -> list[int]:
    """Each passage's length in the encoder's tokens, its document marker included."""
    marker = encoder.prompts.get("document") or ""
    transformer: Any = encoder[0]
    tokenized = transformer.tokenizer([marker + passage for passage in passages])
    return [len(ids) for ids in tokenized["input_ids"]]


def ragatouille_query_maxlen(query: str, query_maxlen: int, positions: int) -> int:
    """The query length RAGatouille's ``search()`` encodes ``query`` at: its word count (split
    on single spaces) times 1.35, at least the checkpoint's ``query_maxlen``, at most the
    encoder's ``positions`` (``_upgrade_searcher_maxlen``)."""
    return min(max(int(len(query.split(" ")) * 1.35), query_maxlen), positions)


class ColBERTOptions(RetrieverOptions):
    model: str = Field(description="a local ColBERT folder (PyLate or Stanford format)")
    device: Device = Field("cpu", description="cpu, cuda or cuda:N")
    batch_size: int = Field(32, ge=1, description="passages encoded at once")
    chunk_words: int = Field(120, ge=1, description="pages are cut in passages of this many words")
    overlap_words: int = Field(
        0,
        ge=0,
        description="words a passage shares with the one before (below chunk_words; RAGatouille: "
        "64 of its 256 tokens)",
    )
    doc_maxlen: int | None = Field(
        None,
        ge=8,
        description="tokens of a passage the encoder reads (null: its positions, 512 for "
        "ColBERTv2, so no passage is cut; RAGatouille: its passage length, 256)",
    )
    query_length: Literal["words", "checkpoint"] = Field(
        "words",
        description="queries padded with [MASK] to max(checkpoint query_maxlen, int(words*1.35)) "
        "tokens as RAGatouille's search() (words), or to the checkpoint's query_maxlen, "
        "cutting longer ones (checkpoint)",
    )
    page_score: Literal["union", "best_passage"] = Field(
        "union",
        description="MaxSim over the union of a page's passages, or its best passage (MDocAgent)",
    )

    @model_validator(mode="after")
    def _overlap_within_a_passage(self) -> ColBERTOptions:
        if self.overlap_words >= self.chunk_words:
            raise ValueError(
                f"overlap_words={self.overlap_words} must be below chunk_words="
                f"{self.chunk_words}: lower overlap_words"
            )
        return self


@RETRIEVERS.register(NAME, options=ColBERTOptions)
class ColBERTRetriever:
    def __init__(self, options: ColBERTOptions) -> None:
        self.options = options

    def _encoder(self) -> MultiVectorEncoder:
        folder = model_folder(self.options.model, NAME)
        return _encoder(folder, self.options.device, self.options.doc_maxlen)

    def query_maxlen(self, query: str) -> int | None:
        """The tokens ``query`` is encoded at (markers and ``[MASK]`` padding included;
        ``None``: the checkpoint pads no query to a fixed length, and reads it whole)."""
        transformer: Any = self._encoder()[0]
        checkpoint = _checkpoint_query_maxlen(transformer)
        if checkpoint is None or self.options.query_length == "checkpoint":
            return checkpoint
        positions = transformer.auto_model.config.max_position_embeddings
        return ragatouille_query_maxlen(query, checkpoint, positions)

    def _encode_query(self, query: str) -> torch.Tensor:
        encoder = self._encoder()
        transformer: Any = encoder[0]
        expansion, length = transformer.query_expansion, self.query_maxlen(query)
        if length is None:
            return encoder.encode_query([query])[0].cpu()
        # the encoder is shared (one per folder): its expansion length is set for this query
        # only, as RAGatouille sets its searcher's query_maxlen before each search
        transformer.query_expansion = {**expansion, "length": length}
        try:
            return encoder.encode_query([query])[0].cpu()
        finally:
            transformer.query_expansion = expansion

    def build(self, pages: list[IndexedPage], out_dir: Path) -> None:
        import torch

        chunks = [
            page_chunks(page.text, self.options.chunk_words, self.options.overlap_words)
            for page in pages
        ]
        flat = [chunk for page in chunks for chunk in page]
        encoder = self._encoder()
        length = document_length(encoder)
        cut = sum(tokens > length for tokens in passage_tokens(encoder, flat)) if flat else 0
        if cut:
            log.warning(
                "colbert: %d of %d passages are longer than doc_maxlen=%d tokens and lose their "
                "end; lower chunk_words or raise doc_maxlen",
                cut,
                len(flat),
                length,
            )
        encoded: Any = (
            encoder.encode_document(flat, batch_size=self.options.batch_size) if flat else []
        )
        if self.options.page_score == "best_passage":  # one vector set per passage, and its page
            owners = [page for page, page_chunks_ in enumerate(chunks) for _ in page_chunks_]
            passages = list(encoded) if flat else [torch.zeros(0)]
            save_page_vectors(out_dir, passages)
            write_manifest(
                out_dir, len(pages), passage_pages=owners, passages_cut=cut, **self._built_with()
            )
            return
        vectors, start = [], 0
        for page in chunks:
            tokens = encoded[start : start + len(page)]
            vectors.append(torch.cat(tokens) if tokens else torch.zeros(0))
            start += len(page)
        save_page_vectors(out_dir, vectors)
        write_manifest(out_dir, len(pages), passages_cut=cut, **self._built_with())

    def _built_with(self) -> dict[str, Any]:
        built = {
            "model": self.options.model,
            "chunk_words": self.options.chunk_words,
            # an index built before the option (documents cut at the checkpoint's length) is
            # not reused
            "doc_maxlen": document_length(self._encoder()),
        }
        if self.options.page_score != "union":  # indexes built before the option stay valid
            built["page_score"] = self.options.page_score
        if self.options.overlap_words:  # as page_score
            built["overlap_words"] = self.options.overlap_words
        return built

    def load(self, index_dir: Path) -> MaxSimSearcher | BestPassageSearcher:
        manifest = read_manifest(index_dir, **self._built_with())
        built_overlap = manifest.get("overlap_words", 0)  # absent: built without overlap
        if built_overlap != self.options.overlap_words:
            raise ValueError(
                f"{index_dir}: the index was built with overlap_words={built_overlap} but is "
                f"loaded with overlap_words={self.options.overlap_words}; rerun the index stage "
                "for this retriever"
            )
        if self.options.page_score == "best_passage":
            return BestPassageSearcher(
                PageVectors.load(index_dir),
                manifest["passage_pages"],
                manifest["pages"],
                self._encode_query,
            )
        return MaxSimSearcher(PageVectors.load(index_dir), self._encode_query)
