"""MADQA: questions over a collection of PDFs hosted on DocumentCloud (used by DocPilot).

Layout read: the Hugging Face dataset ``OxRML/MADQA`` (gated: CC BY-NC 4.0, accept its
conditions): ``data/<split>-*.parquet`` (``id``, ``question``, ``answer_variants``: a list of
accepted answers each a list of strings, ``evidence``: a list of ``{document, page}``,
``document_category``, ``domain``; splits ``train``, ``dev``, ``test``, option ``split``,
default ``dev``, the 200 questions DocPilot reports), and ``documents/<name>.pdf``, the PDFs
that the download fetches from the URLs in ``data/documents/document_urls-*.parquet``.

Conversions: ``evidence`` pages are 1-based (the authors' baselines render ``page`` with
pdf2image's 1-based ``first_page``) → 0-based. A MADQA question may need several documents;
docqa's question has one: ``doc_id`` is the first evidence document and its evidence pages are
that document's, while tag ``documents`` lists every evidence document. The answer is the first
variant (one string, or a list of strings for a multi-part answer); all variants are kept in tag
``answer_variants`` (joined by `` | ``) and in ``Question.original``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.core.question import Question
from docqa.datasets import DATASETS
from docqa.datasets.convert import Loaded, Written, adapter
from docqa.datasets.documents import link_pdf
from docqa.datasets.fields import (
    BadRow,
    as_list,
    infer_format,
    one_based,
    plain,
    required,
    safe_id,
    text,
)
from docqa.datasets.parquet import parquet_files, read_rows

COLUMNS = ["id", "question", "answer_variants", "evidence", "document_category", "domain"]
DOCUMENTS = "documents"


def read(root: Path, split: str = "dev") -> Loaded:
    files = parquet_files(root, f"**/{split}-*.parquet")
    if not files:
        raise FileNotFoundError(f"{root} has no {split}-*.parquet: is it a MADQA download?")
    loaded = Loaded()
    for number, (path, row) in enumerate(read_rows(files, COLUMNS)):
        try:
            loaded.questions.append(to_question(row))
        except BadRow as problem:
            loaded.skip(f"{path.name}#row {number}", problem)
    return loaded


def load_questions(root: Path, split: str = "dev") -> list[Question]:
    return read(root, split).questions


def to_question(row: dict[str, Any]) -> Question:
    variants = [
        [str(part).strip() for part in as_list(variant, "answer_variants")]
        for variant in as_list(required(row, "answer_variants"), "answer_variants")
    ]
    if not variants or not variants[0]:
        raise BadRow("answer_variants is empty")
    evidence = as_list(required(row, "evidence"), "evidence")
    documents: dict[str, list[int]] = {}
    for item in evidence:
        if not isinstance(item, dict) or item.get("document") is None or item.get("page") is None:
            raise BadRow(f"evidence item {item!r} is not {{document, page}}")
        documents.setdefault(doc_id(str(item["document"])), []).append(int(item["page"]))
    if not documents:
        raise BadRow("evidence is empty")
    first = next(iter(documents))
    answer: str | list[str] = variants[0][0] if len(variants[0]) == 1 else variants[0]
    return Question(
        question_id=text(row, "id"),
        doc_id=first,
        question=text(row, "question"),
        answer=answer,
        answer_format=infer_format(answer),
        evidence_pages=sorted(set(one_based(documents[first], "evidence.page"))),
        tags={
            "documents": list(documents),
            "answer_variants": [" | ".join(variant) for variant in variants],
            "document_category": str(row.get("document_category") or ""),
            "domain": str(row.get("domain") or ""),
        },
        original=plain(row),
    )


def doc_id(file_name: str) -> str:
    """``1007969.pdf`` → ``1007969``."""
    return safe_id(file_name[:-4] if file_name.lower().endswith(".pdf") else file_name)


def write_documents(
    root: Path, doc_ids: list[str], docs_dir: Path, max_pages: int | None
) -> Written:
    written = Written()
    for name in doc_ids:
        source = root / DOCUMENTS / f"{name}.pdf"
        try:
            written.documents.append(link_pdf(name, source, docs_dir, max_pages))
        except BadRow as problem:
            written.skip(name, source, problem)
    return written


DATASETS.register("madqa")(adapter(read, write_documents))
