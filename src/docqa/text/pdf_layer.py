"""Words of a PDF page's own text layer, through pypdfium2, boxed in rendered page pixels.

pypdfium2 (pdfium, Apache-2.0/BSD) is the library here rather than PyMuPDF (AGPL-3.0: every
program that imports it would have to be offered under the AGPL) or pdfminer.six (MIT, pure
Python, 10-50x slower per page). pdfium is also what renders the page images, so the text and
the pixels come from one reading of the file: the same crop box, the same ``/Rotate``. Each
character's *loose* box (the font's ascent to descent, so every character of a line has the
same height) is mapped through pdfium's own page-to-device transform for the rendered size;
words are runs of characters between whitespace (pdfium inserts the spaces and line breaks a
PDF leaves implicit) or a jump in position.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass, field

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from docqa.text.words import Box, Word

WHITESPACE = {0x20, 0x09, 0x0A, 0x0D, 0x00, 0xA0, 0x3000}
BOLD_WEIGHT = 600
# A character that starts this many font sizes right of the last one, or half a size off its
# line, starts a new word even without a space between them.
WORD_JUMP = 0.3


@dataclass
class PdfPageText:
    """The text layer of one page: words in pdfium's order, image boxes, and counts that tell
    whether the layer can be trusted (:mod:`docqa.text.quality`)."""

    words: list[Word] = field(default_factory=list)
    images: list[Box] = field(default_factory=list)
    chars: int = 0  # characters other than whitespace
    unmapped: int = 0  # characters the font's unicode map could not translate
    text: str = ""  # every non-whitespace character, in order


class Transform:
    """pdfium's page-to-device mapping for a page rendered at ``width`` x ``height`` pixels."""

    def __init__(self, page: pdfium.PdfPage, width: int, height: int) -> None:
        # FPDF_PageToDevice rounds to whole pixels: map onto a 1000x larger device, scale back.
        def device(x: float, y: float) -> tuple[float, float]:
            dx, dy = ctypes.c_int(), ctypes.c_int()
            pdfium_c.FPDF_PageToDevice(page.raw, 0, 0, width * 1000, height * 1000, 0, x, y, dx, dy)
            return dx.value / 1000, dy.value / 1000

        self.origin = device(0, 0)
        ax, ay = device(100, 0)
        bx, by = device(0, 100)
        self.ux = ((ax - self.origin[0]) / 100, (ay - self.origin[1]) / 100)
        self.uy = ((bx - self.origin[0]) / 100, (by - self.origin[1]) / 100)
        self.scale = math.hypot(*self.ux)

    def point(self, x: float, y: float) -> tuple[float, float]:
        return (
            self.origin[0] + x * self.ux[0] + y * self.uy[0],
            self.origin[1] + x * self.ux[1] + y * self.uy[1],
        )

    def box(self, left: float, bottom: float, right: float, top: float) -> Box:
        corners = [self.point(left, bottom), self.point(right, top)]
        corners += [self.point(left, top), self.point(right, bottom)]
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        return (min(xs), min(ys), max(xs), max(ys))


def page_text(pdf: pdfium.PdfDocument, index: int, width: int, height: int) -> PdfPageText:
    """The text layer of page ``index`` with boxes in the pixels of its ``width`` x ``height``
    rendering."""
    page = pdf[index]
    try:
        transform = Transform(page, width, height)
        result = PdfPageText()
        textpage = page.get_textpage()
        try:
            _read_words(textpage, transform, result)
        finally:
            textpage.close()
        for image in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)):
            left, bottom, right, top = image.get_bounds()
            box = transform.box(left, bottom, right, top)
            clipped = (max(0.0, box[0]), max(0.0, box[1]), min(width, box[2]), min(height, box[3]))
            if clipped[2] > clipped[0] and clipped[3] > clipped[1]:
                result.images.append(tuple(round(v, 1) for v in clipped))  # type: ignore[arg-type]
        return result
    finally:
        page.close()


def _read_words(textpage: pdfium.PdfTextPage, transform: Transform, out: PdfPageText) -> None:
    raw = textpage.raw
    chars: list[str] = []
    boxes: list[Box] = []
    weights: list[int] = []
    text: list[str] = []

    def flush() -> None:
        if chars:
            box = (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            )
            # the loose box's height (the font's ascent to descent): FPDFText_GetFontSize says 1
            # for the common "1 Tf" with the size in the text matrix
            size = max(b[3] - b[1] for b in boxes)
            out.words.append(
                Word(
                    "".join(chars),
                    tuple(round(v, 1) for v in box),  # type: ignore[arg-type]
                    100.0,
                    round(size, 1),
                    max(weights) >= BOLD_WEIGHT,
                )
            )
            chars.clear(), boxes.clear(), weights.clear()

    rect = pdfium_c.FS_RECTF()
    for i in range(pdfium_c.FPDFText_CountChars(raw)):
        code = pdfium_c.FPDFText_GetUnicode(raw, i)
        if code in WHITESPACE:
            flush()
            continue
        if pdfium_c.FPDFText_IsHyphen(raw, i) == 1 or code == 0x02:
            code = 0x2D
        pdfium_c.FPDFText_GetLooseCharBox(raw, i, rect)
        box = transform.box(rect.left, rect.bottom, rect.right, rect.top)
        if chars:
            last = boxes[-1]
            jump = WORD_JUMP * max(1.0, box[3] - box[1], last[3] - last[1])
            cy, ly = (box[1] + box[3]) / 2, (last[1] + last[3]) / 2
            if box[0] - last[2] > jump or box[2] < last[0] - jump or abs(cy - ly) > 1.7 * jump:
                flush()
        out.chars += 1
        out.unmapped += pdfium_c.FPDFText_HasUnicodeMapError(raw, i) == 1
        character = chr(code) if 0 < code < 0x110000 else "\ufffd"
        chars.append(character)
        text.append(character)
        boxes.append(box)
        weights.append(pdfium_c.FPDFText_GetFontWeight(raw, i))
    flush()
    out.text = "".join(text)
