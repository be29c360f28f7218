"""Tesseract on a page image: its words with boxes and confidence.

Settings follow the measurements in the feasibility notes: sparse-text mode (``--psm 11``)
finds the numbers on charts that the default mode misses, ``--dpi`` must be the render dpi or
table cells and bar labels come out as garbage, and one single-threaded tesseract per core
(``OMP_THREAD_LIMIT=1``) is 3-4x faster than letting OpenMP share the cores. Sparse mode gives
up on layout (every table cell is its own block), so lines and reading order are rebuilt from
the word boxes by :mod:`docqa.text.reading_order`, the same as for the PDF's text layer.

A page in another script than the config's language is read in its own
(:func:`read_page`, :mod:`docqa.text.script`), or not at all when its language is not installed.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

import pytesseract

from docqa.core.element import Element
from docqa.text.elements import page_elements
from docqa.text.script import Script, installed_languages, osd_script
from docqa.text.words import Word

#: below this mean word confidence the config's language reads the page badly: its script is
#: asked of OSD (English pages measured 92-95, a Chinese page read as English 43)
LOW_CONFIDENCE = 60.0


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


@dataclass(frozen=True)
class OcrRead:
    """What OCR made of a page: its words, the language that read them, the script seen when
    it is not the config language's (None otherwise), and ``missing``: True when the page is in
    that script and no language for it is installed (then there are no words)."""

    words: list[Word]
    lang: str
    script: Script | None = None
    missing: bool = False


def read_page(
    image: str | Path, dpi: int, psm: int, lang: str, hint: Script | None = None
) -> OcrRead:
    """OCR a page in the language of its script: ``hint`` (the text layer's script), else the
    config's ``lang``, asking OSD for the script when ``lang`` reads the page badly
    (:data:`LOW_CONFIDENCE`). A script ``lang`` does not read is read with an installed language
    of it; with none installed the page gets no words and ``missing``.

    Raises ``pytesseract.TesseractError`` when tesseract cannot read the image.
    """
    script = hint if hint is not None and not hint.read_by(lang) else None
    if script is None:
        words = ocr_words(image, dpi, psm, lang)
        if not words or statistics.fmean(word.conf for word in words) >= LOW_CONFIDENCE:
            return OcrRead(words, lang)
        script = osd_script(image)
        if script is None or script.read_by(lang):
            return OcrRead(words, lang)
    installed = [name for name in script.languages if name in installed_languages()]
    if not installed:
        return OcrRead([], lang, script, missing=True)
    return OcrRead(ocr_words(image, dpi, psm, installed[0]), installed[0], script)
