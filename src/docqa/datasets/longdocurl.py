"""LongDocURL: 2,325 questions over 396 long PDFs (understanding, reasoning, locating).

Layouts read (``root`` is the folder that holds them):

- the Hugging Face release ``dengchao/LongDocURL``: ``LongDocURL_public.jsonl`` and the PDFs in
  ``pdf_files.tar.gz`` (unpacked once into ``pdf_files/``, PDFs found by their number at any
  depth);
- the GitHub repository ``dengc2023/LongDocURL``: ``data/LongDocURL.jsonl`` (a 3-row sample;
  the repository has no PDFs, so its documents are recorded as missing);
- MDocAgent's copy (folder ``LongDocURL`` of ``Lillianwei/Mdocagent-dataset``): ``samples.json``
  (a JSON array of the same rows plus ``doc_id`` and ``page_ids``) and ``documents/``.

Conversions: ``evidence_pages`` are 1-based → 0-based; ``start_end_idx`` (the 1-based,
inclusive page window the question was written from) becomes ``Question.page_window``, its
0-based pages (MDocAgent's copy: its 0-based ``page_ids``), which every method respects;
``answer_format`` names (Integer, Float, String, List, None) map to docqa's;
int and float answers become strings, list answers lists of strings. ``question_type``,
``task_tag`` and ``evidence_sources`` are tags; the row (with the authors' absolute ``images``
and ``pdf_path``) is kept in ``Question.original``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from docqa.core.question import Question, page_refs
from docqa.datasets import DATASETS
from docqa.datasets.archives import unpack_once
from docqa.datasets.convert import ConvertedOptions, Loaded, Written, adapter
from docqa.datasets.documents import link_pdf
from docqa.datasets.fields import (
    BadRow,
    answer_format,
    answer_text,
    one_based,
    page_numbers,
    plain,
    required,
    safe_id,
    strings,
    text,
)

QUESTION_FILES = (
    "LongDocURL_public.jsonl",
    "LongDocURL.jsonl",
    "data/LongDocURL.jsonl",
    "samples.json",
)
PDF_ARCHIVE = "pdf_files.tar.gz"


def read(root: Path, options: ConvertedOptions) -> Loaded:
    loaded = Loaded()
    for where, row in _rows(root):
        try:
            if isinstance(row, BadRow):
                raise row
            loaded.questions.append(to_question(row))
        except BadRow as problem:
            doc = "" if isinstance(row, BadRow) else str(row.get("doc_no", ""))
            loaded.skip(where, problem, doc)
    return loaded


def load_questions(root: Path, options: ConvertedOptions | None = None) -> list[Question]:
    return read(root, options or ConvertedOptions()).questions


def to_question(row: dict[str, Any]) -> Question:
    total = required(row, "total_pages")
    last = int(total) if str(total).isdigit() else None
    window = one_based(
        page_numbers(row.get("start_end_idx"), "start_end_idx"), "start_end_idx", last
    )
    if len(window) != 2 or window[0] > window[1]:
        raise BadRow(f"start_end_idx {row.get('start_end_idx')!r} is not a [first, last] window")
    answer = answer_text(required(row, "answer"))
    document = safe_id(text(row, "doc_no"))
    return Question(
        question_id=text(row, "question_id"),
        doc_id=document,
        question=text(row, "question"),
        answer=answer,
        answer_format=answer_format(text(row, "answer_format")),
        evidence=page_refs(
            document,
            one_based(
                page_numbers(row.get("evidence_pages"), "evidence_pages"), "evidence_pages", last
            ),
        ),
        tags={
            "question_type": str(row.get("question_type") or ""),
            "task_tag": str(row.get("task_tag") or ""),
            "evidence_sources": strings(row.get("evidence_sources"), "evidence_sources"),
        },
        original=plain(row),
        page_window=_window(row, window, last),
    )


def _window(row: dict[str, Any], window: list[int], last: int | None) -> list[int]:
    """The question's pages: MDocAgent's ``page_ids`` (0-based) where its copy has them, else
    ``start_end_idx``'s pages."""
    page_ids = row.get("page_ids")
    if page_ids is None:
        return list(range(window[0], window[1] + 1))
    pages = page_numbers(page_ids, "page_ids")
    if any(page < 0 or (last is not None and page >= last) for page in pages):
        raise BadRow(f"page_ids {page_ids!r} are not 0-based pages of a {last}-page document")
    return sorted(set(pages))


def write_documents(
    root: Path, doc_ids: list[str], docs_dir: Path, options: ConvertedOptions
) -> Written:
    written = Written()
    pdfs = _pdf_index(root)
    for name in doc_ids:
        source = pdfs.get(name, root / "documents" / f"{name}.pdf")
        try:
            written.documents.append(link_pdf(name, source, docs_dir, options.max_pages))
        except BadRow as problem:
            written.skip(name, source, problem)
    return written


def _pdf_index(root: Path) -> dict[str, Path]:
    """Document number → PDF, from ``documents/`` and the unpacked ``pdf_files`` archive."""
    folders = [root / "documents"]
    if (root / PDF_ARCHIVE).is_file():
        folders.append(unpack_once(root / PDF_ARCHIVE))
    index: dict[str, Path] = {}
    for folder in folders:
        for pdf in sorted(folder.rglob("*.pdf")) if folder.is_dir() else []:
            index.setdefault(pdf.stem, pdf)
    return index


def _rows(root: Path) -> Iterator[tuple[str, dict[str, Any] | BadRow]]:
    for name in QUESTION_FILES:
        path = root / name
        if not path.is_file():
            continue
        if path.suffix == ".json":
            for number, row in enumerate(json.loads(path.read_text(encoding="utf-8"))):
                yield f"{name}#row {number}", row
            return
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield f"{name}:{number}", _json_line(line, name, number)
        return
    raise FileNotFoundError(
        f"{root} has none of {', '.join(QUESTION_FILES)}: is it a LongDocURL download?"
    )


def _json_line(line: str, name: str, number: int) -> dict[str, Any] | BadRow:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        return BadRow(f"not valid JSON ({error.msg})")
    return row if isinstance(row, dict) else BadRow("the line is not a JSON object")


DATASETS.register("longdocurl", options=ConvertedOptions)(adapter(read, write_documents))
