"""Multi-vector page indexes and exact MaxSim search (late interaction, as in ColBERT/ColPali).

A page is a set of vectors (tokens, image patches or text chunks) and a query a set of vectors;
a page's score is the sum over query vectors of their best dot product with the page's vectors.
With a single query vector and one vector per text chunk this is "the best chunk of the page",
which is how ``dense_text`` scores long pages.

Per document, ``vectors.safetensors`` holds every page's vectors end to end (``vectors``,
float16 to halve the disk) and each page's vector count (``lengths``); a page with no vectors
(no text, for a text retriever) scores ``-inf`` and ranks after every other page. Loaded vectors
are float32, at twice the memory (0.4 MB a page for ColQwen2): keeping float16 and converting
it at each query took 524 ms instead of 211 ms per query over 1,000 pages of 768 vectors on one
CPU thread (measured once side by side on the dev machine).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from docqa.retrievers.ranking import top_pages

if TYPE_CHECKING:
    import torch

VECTORS = "vectors.safetensors"
#: similarity scores computed at once (pages x page vectors x query vectors): 16 MB of float32.
#: A one-vector query over a text document is then a single product; a ColQwen2 query (20
#: vectors against 768 per page) is scored 273 pages at a time.
SIMILARITY_BLOCK = 4 * 1024 * 1024


def save_page_vectors(out_dir: Path, vectors: list[torch.Tensor]) -> None:
    """Write one (vectors x dim) tensor per page, all of one dim; a page without vectors may be
    any empty tensor."""
    import torch
    from safetensors.torch import save_file

    if not vectors:
        raise ValueError(f"{out_dir}: a document without pages has nothing to index")
    filled = [v.detach().to("cpu", torch.float32) for v in vectors if len(v)]
    dims = {int(v.shape[-1]) for v in filled}
    if len(dims) > 1:
        raise ValueError(f"{out_dir}: page vectors have different dims {sorted(dims)}")
    flat = torch.cat(filled) if filled else torch.zeros(0, 1)
    if not torch.isfinite(flat).all():
        raise ValueError(
            f"{out_dir}: the encoder returned NaN or infinite vectors; on CPU this comes from "
            "SDPA attention over padded batches (colpali/colqwen2: set attn_implementation: "
            "eager or batch_size: 1)"
        )
    lengths = torch.tensor([len(v) for v in vectors], dtype=torch.int64)
    out_dir.mkdir(parents=True, exist_ok=True)
    save_file(
        {"vectors": flat.to(torch.float16).contiguous(), "lengths": lengths}, out_dir / VECTORS
    )


class PageVectors:
    """A document's page vectors, padded to (pages x longest page x dim) with a validity mask."""

    def __init__(self, padded: torch.Tensor, mask: torch.Tensor) -> None:
        self.padded = padded
        self.mask = mask

    @property
    def pages(self) -> int:
        return int(self.padded.shape[0])

    @classmethod
    def load(cls, index_dir: Path) -> PageVectors:
        import torch
        from safetensors.torch import load_file

        path = index_dir / VECTORS
        if not path.exists():
            raise FileNotFoundError(f"{path} is missing; rerun the index stage")
        stored = load_file(path)
        lengths = stored["lengths"].tolist()
        pieces = torch.split(stored["vectors"], lengths)
        padded = torch.nn.utils.rnn.pad_sequence(list(pieces), batch_first=True).float()
        mask = torch.arange(padded.shape[1]).unsqueeze(0) < stored["lengths"].unsqueeze(1)
        return cls(padded, mask)

    def maxsim(self, query: torch.Tensor) -> torch.Tensor:
        """Each page's score for a (query vectors x dim) query: sum of best dot products."""
        import torch

        query = query.to("cpu", torch.float32)
        if self.padded.shape[1] == 0:  # no page has a vector
            return torch.full((self.pages,), float("-inf"))
        pages_per_block = max(1, SIMILARITY_BLOCK // (self.padded.shape[1] * len(query)))
        scores = []
        for start in range(0, self.pages, pages_per_block):
            block = self.padded[start : start + pages_per_block]  # (pages, vectors, dim)
            similarity = block @ query.T  # (pages, vectors, query vectors)
            padding = ~self.mask[start : start + pages_per_block].unsqueeze(2)
            similarity.masked_fill_(padding, float("-inf"))
            scores.append(similarity.amax(dim=1).sum(dim=1))
        return torch.cat(scores)


class MaxSimSearcher:
    """Ranks a document's pages by MaxSim against the query's vectors.

    ``encode_query`` turns a query into its (vectors x dim) tensor; it is called only when
    searching, so loading the searchers of many documents loads no model.
    """

    def __init__(self, vectors: PageVectors, encode_query: Callable[[str], torch.Tensor]) -> None:
        self.vectors = vectors
        self.encode_query = encode_query
        self.pages = vectors.pages

    def page_scores(self, query: str) -> np.ndarray:
        """Every page's MaxSim score (``-inf`` for a page without vectors)."""
        with one_cpu_thread():
            return self.vectors.maxsim(self.encode_query(query)).numpy()

    def search(self, query: str, k: int) -> list[int]:
        if k <= 0:
            return []
        return top_pages(self.page_scores(query), k)


class BestPassageSearcher:
    """Ranks pages by their best passage: ``vectors`` holds one vector set per passage and
    ``passage_pages`` the page of each; a page scores as the MaxSim of its best passage, a page
    without passages ``-inf``."""

    def __init__(
        self,
        vectors: PageVectors,
        passage_pages: list[int],
        pages: int,
        encode_query: Callable[[str], torch.Tensor],
    ) -> None:
        self.vectors = vectors
        self.passage_pages = passage_pages
        self.pages = pages
        self.encode_query = encode_query

    def page_scores(self, query: str) -> np.ndarray:
        """Every page's score: the MaxSim of its best passage, ``-inf`` without passages."""
        import torch

        scores = torch.full((self.pages,), float("-inf"))
        if not self.passage_pages:
            return scores.numpy()
        with one_cpu_thread():
            passage_scores = self.vectors.maxsim(self.encode_query(query))
        owners = torch.tensor(self.passage_pages, dtype=torch.int64)
        best = scores.scatter_reduce(0, owners, passage_scores[: len(owners)], reduce="amax")
        return best.numpy()

    def passage_scores(self, query: str) -> tuple[np.ndarray, list[int]]:
        """Every passage's MaxSim score and the page it belongs to."""
        if not self.passage_pages:
            return np.zeros(0), []
        with one_cpu_thread():
            scores = self.vectors.maxsim(self.encode_query(query))[: len(self.passage_pages)]
        return scores.numpy(), list(self.passage_pages)

    def search(self, query: str, k: int) -> list[int]:
        if k <= 0:
            return []
        return top_pages(self.page_scores(query), k)

    def search_with_repeats(self, query: str, k: int) -> list[int]:
        """The pages of the ``k`` best passages, best first, a page once per passage (MDocAgent
        reads RAGatouille's passage ranking this way: two passages of one page fill two
        slots)."""
        if k <= 0:
            return []
        scores, pages = self.passage_scores(query)
        return [pages[i] for i in top_pages(scores, k)]


@contextmanager
def one_cpu_thread() -> Iterator[None]:
    """Run torch's CPU work on one thread, then restore the thread count.

    A query is little work (a forward pass over a dozen tokens, a few matrix products), and
    torch's thread pool costs more than it gains when cores are shared: on the 2-core dev
    machine under load, an all-MiniLM-L6-v2 query took 500 ms on 2 threads and 20 ms on 1
    (benchmarks/retrieval.py). GPU work is unaffected.
    """
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
