"""BM25 on real PDFs: each page ranked whole, or by its best passage of N words (MaxP).

How often the page that holds the answer comes first, for the 48 questions of
``tests/data/real_pdfs/questions-31.jsonl`` (five PDFs) and the 34 of ``questions-15.jsonl``
(the Federal Register rule; its evidence pages are 0-based), with each document's page text as
``docqa ask`` prepares it (``results/ask/``). The passage sizes compared are the ``bm25``
option ``passage_words`` (passages overlap by a third); ``bm25_passages`` of
``config/config.yaml`` is docqa ask's.

    PYTHONPATH=src python benchmarks/passage_retrieval.py [--words 40 60 100]

Prints a table and writes ``benchmarks/results/passage_retrieval.json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from docqa.ask import DATASET, pick, prepare
from docqa.core.jsonl import read_jsonl
from docqa.retrievers.bm25 import BM25Options, bm25_over
from docqa.text.page_texts import load_page_texts
from docqa.workflow.loader import load_config

REAL = Path(__file__).resolve().parents[1] / "tests" / "data" / "real_pdfs"
RESULTS = Path(__file__).parent / "results" / "passage_retrieval.json"
K1, B = (BM25Options.model_fields[name].default for name in ("k1", "b"))


def question_sets() -> dict[str, list[tuple[str, str, list[int]]]]:
    """set name → (PDF file name, question, 0-based evidence pages) of each question."""
    return {
        "questions-31": [
            (q["document"], q["question"], [page - 1 for page in q["evidence_pages"]])
            for q in read_jsonl(REAL / "questions-31.jsonl")
        ],
        "questions-15": [
            (f"{q['doc_id']}.pdf", q["question"], q["evidence_pages"])
            for q in read_jsonl(REAL / "questions-15.jsonl")
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", nargs="+", type=int, default=[40, 60, 100])
    args = parser.parse_args()
    config = load_config([])
    method, model = pick(config, None, None)
    sets = question_sets()
    texts: dict[str, list[str]] = {}
    for document in sorted({doc for questions in sets.values() for doc, _, _ in questions}):
        files = prepare(REAL / document, config, method, model).files
        elements, pages = Path(files.elements(DATASET)), Path(files.pages(DATASET))
        (texts[document],) = load_page_texts(elements, pages).values()

    sizes: list[int | None] = [None, *args.words]
    searchers = {
        (doc, words): bm25_over(pages, K1, B, words)
        for doc, pages in texts.items()
        for words in sizes
    }
    hits = {
        name: {
            str(words or "whole"): sum(
                searchers[doc, words].search(question, 1)[0] in evidence
                for doc, question, evidence in questions
            )
            for words in sizes
        }
        for name, questions in sets.items()
    }
    print("| question set | questions | " + " | ".join(map(str, hits["questions-31"])) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for name, row in hits.items():
        print(f"| {name} | {len(sets[name])} | " + " | ".join(map(str, row.values())) + " |")
    RESULTS.write_text(
        json.dumps(
            {
                "command": "PYTHONPATH=src python benchmarks/passage_retrieval.py --words "
                + " ".join(map(str, args.words)),
                "measure": "evidence page ranked first (hit@1)",
                "questions": {name: len(questions) for name, questions in sets.items()},
                "hits": hits,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"\nwritten: {RESULTS}")


if __name__ == "__main__":
    main()
