"""MMLongBench-Doc: 135 long PDFs, questions with rule-scored answer formats.

Layouts read (``root`` is the folder that holds them):

- the Hugging Face release ``yubo2333/MMLongBench-Doc``: ``data/train-*.parquet`` and
  ``documents/*.pdf`` (1,091 questions in the current card);
- the GitHub repository ``mayubo2333/MMLongBench-Doc``: ``data/samples.json`` (1,082
  questions) and ``data/documents/``;
- MDocAgent's copy (``Lillianwei/Mdocagent-dataset``, folder ``MMLongBench``):
  ``samples.json`` and ``documents/``.

Conversions, done here once: ``evidence_pages`` (a list in a string, 1-based) become 0-based
indices; three rows of the GitHub file list page ``0``, which is no 1-based page: that page is
dropped and the question keeps the rest, with tag ``evidence_note``. ``evidence_sources`` (a
list in a string) and ``doc_type`` become tags. ``answer_format`` is already docqa's vocabulary
(Int, Float, Str, List, None; None always answers ``Not answerable``); answers are stripped of
surrounding white space and List answers written as Python lists become lists of strings. The
question id is the row's position in the file (``0000``…), as the benchmark has none. The
original row is kept in ``Question.original``. Note: issue #13 of the GitHub repository reports
that some evidence pages are printed page numbers, not PDF pages; they are kept as given.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from docqa.core.question import Question, page_refs
from docqa.datasets import DATASETS
from docqa.datasets.convert import ConvertedOptions, Loaded, Written, adapter
from docqa.datasets.documents import link_pdf
from docqa.datasets.fields import (
    BadRow,
    answer_format,
    answer_text,
    list_literal,
    one_based,
    page_numbers,
    plain,
    safe_id,
    strings,
    text,
)
from docqa.datasets.parquet import parquet_files, read_rows

COLUMNS = [
    "doc_id",
    "doc_type",
    "question",
    "answer",
    "evidence_pages",
    "evidence_sources",
    "answer_format",
]
SAMPLES = ("samples.json", "data/samples.json")
DOCUMENTS = ("documents", "data/documents")


def read(root: Path, options: ConvertedOptions) -> Loaded:
    loaded = Loaded()
    for index, (where, row) in enumerate(_rows(root)):
        try:
            loaded.questions.append(to_question(row, f"{index:04d}"))
        except BadRow as problem:
            loaded.skip(f"{where}#row {index}", problem, str(row.get("doc_id", "")))
    return loaded


def load_questions(root: Path, options: ConvertedOptions | None = None) -> list[Question]:
    return read(root, options or ConvertedOptions()).questions


def to_question(row: dict[str, Any], question_id: str) -> Question:
    pages = page_numbers(row.get("evidence_pages"), "evidence_pages")
    tags: dict[str, str | list[str]] = {
        "evidence_sources": strings(row.get("evidence_sources"), "evidence_sources"),
        "doc_type": str(row.get("doc_type") or ""),
    }
    if 0 in pages:
        pages = [page for page in pages if page != 0]
        tags["evidence_note"] = "the benchmark lists page 0, which is not a 1-based page"
    fmt = answer_format(text(row, "answer_format"))
    answer = answer_text(text(row, "answer"))
    if fmt == "List" and isinstance(answer, str):
        answer = list_literal(answer)
    document = doc_id(text(row, "doc_id"))
    return Question(
        question_id=question_id,
        doc_id=document,
        question=text(row, "question"),
        answer=answer,
        answer_format=fmt,
        evidence=page_refs(document, one_based(pages, "evidence_pages")),
        tags=tags,
        original=plain(row),
    )


def doc_id(file_name: str) -> str:
    """``PH_2016.06.08_Economy-Final.pdf`` → ``PH_2016.06.08_Economy-Final``."""
    name = file_name[:-4] if file_name.lower().endswith(".pdf") else file_name
    return safe_id(name)


def write_documents(
    root: Path, doc_ids: list[str], docs_dir: Path, options: ConvertedOptions
) -> Written:
    written = Written()
    folders = [root / name for name in DOCUMENTS if (root / name).is_dir()]
    folder = folders[0] if folders else root / DOCUMENTS[0]
    for name in doc_ids:
        try:
            written.documents.append(
                link_pdf(name, folder / f"{name}.pdf", docs_dir, options.max_pages)
            )
        except BadRow as problem:
            written.skip(name, folder / f"{name}.pdf", problem)
    return written


def _rows(root: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for name in SAMPLES:
        if (root / name).is_file():
            for row in json.loads((root / name).read_text(encoding="utf-8")):
                yield name, row
            return
    files = parquet_files(root, "data/*.parquet") or parquet_files(root, "*.parquet")
    if not files:
        raise FileNotFoundError(
            f"{root} has no samples.json, data/samples.json or data/*.parquet: "
            "is it an MMLongBench-Doc download?"
        )
    for path, row in read_rows(files, COLUMNS):
        yield path.name, row


DATASETS.register("mmlongbench_doc", options=ConvertedOptions)(adapter(read, write_documents))
