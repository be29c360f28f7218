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
    turned: bool = False  # runs another way than the page's text (a vertical margin stamp)

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


class Frame:
    """The page turned so that its text runs left to right: ``rotation`` is the direction the
    text runs in on the rendered image (0 right, 90 down, 180 left, 270 up, y pointing down).
    Reading order works in the frame; boxes go back to the image's pixels with ``to_device``."""

    def __init__(self, rotation: int, width: float, height: float) -> None:
        self.rotation = rotation % 360
        self.width, self.height = width, height
        turned = self.rotation in (90, 270)
        self.size = (height, width) if turned else (width, height)

    def point_to_frame(self, x: float, y: float) -> tuple[float, float]:
        if self.rotation == 90:
            return y, self.width - x
        if self.rotation == 270:
            return self.height - y, x
        if self.rotation == 180:
            return self.width - x, self.height - y
        return x, y

    def point_to_device(self, u: float, v: float) -> tuple[float, float]:
        if self.rotation == 90:
            return self.width - v, u
        if self.rotation == 270:
            return v, self.height - u
        if self.rotation == 180:
            return self.width - u, self.height - v
        return u, v

    def to_frame(self, box: Box) -> Box:
        return _corners(self.point_to_frame, box)

    def to_device(self, box: Box) -> Box:
        return _corners(self.point_to_device, box)


def _corners(mapping, box: Box) -> Box:
    (ax, ay), (bx, by) = mapping(box[0], box[1]), mapping(box[2], box[3])
    return (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))
