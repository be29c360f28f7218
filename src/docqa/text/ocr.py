"""Tesseract on a page image: its words with boxes and confidence.

Settings follow the measurements in the feasibility notes: sparse-text mode (``--psm 11``)
finds the numbers on charts that the default mode misses, ``--dpi`` must be the render dpi or
table cells and bar labels come out as garbage, and one single-threaded tesseract per core
(``OMP_THREAD_LIMIT=1``) is 3-4x faster than letting OpenMP share the cores. Sparse mode gives
up on layout (every table cell is its own block), so lines and reading order are rebuilt from
the word boxes by :mod:`docqa.text.reading_order`, the same as for the PDF's text layer.
"""

from __future__ import annotations

from pathlib import Path

import pytesseract

from docqa.core.element import Element
from docqa.text.elements import page_elements
from docqa.text.words import Word


def ocr_words(image: str | Path, dpi: int, psm: int = 11, lang: str = "eng") -> list[Word]:
    """The words tesseract reads on ``image``, boxes in its pixels.

    Raises ``pytesseract.TesseractError`` when tesseract cannot read the image.
    """
    data = pytesseract.image_to_data(
        str(image),
        lang=lang,
        config=f"--psm {psm} --dpi {dpi}",
        output_type=pytesseract.Output.DICT,
    )
    return [
        Word(
            text=data["text"][i].strip(),
            box=(
                data["left"][i],
                data["top"][i],
                data["left"][i] + data["width"][i],
                data["top"][i] + data["height"][i],
            ),
            conf=float(data["conf"][i]),
        )
        for i in range(len(data["text"]))
        if data["text"][i].strip() and float(data["conf"][i]) != -1
    ]


def ocr_page(
    image: str | Path, doc_id: str, page: int, dpi: int, psm: int = 11, lang: str = "eng"
) -> list[Element]:
    """OCR one page image: its words, lines and blocks in reading order (source "ocr")."""
    return page_elements(doc_id, page, ocr_words(image, dpi, psm, lang), "ocr")
