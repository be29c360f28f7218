"""Writing a dataset's documents under ``docs/``: PDFs, and documents made of page images.

Two kinds of ``Document.path`` leave the data stage:

- a PDF file, ``docs/<doc_id>.pdf``: a relative symlink to the downloaded file, or a copy cut
  to the first ``max_pages`` pages when a page cap is set;
- a folder, ``docs/<doc_id>/``, whose files are the pages in file-name order
  (``page-0000.png``, ``page-0001.jpg``, …). Every file in it is a page; the render stage reads
  them at their own size.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

import pypdfium2 as pdfium

from docqa.core.document import Document
from docqa.datasets.fields import BadRow

# Leading bytes of the image formats the benchmarks ship, and the file suffix for each.
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", ".png"),
    (b"\xff\xd8", ".jpg"),
    (b"GIF8", ".gif"),
    (b"II*\x00", ".tif"),
    (b"MM\x00*", ".tif"),
    (b"BM", ".bmp"),
)


def link_pdf(
    doc_id: str, source: Path, docs_dir: Path, max_pages: int | None, doc_type: str = ""
) -> Document:
    """``docs/<doc_id>.pdf`` for the PDF ``source``; raise ``BadRow`` if it is not there.

    A PDF that pdfium cannot open is still linked: the render stage records why it fails.
    """
    if not source.is_file():
        raise BadRow(
            f"the PDF {source} is missing from the download",
            "rerun the download rule; if the file is missing upstream, the document is skipped",
        )
    target = docs_dir / f"{doc_id}.pdf"
    _clear(target)
    docs_dir.mkdir(parents=True, exist_ok=True)
    pages = _cut_pdf(source, target, max_pages) if max_pages is not None else None
    if pages is None:
        _symlink(source, target)
    return Document(doc_id, str(target), pages, doc_type)


def write_pages(
    doc_id: str,
    pages: Iterable[bytes | Path],
    docs_dir: Path,
    max_pages: int | None,
    doc_type: str = "",
) -> Document:
    """``docs/<doc_id>/page-NNNN.<ext>`` from page images (bytes, or files to link) in order."""
    folder = docs_dir / doc_id
    _clear(folder)
    folder.mkdir(parents=True)
    count = 0
    for index, page in enumerate(pages):
        if max_pages is not None and index >= max_pages:
            break
        if isinstance(page, Path):
            _symlink(page, folder / f"page-{index:04d}{page.suffix.lower()}")
        else:
            (folder / f"page-{index:04d}{image_suffix(page)}").write_bytes(page)
        count += 1
    if count == 0:
        shutil.rmtree(folder)
        raise BadRow(f"document {doc_id} has no page images", "check the download")
    return Document(doc_id, str(folder), count, doc_type)


def image_suffix(data: bytes) -> str:
    """The file suffix of an image from its first bytes; ``.img`` when unknown (the render
    stage then reports the page as unreadable instead of the data stage guessing)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    for magic, suffix in _MAGIC:
        if data.startswith(magic):
            return suffix
    return ".img"


def _cut_pdf(source: Path, target: Path, max_pages: int) -> int | None:
    """Write the first ``max_pages`` pages of ``source`` to ``target``; None if unreadable."""
    try:
        pdf = pdfium.PdfDocument(source)
    except pdfium.PdfiumError:
        return None
    try:
        count = min(len(pdf), max_pages)
        cut = pdfium.PdfDocument.new()
        cut.import_pages(pdf, list(range(count)))
        cut.save(target)
        cut.close()
        return count
    finally:
        pdf.close()


def _symlink(source: Path, target: Path) -> None:
    """A relative link, so that ``results/`` can be moved as a whole."""
    target.symlink_to(os.path.relpath(source.resolve(), target.parent.resolve()))


def _clear(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
