"""BM25 page retrieval on a real document, page text from the PDF's text layer vs from OCR.

The document is the 15-page Federal Register proposed rule in ``tests/data/real_pdfs/``
(three-column pages; pages 7-13 hold the rule's figures as images); the 34 questions of
``tests/data/real_pdfs/questions-15.jsonl`` were written for this issue from its text, each
with the page(s) that hold its answer, found by locating the answer's wording in the text
layer (a question whose wording is on two pages has both as evidence). The page text of each
source is what the text stage writes (``text_dataset`` with ``source`` pdf and ocr, lines in
reading order); BM25 is the index stage's retriever (``docqa.retrievers.bm25``, k1 1.5, b 0.75).
Scores are docqa.metrics.retrieval's: recall@k is the share of a question's evidence pages in
the top k, hit@k whether any is, MRR the reciprocal rank of the first.

    PYTHONPATH=src python benchmarks/text_retrieval.py [--dpi 150] [--workers 2]

Prints a Markdown table (as results/tables/retrieval.md) and writes
``benchmarks/results/text_retrieval.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from statistics import fmean

from docqa.core.jsonl import read_jsonl
from docqa.metrics.retrieval import score
from docqa.retrievers import IndexedPage
from docqa.retrievers.bm25 import BM25Options, BM25Retriever
from docqa.stages.render import render_dataset
from docqa.stages.text import text_dataset
from docqa.text.page_texts import load_page_texts

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "data" / "real_pdfs"
QUESTIONS = REAL / "questions-15.jsonl"
RESULTS = Path(__file__).parent / "results" / "text_retrieval"
KS = (1, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    questions = list(read_jsonl(QUESTIONS))
    doc_ids = sorted({q["doc_id"] for q in questions})
    rows, seconds = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        documents = root / "documents.jsonl"
        documents.write_text(
            "".join(
                json.dumps({"doc_id": d, "path": str(REAL / f"{d}.pdf")}) + "\n" for d in doc_ids
            )
        )
        render_dataset(documents, root / "pages", dpi=args.dpi, thumb_width=32)
        pages = root / "pages" / "pages.jsonl"
        for source in ("pdf", "ocr"):
            out = root / source / "elements.jsonl"
            start = time.perf_counter()
            text_dataset(documents, pages, out, workers=args.workers, source=source)
            seconds[source] = round(time.perf_counter() - start, 2)
            texts = load_page_texts(out, pages)
            per_question = []
            for doc_id in doc_ids:
                index_dir = root / "index" / source / doc_id
                index_dir.mkdir(parents=True)
                retriever = BM25Retriever(BM25Options())
                retriever.build([IndexedPage(t, Path("-")) for t in texts[doc_id]], index_dir)
                searcher = retriever.load(index_dir)
                for q in (q for q in questions if q["doc_id"] == doc_id):
                    ranked = searcher.search(q["question"], max(KS))
                    scores = score(q["evidence_pages"], ranked, ks=KS)
                    hits = {
                        f"hit@{k}": float(bool(set(ranked[:k]) & set(q["evidence_pages"])))
                        for k in KS
                    }
                    per_question.append(
                        {"question_id": q["question_id"], "ranked": ranked, **scores, **hits}
                    )
            rows[source] = per_question
    names = [f"recall@{k}" for k in KS] + [f"hit@{k}" for k in KS] + ["mrr"]
    summary = {
        source: {name: round(100 * fmean(r[name] for r in rs), 1) for name in names}
        for source, rs in rows.items()
    }
    header = "| text source | questions | " + " | ".join(names) + " | text stage s |"
    lines = [
        f"BM25 page retrieval, {len(questions)} questions on {', '.join(doc_ids)} "
        f"({args.dpi} dpi), %",
        "",
        header,
        "|" + "---|" * (len(names) + 3),
    ]
    for source, values in summary.items():
        cells = " | ".join(f"{values[name]:.1f}" for name in names)
        lines.append(f"| {source} | {len(rows[source])} | {cells} | {seconds[source]} |")
    table = "\n".join(lines) + "\n"
    print(table)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.with_suffix(".md").write_text(table)
    RESULTS.with_suffix(".json").write_text(
        json.dumps(
            {
                "command": "PYTHONPATH=src python benchmarks/text_retrieval.py "
                f"--dpi {args.dpi} --workers {args.workers}",
                "summary": summary,
                "text_stage_seconds": seconds,
                "questions": rows,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
