"""The index stage: one retriever index per document, and the retriever's recall@k."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tqdm import tqdm

from docqa.core.document import Page
from docqa.core.jsonl import read_jsonl
from docqa.core.question import Question
from docqa.retrievers import IndexedPage, PageSearcher, create_retriever
from docqa.text.page_texts import load_page_texts

RECALL_DEPTHS = tuple(range(1, 11))


def load_indexed_pages(pages: Path, elements: Path) -> dict[str, list[IndexedPage]]:
    """doc_id -> its pages in order, each with its OCR text and rendered image.

    Documents whose OCR failed (no row in ``elements``, see the OCR failures file) are left out,
    as they are at inference time.
    """
    texts = load_page_texts(elements, pages)
    images: dict[str, dict[int, str]] = {}
    for row in read_jsonl(pages):
        page = Page.from_dict(row)
        images.setdefault(page.doc_id, {})[page.index] = page.image
    indexed = {}
    for doc_id, page_texts in texts.items():
        missing = [index for index in range(len(page_texts)) if index not in images[doc_id]]
        if missing:
            raise ValueError(
                f"{pages}: document {doc_id!r} lacks page(s) {missing} (0-based); "
                "rerun the render stage"
            )
        indexed[doc_id] = [
            IndexedPage(text, Path(images[doc_id][index])) for index, text in enumerate(page_texts)
        ]
    return indexed


def build_indexes(entry: dict[str, Any], pages: Path, elements: Path, out_dir: Path) -> None:
    """Index every document of a dataset under ``out_dir/<doc_id>/`` with the retriever of the
    config ``entry`` (``{type: ..., ...options}``); a hybrid's entry also holds ``indexes``, the
    indexes it fuses (rules/scripts/build_index.py adds them)."""
    options = dict(entry)
    retriever = create_retriever(options, indexes=options.pop("indexes", None))
    documents = load_indexed_pages(pages, elements)
    for doc_id, doc_pages in tqdm(documents.items(), desc=f"index {entry['type']}", unit="doc"):
        retriever.build(doc_pages, out_dir / doc_id)


def evaluate_recall(
    name: str, entry: dict[str, Any], questions: Path, index_dir: Path
) -> dict[str, Any]:
    """Recall@k (percent) of the evidence pages for the retriever ``name`` of the config, over
    answerable questions whose document was indexed, beside the expected recall of a random
    page ranking (k / pages).

    Indexes are per document, so a question over several documents counts once per document
    that holds some of its evidence, searched for that document's evidence pages:
    ``questions`` is the number of such (question, document) searches, the number of questions
    where every question is about one document.
    """
    loader = create_retriever(entry)
    searchers: dict[str, PageSearcher] = {}
    recall = [0.0] * len(RECALL_DEPTHS)
    random = [0.0] * len(RECALL_DEPTHS)
    counted = 0
    for row in read_jsonl(questions):
        question = Question.from_dict(row)
        evidence: dict[str, set[int]] = {}
        for doc_id, page in question.evidence:
            evidence.setdefault(doc_id, set()).add(page)
        for doc_id, gold in evidence.items():
            doc_dir = index_dir / doc_id
            if not doc_dir.exists():
                continue
            if doc_id not in searchers:
                searchers[doc_id] = loader.load(doc_dir)
            searcher = searchers[doc_id]
            ranking = searcher.search(question.question, max(RECALL_DEPTHS))
            for i, k in enumerate(RECALL_DEPTHS):
                recall[i] += len(gold & set(ranking[:k])) / len(gold)
                random[i] += min(k, searcher.pages) / searcher.pages
            counted += 1
    scale = 100.0 / counted if counted else 0.0
    return {
        "retriever": name,
        "questions": counted,
        "k": list(RECALL_DEPTHS),
        "recall": [round(v * scale, 2) for v in recall],
        "random": [round(v * scale, 2) for v in random],
    }


def write_recall(result: dict[str, Any], dataset: str, out: Path) -> None:
    out.write_text(json.dumps({"dataset": dataset, **result}, indent=1) + "\n")
