"""A page's OCR lines with their boxes, as the agent's models read them.

Boxes are in thousandths of the page's width and height (the unit of Focus plans and Extract
regions), so that they do not depend on the render dpi.
"""

from __future__ import annotations

from docqa.methods.base import DocumentEnv

Box = tuple[int, int, int, int]


def page_lines(env: DocumentEnv, page: int, region: Box | None = None) -> list[tuple[Box, str]]:
    """The page's OCR lines in reading order with their boxes; with ``region``, only the lines
    whose centre lies in it."""
    record = env.pages[page]
    found = []
    lines = (e for e in env.elements if e.page == page and e.kind == "line")
    for element in sorted(lines, key=lambda e: e.order):
        x0, y0, x1, y1 = element.bbox
        box = (
            round(x0 * 1000 / record.width),
            round(y0 * 1000 / record.height),
            round(x1 * 1000 / record.width),
            round(y1 * 1000 / record.height),
        )
        if region is None or _centre_in(box, region):
            found.append((box, element.text))
    return found


def with_boxes(lines: list[tuple[Box, str]], limit: int) -> str:
    """``[x0, y0, x1, y1] text`` per line, the first ``limit`` lines."""
    return "\n".join(f"{list(box)} {text}" for box, text in lines[:limit])


def _centre_in(box: Box, region: Box) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= x <= region[2] and region[1] <= y <= region[3]
