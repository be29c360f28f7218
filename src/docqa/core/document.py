"""A document of a dataset and its rendered pages."""

from __future__ import annotations

from dataclasses import dataclass

from docqa.core.records import Record


@dataclass(frozen=True)
class Document(Record):
    """One source document (a PDF) of a dataset."""

    doc_id: str
    path: str
    num_pages: int | None = None
    doc_type: str = ""


@dataclass(frozen=True)
class Page(Record):
    """One rendered page of a document; ``index`` is 0-based."""

    doc_id: str
    index: int
    image: str
    width: int
    height: int
    dpi: int
    thumbnail: str = ""
