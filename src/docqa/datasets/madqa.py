"""MADQA: questions over a collection of PDFs hosted on DocumentCloud (used by DocPilot).

Layout read: the Hugging Face dataset ``OxRML/MADQA`` (gated: CC BY-NC 4.0, accept its
conditions): ``data/<split>-*.parquet`` (``id``, ``question``, ``answer_variants``: a list of
accepted answers each a list of strings, ``evidence``: a list of ``{document, page}``,
``document_category``, ``domain``; splits ``train``, ``dev``, ``test``, option ``split``,
default ``dev``, the 200 questions DocPilot reports), and ``documents/<name>.pdf``, the PDFs
that the download fetches from the URLs in ``data/documents/document_urls-*.parquet``.

Conversions: ``evidence`` pages are 1-based (the authors' baselines render ``page`` with
pdf2image's 1-based ``first_page``) → (document, 0-based page) pairs. A question is about every
document its evidence names, in the order the evidence first names them, each once: one
document gives a one-document question, two or more a question over several documents
(``Question.doc_ids``, evidence as (document, page) pairs). The answer is the first variant (one
string, or a list of strings for a multi-part answer); all variants are kept in tag
``answer_variants`` (joined by `` | ``) and in ``Question.original``. Tag ``kind`` is MADQA's
hop type, as its evaluation derives it from the evidence (``eval/evaluate.py``): ``single``
(one page), ``cross_page`` (several pages of one document) or ``cross_doc``; the score stage
breaks results down by it (MADQA's and DocPilot's X-Page and X-Doc).

Which documents a question is asked over: option ``documents``. Its one value, ``evidence``
(the default), gives each question its gold evidence documents and no others: DocPilot's
"relevant documents provided" setting, which "isolates evidence localization from document
retrieval". MADQA defines no other per-question set of documents (no distractors, no
candidate list: its rows carry only ``evidence``); its own protocol asks every question over
the whole collection (800 PDFs, searched by the baselines in its repository). That protocol
is not offered: docqa prepares one environment (rendered pages, text, indexes) per question's
documents, and one over 800 documents for each of 200 questions is a retrieval benchmark of
its own, not what DocPilot reports. Every question records the setting in tag
``documents_setting``, so that its score rows carry it. A question whose documents are partly
missing from the download is kept; ``missing_documents`` (an option of every converted
dataset, :mod:`docqa.datasets.convert`) says whether it is answered over the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from docqa.core.question import PageRef, Question, documents_fields
from docqa.datasets import DATASETS
from docqa.datasets.convert import ConvertedOptions, Loaded, Written, adapter
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
from docqa.runtime.spec import Field

COLUMNS = ["id", "question", "answer_variants", "evidence", "document_category", "domain"]
DOCUMENTS = "documents"


class MADQAOptions(ConvertedOptions):
    """The options of adapter ``madqa``."""

    split: str = Field(default="dev", description="the split to convert (parquet files <split>-*)")
    documents: Literal["evidence"] = Field(
        default="evidence",
        description="which documents each question is asked over: its gold evidence "
        "documents (DocPilot's 'relevant documents provided'); MADQA's whole-collection "
        "protocol (all 800 PDFs) is not offered",
    )


def read(root: Path, options: MADQAOptions) -> Loaded:
    files = parquet_files(root, f"**/{options.split}-*.parquet")
    if not files:
        raise FileNotFoundError(f"{root} has no {options.split}-*.parquet: is it a MADQA download?")
    loaded = Loaded()
    for number, (path, row) in enumerate(read_rows(files, COLUMNS)):
        try:
            loaded.questions.append(to_question(row, options.documents))
        except BadRow as problem:
            loaded.skip(f"{path.name}#row {number}", problem)
    check_distinct_ids(loaded.questions)
    return loaded


def load_questions(root: Path, options: MADQAOptions | None = None) -> list[Question]:
    return read(root, options or MADQAOptions()).questions


def to_question(row: dict[str, Any], documents: str) -> Question:
    variants = [
        [str(part).strip() for part in as_list(variant, "answer_variants")]
        for variant in as_list(required(row, "answer_variants"), "answer_variants")
    ]
    if not variants or not variants[0]:
        raise BadRow("answer_variants is empty")
    evidence = evidence_refs(as_list(required(row, "evidence"), "evidence"))
    answer: str | list[str] = variants[0][0] if len(variants[0]) == 1 else variants[0]
    return Question(
        question_id=text(row, "id"),
        question=text(row, "question"),
        answer=answer,
        answer_format=infer_format(answer),
        **documents_fields([doc for doc, _ in evidence], evidence),
        tags={
            "kind": hop_type(evidence),
            "answer_variants": [" | ".join(variant) for variant in variants],
            "document_category": str(row.get("document_category") or ""),
            "domain": str(row.get("domain") or ""),
            "documents_setting": documents,
        },
        original=plain(row),
    )


def evidence_refs(items: list[Any]) -> list[PageRef]:
    """MADQA's ``evidence`` items → (document id, 0-based page) pairs, in the given order."""
    refs: list[PageRef] = []
    for item in items:
        if not isinstance(item, dict) or item.get("document") is None or item.get("page") is None:
            raise BadRow(f"evidence item {item!r} is not {{document, page}}")
        (page,) = one_based([int(item["page"])], "evidence.page")
        refs.append((doc_id(str(item["document"])), page))
    if not refs:
        raise BadRow("evidence is empty")
    return refs


def hop_type(evidence: list[PageRef]) -> str:
    """MADQA's hop type: ``cross_doc`` (evidence in several documents), ``cross_page``
    (several pages of one), ``single``."""
    if len({doc for doc, _ in evidence}) > 1:
        return "cross_doc"
    return "cross_page" if len(set(evidence)) > 1 else "single"


def check_distinct_ids(questions: list[Question]) -> None:
    """Every document keeps an id of its own: two file names that ``doc_id`` makes one id
    (``a.PDF`` and ``a.pdf``, ``a/b.pdf`` and ``a_b.pdf``) would become one document, their
    evidence and citations one, and a cross-document question a cross-page one."""
    names: dict[str, set[str]] = {}
    for question in questions:
        for item in question.original.get("evidence") or []:
            name = str(item["document"])
            names.setdefault(doc_id(name), set()).add(name)
    clashes = {key: sorted(found) for key, found in names.items() if len(found) > 1}
    if clashes:
        listed = "; ".join(f"{found} -> {key!r}" for key, found in sorted(clashes.items()))
        raise ValueError(
            f"MADQA documents whose names become one docqa id: {listed}; docqa.datasets.madqa."
            "doc_id must keep them apart (rename the files, or extend doc_id)"
        )


def doc_id(file_name: str) -> str:
    """``1007969.pdf`` → ``1007969``."""
    return safe_id(file_name[:-4] if file_name.lower().endswith(".pdf") else file_name)


def write_documents(
    root: Path, doc_ids: list[str], docs_dir: Path, options: MADQAOptions
) -> Written:
    written = Written()
    for name in doc_ids:
        source = root / DOCUMENTS / f"{name}.pdf"
        try:
            written.documents.append(link_pdf(name, source, docs_dir, options.max_pages))
        except BadRow as problem:
            written.skip(name, source, problem)
    return written


DATASETS.register("madqa", options=MADQAOptions)(adapter(read, write_documents))
