"""The OCR stage: tesseract words, lines and blocks with boxes, confidence and reading order.

Settings follow the measurements in the feasibility notes: sparse-text mode (``--psm 11``)
finds the numbers on charts that the default mode misses, ``--dpi`` must be the render dpi or
table cells and bar labels come out as garbage, and one single-threaded tesseract per core
(``OMP_THREAD_LIMIT=1``) is 3-4x faster than letting OpenMP share the cores.

Sparse mode gives up on layout: every table cell, bar label and axis tick comes back as its own
block and line. Lines are therefore rebuilt here (``group_lines``) from tesseract's own lines, so
that a table row reads as one line and the page text reads top to bottom, left to right.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from multiprocessing import Pool
from pathlib import Path
from statistics import fmean
from typing import Any

import pytesseract
from tqdm import tqdm

from docqa.core.document import Page
from docqa.core.element import Element
from docqa.core.failures import Failure, write_failures
from docqa.core.jsonl import read_jsonl
from docqa.runtime.checkpoint import Checkpoint, fingerprint

log = logging.getLogger(__name__)

STAGE = "ocr"

# Two tesseract lines side by side join into one line when the gap between them is at most
# this many word heights. Measured on matplotlib slides at 200 dpi: the cells of a table row
# are 6-10 heights apart, the category labels under a 3-bar chart 12, a text column and a chart
# beside it 19-22. Joining too little only splits a row; joining too much fuses two columns.
MAX_LINE_GAP = 12.0
# Two tesseract lines are on the same row when their vertical overlap is at least this share of
# the shorter one's height.
MIN_ROW_OVERLAP = 0.5


@dataclass(frozen=True)
class TesseractWord:
    """One word as tesseract returned it, box in page pixels ``(x0, y0, x1, y1)``."""

    text: str
    box: tuple[int, int, int, int]
    conf: float
    block: int
    line: tuple[int, int, int]  # tesseract's (block, paragraph, line) numbers


def ocr_page(
    image: str | Path, doc_id: str, page: int, dpi: int, psm: int = 11, lang: str = "eng"
) -> list[Element]:
    """OCR one page image: its words, lines and blocks in reading order.

    Raises ``pytesseract.TesseractError`` when tesseract cannot read the image.
    """
    config = f"--psm {psm} --dpi {dpi}"
    data = pytesseract.image_to_data(
        str(image), lang=lang, config=config, output_type=pytesseract.Output.DICT
    )
    words = [
        TesseractWord(
            text=data["text"][i].strip(),
            box=(
                data["left"][i],
                data["top"][i],
                data["left"][i] + data["width"][i],
                data["top"][i] + data["height"][i],
            ),
            conf=float(data["conf"][i]),
            block=data["block_num"][i],
            line=(data["block_num"][i], data["par_num"][i], data["line_num"][i]),
        )
        for i in range(len(data["text"]))
        if data["text"][i].strip() and float(data["conf"][i]) != -1
    ]
    return page_elements(doc_id, page, words)


def group_lines(words: list[TesseractWord]) -> list[list[TesseractWord]]:
    """Group a page's words into text lines, in reading order.

    Starts from tesseract's lines (its words in its order), puts lines that overlap vertically
    by ``MIN_ROW_OVERLAP`` into one row (each row is anchored on its topmost line, so rows do not
    chain down the page), and splits each row left to right where the gap exceeds
    ``MAX_LINE_GAP`` word heights. Lines read top to bottom by row, left to right in a row.
    """
    units: dict[tuple[int, int, int], list[TesseractWord]] = {}
    for word in words:
        units.setdefault(word.line, []).append(word)
    rows: list[list[list[TesseractWord]]] = []
    for unit in sorted(units.values(), key=lambda u: (_box(u)[1], _box(u)[0])):
        overlaps = [_overlap(_box(row[0]), _box(unit)) for row in rows]
        if overlaps and max(overlaps) >= MIN_ROW_OVERLAP:
            rows[overlaps.index(max(overlaps))].append(unit)
        else:
            rows.append([unit])
    lines = []
    for row in rows:
        row.sort(key=lambda u: _box(u)[0])
        line = list(row[0])
        for previous, unit in pairwise(row):
            gap = _box(unit)[0] - _box(line)[2]
            if gap > MAX_LINE_GAP * min(_height(previous), _height(unit)):
                lines.append(line)
                line = []
            line.extend(unit)
        lines.append(line)
    return lines


def page_elements(doc_id: str, page: int, words: list[TesseractWord]) -> list[Element]:
    """Word, line and block elements of one page; ``order`` is the reading order per kind."""
    lines = group_lines(words)
    reading = [word for line in lines for word in line]
    position = {id(word): number for number, word in enumerate(reading)}
    line_of = {id(word): number for number, line in enumerate(lines) for word in line}
    blocks: dict[int, list[TesseractWord]] = {}
    for word in reading:
        blocks.setdefault(word.block, []).append(word)
    ordered_blocks = sorted(blocks.values(), key=lambda block: position[id(block[0])])

    def element(kind: str, order: int, text: str, group: list[TesseractWord]) -> Element:
        conf = round(fmean(word.conf for word in group), 2)
        return Element(doc_id, page, kind, text, _box(group), order, conf)

    elements = [element("word", n, w.text, [w]) for n, w in enumerate(reading)]
    elements += [element("line", n, _join(line), line) for n, line in enumerate(lines)]
    for n, block in enumerate(ordered_blocks):
        block_lines: dict[int, list[TesseractWord]] = {}
        for word in block:
            block_lines.setdefault(line_of[id(word)], []).append(word)
        elements.append(element("block", n, "\n".join(map(_join, block_lines.values())), block))
    return elements


def ocr_dataset(
    pages: Path,
    out: Path,
    workers: int,
    psm: int = 11,
    lang: str = "eng",
    failures: Path | None = None,
) -> None:
    """OCR every page of ``pages`` (a pages.jsonl) into ``out``, one line per document.

    Rows are ``{"doc_id", "elements": [Element dicts]}`` in the document order of ``pages``.
    ``workers`` single-threaded tesseract processes run side by side. A document with a page
    tesseract cannot read gets no row; it is listed in ``failures`` (default
    ``<out stem>.failures.jsonl``, always written) and tried again when the stage reruns.
    Resumable per document: a rerun after a kill keeps the documents already done. Within a
    row, elements are by page, then words, lines and blocks, each in reading order.
    """
    if workers < 1:
        raise ValueError(f"ocr_dataset: workers must be at least 1, got {workers}")
    pages, out = Path(pages), Path(out)
    failures = Path(failures) if failures else out.with_name(f"{out.stem}.failures.jsonl")
    documents = _read_pages(pages)
    settings = {"psm": psm, "lang": lang, "tesseract": str(pytesseract.get_tesseract_version())}
    checkpoint = Checkpoint(out, fingerprint({"stage": STAGE, **settings}, pages), key="doc_id")
    todo = {doc_id: rows for doc_id, rows in documents.items() if not checkpoint.done(doc_id)}
    failed: list[Failure] = []
    try:
        total = sum(len(rows) for rows in documents.values())
        done = total - sum(len(rows) for rows in todo.values())
        with tqdm(total=total, initial=done, desc=f"ocr {pages}", unit="page") as bar:
            for doc_id, elements, doc_failures in _ocr_documents(todo, workers, psm, lang, bar):
                if doc_failures:
                    failed += doc_failures
                    for failure in doc_failures:
                        log.warning("skipped %s", failure.describe())
                else:
                    checkpoint.append({"doc_id": doc_id, "elements": elements})
        rows = checkpoint.finish(documents)
    finally:
        checkpoint.close()
    write_failures(failures, failed)
    log.info(
        "OCR of %d of %d documents in %s; %d pages failed (listed in %s)",
        len(rows),
        len(documents),
        out,
        len(failed),
        failures,
    )


def load_page_texts(elements_path: Path, pages_path: Path) -> dict[str, list[str]]:
    """doc_id -> the text of each page: its lines in reading order joined with newlines.

    Every page of pages.jsonl gets an entry ("" for a page without text). Documents that have
    no row in the OCR output (their OCR failed, see its failures file) are absent.
    """
    page_counts: dict[str, int] = {}
    for row in read_jsonl(pages_path):
        page_counts[row["doc_id"]] = max(page_counts.get(row["doc_id"], 0), row["index"] + 1)
    texts = {}
    for row in read_jsonl(elements_path):
        doc_id = row["doc_id"]
        if doc_id not in page_counts:
            raise ValueError(
                f"{elements_path}: document {doc_id!r} is not in {pages_path}; "
                "the OCR output is from other pages, rerun the OCR stage"
            )
        lines: list[list[tuple[int, str]]] = [[] for _ in range(page_counts[doc_id])]
        for element in row["elements"]:
            if element["kind"] != "line":
                continue
            if not 0 <= element["page"] < page_counts[doc_id]:
                raise ValueError(
                    f"{elements_path}: document {doc_id!r} has text on page {element['page']} "
                    f"but {pages_path} lists {page_counts[doc_id]} pages; rerun the OCR stage"
                )
            lines[element["page"]].append((element["order"], element["text"]))
        texts[doc_id] = ["\n".join(text for _, text in sorted(page)) for page in lines]
    return texts


def _ocr_documents(
    todo: dict[str, list[Page]], workers: int, psm: int, lang: str, bar: tqdm
) -> Iterable[tuple[str, list[dict[str, Any]], list[Failure]]]:
    """Yield (doc_id, elements, failures) per document, in order, as its pages come back."""
    if not todo:
        return
    tasks = [(page, psm, lang) for rows in todo.values() for page in rows]
    with Pool(workers, initializer=_single_thread_tesseract) as pool:
        results = pool.imap(_ocr_task, tasks)
        for doc_id, rows in todo.items():
            elements: list[dict[str, Any]] = []
            failures = []
            for _ in rows:
                page_elements, failure = next(results)
                bar.update()
                elements += page_elements
                if failure:
                    failures.append(failure)
            yield doc_id, elements, failures


def _single_thread_tesseract() -> None:
    """Pool initializer: tesseract's OpenMP threads fight each other when one runs per core."""
    os.environ["OMP_THREAD_LIMIT"] = "1"


def _ocr_task(task: tuple[Page, int, str]) -> tuple[list[dict[str, Any]], Failure | None]:
    page, psm, lang = task
    try:
        elements = ocr_page(page.image, page.doc_id, page.index, page.dpi, psm, lang)
    except pytesseract.TesseractError as error:
        return [], Failure(
            stage=STAGE,
            doc_id=page.doc_id,
            path=page.image,
            error=f"tesseract could not read page {page.index} (0-based): "
            + " ".join(str(error.message).split()),
            fix="the page image is missing or damaged: rerun the render stage for this document",
        )
    return [element.to_dict() for element in elements], None


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


def _box(words: list[TesseractWord]) -> tuple[int, int, int, int]:
    return (
        min(w.box[0] for w in words),
        min(w.box[1] for w in words),
        max(w.box[2] for w in words),
        max(w.box[3] for w in words),
    )


def _height(words: list[TesseractWord]) -> int:
    box = _box(words)
    return max(1, box[3] - box[1])


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Vertical overlap of two boxes as a share of the shorter one's height."""
    shared = min(a[3], b[3]) - max(a[1], b[1])
    return shared / max(1, min(a[3] - a[1], b[3] - b[1]))


def _join(words: list[TesseractWord]) -> str:
    return " ".join(word.text for word in words)
