"""One text or layout element on a page."""

from __future__ import annotations

from dataclasses import dataclass

from docqa.core.records import Record

# Granularity: a word, a line (words of one column on one row) or a block (lines of a column
# that belong together: a paragraph, a table, a list).
ELEMENT_KINDS = ("word", "line", "block")
# What the element is on the page (docqa.text.kinds); a word has the layout of its line.
LAYOUT_KINDS = (
    "title",
    "text",
    "list",
    "table",
    "figure",
    "caption",
    "header",
    "footer",
    "page_number",
)
# Where the text came from: the PDF's own text layer, or tesseract on the page image.
TEXT_SOURCES = ("pdf", "ocr")


@dataclass(frozen=True)
class Element(Record):
    """Text with its box in page pixels ``(x0, y0, x1, y1)`` at the page's render dpi.

    ``order`` is the reading order among elements of the same kind on the page; ``conf`` is the
    OCR confidence in [0, 100] (the mean over words for lines and blocks; 100 for text read
    from the PDF's text layer). ``layout`` is one of :data:`LAYOUT_KINDS` ("" when unknown, as
    in files written before the text stage), ``source`` one of :data:`TEXT_SOURCES`.
    """

    doc_id: str
    page: int
    kind: str
    text: str
    bbox: tuple[float, float, float, float]
    order: int
    conf: float
    layout: str = ""
    source: str = ""
