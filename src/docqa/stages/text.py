"""The text stage: every page's words, lines and blocks, from the PDF's text layer or OCR.

The work per page and per document lives in :mod:`docqa.text` (``text_document`` is the
function to call for one document); this module runs it over a dataset: one worker process per
core (tesseract single-threaded in each, ``OMP_THREAD_LIMIT=1``), resumable per document,
pages that no source could read listed in the failures file (the document keeps its other
pages: a document never fails for one bad page).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import pytesseract
from tqdm import tqdm

from docqa.core.document import Document, Page
from docqa.core.failures import Failure, write_failures
from docqa.core.jsonl import read_jsonl
from docqa.runtime.checkpoint import Checkpoint, fingerprint
from docqa.text.document import SOURCES, STAGE, DocumentText, PageText, PdfCache, text_page
from docqa.text.script import installed_languages

log = logging.getLogger(__name__)


def text_dataset(
    documents: Path,
    pages: Path,
    out: Path,
    workers: int,
    source: str = "auto",
    psm: int = 11,
    lang: str = "eng",
    failures: Path | None = None,
) -> None:
    """Text of every page of ``pages`` (a pages.jsonl; the PDFs named in ``documents``) into
    ``out``, one row per document in the document order of ``pages``:
    ``{"doc_id", "elements": [Element dicts], "pages": [{"page", "source", "reason"}]}``.

    ``failures`` (default ``<out stem>.failures.jsonl``, always written) lists the pages no
    source could read. Resumable per document. Within a row, elements are by page, then words,
    lines and blocks, each in reading order.
    """
    if workers < 1:
        raise ValueError(f"text_dataset: workers must be at least 1, got {workers}")
    if source not in SOURCES:
        raise ValueError(f"text_dataset: source {source!r} is not one of {SOURCES}")
    documents, pages, out = Path(documents), Path(pages), Path(out)
    failures = Path(failures) if failures else out.with_name(f"{out.stem}.failures.jsonl")
    paths = {row["doc_id"]: Document.from_dict(row).path for row in read_jsonl(documents)}
    by_doc = _read_pages(pages)
    missing = [doc_id for doc_id in by_doc if doc_id not in paths]
    if missing:
        raise ValueError(
            f"{pages}: documents {missing[:5]} are not in {documents}; rerun the render stage"
        )
    tesseract = str(pytesseract.get_tesseract_version())
    # a language installed since (tesseract-ocr-chi-sim) reads pages left unread: done again
    languages = sorted(installed_languages())
    settings = {"source": source, "psm": psm, "lang": lang, "tesseract": tesseract}
    checkpoint = Checkpoint(
        out,
        fingerprint({"stage": STAGE, **settings, "languages": languages}, pages, documents),
        key="doc_id",
    )
    todo = {doc_id: rows for doc_id, rows in by_doc.items() if not checkpoint.done(doc_id)}
    failed: list[Failure] = []
    try:
        total = sum(len(rows) for rows in by_doc.values())
        done = total - sum(len(rows) for rows in todo.values())
        with tqdm(total=total, initial=done, desc=f"text {pages}", unit="page") as bar:
            for text in _text_documents(todo, paths, workers, (source, psm, lang), bar):
                for failure in text.failures:
                    log.warning("page unread: %s", failure.describe())
                failed += text.failures
                checkpoint.append(text.row())
        rows = checkpoint.finish(by_doc)
    finally:
        checkpoint.close()
    write_failures(failures, failed)
    sources = [page["source"] for row in rows for page in row.get("pages", [])]
    log.info(
        "text of %d documents in %s: %d pages from the text layer, %d by OCR, %d unread "
        "(listed in %s)",
        len(rows),
        out,
        sources.count("pdf"),
        sources.count("ocr"),
        sources.count(""),
        failures,
    )


def _text_documents(
    todo: dict[str, list[Page]],
    paths: dict[str, str],
    workers: int,
    settings: tuple[str, int, str],
    bar: tqdm,
) -> Iterable[DocumentText]:
    """One DocumentText per document, in order, as its pages come back from the workers."""
    if not todo:
        return
    tasks = [(paths[doc_id], page, *settings) for doc_id, rows in todo.items() for page in rows]
    with Pool(workers, initializer=_init_worker) as pool:
        results = pool.imap(_page_task, tasks)
        for doc_id, rows in todo.items():
            done = []
            for _ in rows:
                done.append(next(results))
                bar.update()
            yield DocumentText(doc_id, done)


_cache: PdfCache | None = None


def _init_worker() -> None:
    """Pool initializer: tesseract's OpenMP threads fight each other when one runs per core;
    each worker keeps the PDF it reads open across that document's pages."""
    global _cache
    os.environ["OMP_THREAD_LIMIT"] = "1"
    _cache = PdfCache()


def _page_task(task: tuple[Any, ...]) -> PageText:
    doc_path, page, source, psm, lang = task
    assert _cache is not None
    return text_page(doc_path, page, source, psm, lang, _cache)


def _read_pages(pages: Path) -> dict[str, list[Page]]:
    """Pages grouped by document, documents in file order, pages by index."""
    documents: dict[str, list[Page]] = {}
    for row in read_jsonl(pages):
        page = Page.from_dict(row)
        if any(other.index == page.index for other in documents.get(page.doc_id, [])):
            raise ValueError(
                f"{pages}: page {page.index} of {page.doc_id!r} appears twice; "
                "rerun the render stage"
            )
        documents.setdefault(page.doc_id, []).append(page)
    return {doc_id: sorted(rows, key=lambda p: p.index) for doc_id, rows in documents.items()}
