"""The index stage: one retriever index per document, and the retriever's recall@k."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tqdm import tqdm

from docqa.jsonl import read_jsonl
from docqa.ocr import load_page_texts
from docqa.question import Question
from docqa.retrievers import RETRIEVERS, load_retrievers

RECALL_DEPTHS = tuple(range(1, 11))


def build_indexes(
    retriever: str, options: dict[str, Any], pages: Path, elements: Path, out_dir: Path
) -> None:
    """Index every rendered document of a dataset under ``out_dir/<doc_id>/``."""
    load_retrievers()
    builder = RETRIEVERS.get(retriever)(**options)
    texts = load_page_texts(elements, pages)
    for doc_id, page_texts in tqdm(texts.items(), desc=f"index {retriever}", unit="doc"):
        builder.build(page_texts, out_dir / doc_id)


def evaluate_recall(
    retriever: str, options: dict[str, Any], questions: Path, index_dir: Path
) -> dict[str, Any]:
    """Recall@k of the evidence pages, over answerable questions whose document was indexed,
    beside the expected recall of a random page ranking (k / pages)."""
    load_retrievers()
    loader = RETRIEVERS.get(retriever)(**options)
    searchers: dict[str, Any] = {}
    recall = [0.0] * len(RECALL_DEPTHS)
    random = [0.0] * len(RECALL_DEPTHS)
    counted = 0
    for row in read_jsonl(questions):
        question = Question.from_dict(row)
        doc_dir = index_dir / question.doc_id
        if not question.evidence_pages or not doc_dir.exists():
            continue
        if question.doc_id not in searchers:
            searchers[question.doc_id] = loader.load(doc_dir)
        searcher = searchers[question.doc_id]
        ranking = searcher.search(question.question, max(RECALL_DEPTHS))
        gold = set(question.evidence_pages)
        for i, k in enumerate(RECALL_DEPTHS):
            recall[i] += len(gold & set(ranking[:k])) / len(gold)
            random[i] += min(k, searcher.pages) / searcher.pages
        counted += 1
    scale = 100.0 / counted if counted else 0.0
    return {
        "retriever": retriever,
        "questions": counted,
        "k": list(RECALL_DEPTHS),
        "recall": [round(v * scale, 2) for v in recall],
        "random": [round(v * scale, 2) for v in random],
    }


def write_recall(result: dict[str, Any], dataset: str, out: Path) -> None:
    out.write_text(json.dumps({"dataset": dataset, **result}, indent=1) + "\n")
