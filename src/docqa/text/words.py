"""The word both text sources produce, before reading order and layout are worked out."""

from __future__ import annotations

from dataclasses import dataclass

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Word:
    """One word, box in page pixels ``(x0, y0, x1, y1)`` of the rendered page image.

    ``size`` is the text size in pixels (the font's ascent to descent for the text layer, 0 for
    OCR words: their box height stands in); ``bold`` is what the
    PDF's font says (always False for OCR); ``conf`` is tesseract's confidence, 100 for the
    text layer.
    """

    text: str
    box: Box
    conf: float = 100.0
    size: float = 0.0
    bold: bool = False

    @property
    def height(self) -> float:
        return max(1.0, self.size or (self.box[3] - self.box[1]))


def union(boxes: list[Box]) -> Box:
    """The smallest box holding every box of ``boxes``."""
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def box_of(words: list[Word]) -> Box:
    return union([word.box for word in words])
