"""The text of one page and of one document, from the source a dataset asks for.

``source``: ``pdf`` reads the PDF's text layer, ``ocr`` runs tesseract on the rendered page
image, ``auto`` reads the text layer where a page has a usable one (:mod:`docqa.text.quality`)
and OCRs the page where not. The choice is made and recorded per page, so a PDF with some
scanned pages works, and a folder of page images (no PDF) is OCRed page by page. With
``pdf``, a page whose layer is unusable is still OCRed (and says so): an empty page is never
passed off as read. A page OCRed in another script than the config's language is read in a
language of its script, or recorded as unread with the package to install
(:func:`docqa.text.ocr.read_page`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytesseract

from docqa.core.document import Document, Page
from docqa.core.element import Element
from docqa.core.failures import Failure
from docqa.text.elements import page_elements
from docqa.text.ocr import OcrRead, read_page
from docqa.text.pdf_layer import page_text
from docqa.text.quality import unusable_reason
from docqa.text.script import Script, layer_script

STAGE = "text"
SOURCES = ("auto", "pdf", "ocr")


@dataclass
class PageText:
    """One page's elements and where they came from: ``source`` "pdf" or "ocr" ("" when
    neither could read the page), ``reason`` why (empty when the text layer was used as asked);
    ``script`` and ``lang`` when OCR saw another script than the config language's: the script,
    and the language that read it ("" when none is installed)."""

    page: int
    source: str
    reason: str
    elements: list[Element] = field(default_factory=list)
    failure: Failure | None = None
    script: str = ""
    lang: str = ""

    def record(self) -> dict[str, Any]:
        record: dict[str, Any] = {"page": self.page, "source": self.source, "reason": self.reason}
        if self.script:
            record.update(script=self.script, lang=self.lang)
        return record


@dataclass
class DocumentText:
    """A document's elements (by page, then words, lines, blocks in reading order), its
    per-page source records, and the pages that no source could read."""

    doc_id: str
    pages: list[PageText]

    @property
    def elements(self) -> list[Element]:
        return [element for page in self.pages for element in page.elements]

    @property
    def failures(self) -> list[Failure]:
        return [page.failure for page in self.pages if page.failure]

    def row(self) -> dict[str, Any]:
        """The stage's output row for this document."""
        return {
            "doc_id": self.doc_id,
            "elements": [element.to_dict() for element in self.elements],
            "pages": [page.record() for page in self.pages],
        }


def text_document(
    document: Document, pages: list[Page], source: str = "auto", psm: int = 11, lang: str = "eng"
) -> DocumentText:
    """Elements of every page of ``document`` (rendered as ``pages``). Never raises for a bad
    page: a page neither source can read has no elements and a ``failure``."""
    pdf = PdfCache()
    try:
        return DocumentText(
            document.doc_id,
            [text_page(document.path, page, source, psm, lang, pdf) for page in pages],
        )
    finally:
        pdf.close()


class PdfCache:
    """The open PDF of the last document asked for (pages of a document come in a row)."""

    def __init__(self) -> None:
        self.path = ""
        self.pdf: pdfium.PdfDocument | None = None
        self.error = ""

    def get(self, path: str) -> tuple[pdfium.PdfDocument | None, str]:
        if path != self.path:
            self.close()
            self.path = path
            try:
                if Path(path).is_dir():
                    self.error = "the document is a folder of page images"
                else:
                    self.pdf = pdfium.PdfDocument(path)
            except (pdfium.PdfiumError, OSError) as error:
                self.error = f"the PDF cannot be opened ({error})"
        return self.pdf, self.error

    def close(self) -> None:
        if self.pdf is not None:
            self.pdf.close()
        self.pdf, self.error = None, ""


def text_page(
    doc_path: str, page: Page, source: str, psm: int, lang: str, cache: PdfCache
) -> PageText:
    """One page's text from ``source`` (see the module docstring)."""
    if source not in SOURCES:
        raise ValueError(f"text source {source!r} is not one of {SOURCES}; fix the config")
    reason = "source: ocr" if source == "ocr" else ""
    hint: Script | None = None
    if source != "ocr":
        pdf, error = cache.get(doc_path)
        if pdf is None:
            reason = error
        else:
            try:
                layer = page_text(pdf, page.index, page.width, page.height)
            except pdfium.PdfiumError as error:
                reason = f"pdfium could not read the page's text ({error})"
            else:
                reason = unusable_reason(layer)
                if not reason:
                    elements = page_elements(
                        page.doc_id,
                        page.index,
                        layer.words,
                        "pdf",
                        page.height,
                        layer.images,
                        layer.frame,
                    )
                    return PageText(page.index, "pdf", "", elements)
                hint = layer_script(layer.text)
    try:
        read = read_page(page.image, page.dpi, psm, lang, hint)
    except pytesseract.TesseractError as error:
        return _unread_page(
            page,
            reason,
            source,
            "tesseract could not read the page image: " + " ".join(str(error.message).split()),
            fix="the page image is missing or damaged: rerun the render stage for it",
        )
    if read.missing:
        return _unread_script(page, reason, source, lang, read)
    elements = page_elements(page.doc_id, page.index, read.words, "ocr", page.height)
    script = read.script.name if read.script else ""
    return PageText(page.index, "ocr", reason, elements, script=script, lang=read.lang)


def _unread_script(page: Page, reason: str, source: str, lang: str, read: OcrRead) -> PageText:
    """A page in a script no installed tesseract language reads: no elements (OCR in ``lang``
    would be garbage that a model answers from) and a failure naming the package to install."""
    assert read.script is not None
    script = read.script
    unread = _unread_page(
        page,
        reason,
        source,
        f"the page is in {script.name} script ({script.seen_in}), which no installed "
        f"tesseract language reads ({' or '.join(script.languages)}): not read as {lang}",
        fix=f"install {script.package()} (apt-get install {script.package()}) and run "
        "the text stage again (delete the dataset's text folder), or set text.lang",
    )
    return dataclasses.replace(unread, script=script.name)


def _unread_page(page: Page, reason: str, source: str, problem: str, fix: str) -> PageText:
    """A page OCR did not read: no text, and the failure the text stage records for it."""
    return PageText(
        page.index,
        "",
        reason,
        failure=Failure(
            stage=STAGE,
            doc_id=page.doc_id,
            path=page.image,
            error=f"page {page.index} (0-based): "
            + (f"{reason}, and " if reason and source != "ocr" else "")
            + problem,
            fix=fix,
        ),
    )
