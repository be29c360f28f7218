"""One OCR or layout element on a page."""

from __future__ import annotations

from dataclasses import dataclass

from docqa.core.records import Record

ELEMENT_KINDS = ("word", "line", "block")


@dataclass(frozen=True)
class Element(Record):
    """Text with its box in page pixels ``(x0, y0, x1, y1)`` at the page's render dpi.

    ``order`` is the reading order among elements of the same kind on the page; ``conf`` is the
    OCR confidence in [0, 100] (the mean over words for lines and blocks).
    """

    doc_id: str
    page: int
    kind: str
    text: str
    bbox: tuple[float, float, float, float]
    order: int
    conf: float
