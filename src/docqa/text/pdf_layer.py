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

from docqa.text.words import Box, Frame, Word, union

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
    # word boxes are in this frame (the page turned so its text runs left to right);
    # Frame.to_device maps them to the rendered image's pixels; images are in image pixels
    frame: Frame = field(default_factory=lambda: Frame(0, 0, 0))


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
        self.width, self.height = width, height

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
    """Characters to words. Each character's reading direction on the image (0 right, 90 down,
    180 left, 270 up) comes from its angle and the page's ``/Rotate``; the most common one is
    the page's frame (:class:`~docqa.text.words.Frame`), in which words are built and boxed.
    Characters running another way (a vertical margin stamp, a rotated axis label) form words
    along their own direction, boxed in the same frame."""
    raw = textpage.raw
    rect = pdfium_c.FS_RECTF()
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    chars: list[tuple[str, Box, int, int]] = []  # text (" " = break), device box, direction, weight
    text: list[str] = []
    for i in range(pdfium_c.FPDFText_CountChars(raw)):
        code = pdfium_c.FPDFText_GetUnicode(raw, i)
        if code in WHITESPACE:
            chars.append((" ", (0.0, 0.0, 0.0, 0.0), -1, 0))
            continue
        if pdfium_c.FPDFText_IsHyphen(raw, i) == 1 or code == 0x02:
            code = 0x2D
        angle = pdfium_c.FPDFText_GetCharAngle(raw, i)
        if angle < 0 or min(angle, 2 * math.pi - angle) < 0.01:  # -1: pdfium could not tell
            pdfium_c.FPDFText_GetLooseCharBox(raw, i, rect)
            box = transform.box(rect.left, rect.bottom, rect.right, rect.top)
            angle = 0.0
        else:  # pdfium's loose box ignores the character's rotation; the glyph box does not
            pdfium_c.FPDFText_GetCharBox(raw, i, left, right, bottom, top)
            box = transform.box(left.value, bottom.value, right.value, top.value)
        dx = math.cos(angle) * transform.ux[0] + math.sin(angle) * transform.uy[0]
        dy = math.cos(angle) * transform.ux[1] + math.sin(angle) * transform.uy[1]
        direction = round(math.degrees(math.atan2(dy, dx)) / 90) % 4 * 90
        out.chars += 1
        out.unmapped += pdfium_c.FPDFText_HasUnicodeMapError(raw, i) == 1
        character = chr(code) if 0 < code < 0x110000 else "\ufffd"
        text.append(character)
        chars.append((character, box, direction, pdfium_c.FPDFText_GetFontWeight(raw, i)))
    out.text = "".join(text)
    directions = [c[2] for c in chars if c[2] >= 0]
    if not directions:
        return
    page_direction = max(set(directions), key=directions.count)
    out.frame = Frame(page_direction, transform.width, transform.height)
    for direction in sorted(set(directions)):
        own = Frame(direction, transform.width, transform.height)
        word: list[tuple[str, Box, int]] = []
        for character, box, char_direction, weight in chars:
            if char_direction != direction:
                if character == " " or word:
                    _add_word(word, own, out)
                    word = []
                continue
            framed = own.to_frame(box)
            if word:
                last = word[-1][1]
                jump = WORD_JUMP * max(1.0, framed[3] - framed[1], last[3] - last[1])
                centre, last_centre = (framed[1] + framed[3]) / 2, (last[1] + last[3]) / 2
                far = framed[0] - last[2] > jump or framed[2] < last[0] - jump
                if far or abs(centre - last_centre) > 1.7 * jump:
                    _add_word(word, own, out)
                    word = []
            word.append((character, framed, weight))
        _add_word(word, own, out)


def _add_word(word: list[tuple[str, Box, int]], own: Frame, out: PdfPageText) -> None:
    """One word from its characters (boxes in ``own``'s frame) into ``out``, boxed in the
    page's frame; its size is the loose box height (the font's ascent to descent:
    FPDFText_GetFontSize says 1 for the common "1 Tf" with the size in the text matrix)."""
    if not word:
        return
    box = union([b for _, b, _ in word])
    size = max(b[3] - b[1] for _, b, _ in word)
    if own.rotation != out.frame.rotation:
        box = out.frame.to_frame(own.to_device(box))
    out.words.append(
        Word(
            "".join(c for c, _, _ in word),
            tuple(round(v, 1) for v in box),  # type: ignore[arg-type]
            100.0,
            round(size, 1),
            max(w for _, _, w in word) >= BOLD_WEIGHT,
            own.rotation != out.frame.rotation,
        )
    )
