"""Words of one page, from either source, to the common elements: words, lines and blocks in
reading order, each with its layout kind and source."""

from __future__ import annotations

from statistics import fmean

from docqa.core.element import Element
from docqa.text.kinds import block_kind, body_height
from docqa.text.reading_order import read_blocks, read_lines
from docqa.text.words import Box, Frame, Word, box_of


def page_elements(
    doc_id: str,
    page: int,
    words: list[Word],
    source: str,
    page_height: float = 0.0,
    images: list[Box] | tuple[Box, ...] = (),
    frame: Frame | None = None,
) -> list[Element]:
    """Word, line and block elements of one page; ``order`` is the reading order per kind.

    ``page_height`` (pixels) places headers, footers and page numbers; without it (0) the
    lowest text on the page stands in. ``images`` become ``figure`` blocks without text, placed
    in the block order by their top edge. With a ``frame`` (a page whose text runs down or up
    the image), word boxes are in that frame and reading order is worked out there; elements
    are boxed in image pixels.
    """
    if frame is not None and frame.rotation:
        page_height = frame.size[1]
    lines = read_lines(words)
    blocks = read_blocks(lines)
    height = page_height or max((line.box[3] for line in lines), default=1.0)
    body = body_height(lines)
    layout_of_line: dict[int, str] = {}
    kinds = []
    for block in blocks:
        kind = block_kind(block, height, body)
        kinds.append(kind)
        for line in block:
            layout_of_line[id(line)] = kind

    def element(kind: str, order: int, text: str, group: list[Word], layout: str) -> Element:
        conf = round(fmean(word.conf for word in group), 2)
        box = box_of(group)
        if frame is not None and frame.rotation:
            box = frame.to_device(box)
        x0, y0, x1, y1 = (round(v, 1) for v in box)
        return Element(doc_id, page, kind, text, (x0, y0, x1, y1), order, conf, layout, source)

    reading = [(word, layout_of_line[id(line)]) for line in lines for word in line.words]
    elements = [element("word", n, w.text, [w], kind) for n, (w, kind) in enumerate(reading)]
    elements += [
        element("line", n, line.text, line.words, layout_of_line[id(line)])
        for n, line in enumerate(lines)
    ]
    block_rows: list[tuple[float, Element | None, list[Word], str, str]] = [
        (block[0].box[1], None, [w for line in block for w in line.words], kind, _text(block))
        for block, kind in zip(blocks, kinds, strict=False)
    ]
    for image in images:
        figure = Element(doc_id, page, "block", "", image, 0, 100.0, "figure", source)
        block_rows.append((image[1], figure, [], "figure", ""))
    if images:  # figures slot in by their top edge; text blocks keep their reading order
        block_rows = _insert_figures(block_rows)
    for n, (_, placed, group, kind, text) in enumerate(block_rows):
        if placed is not None:
            elements.append(
                Element(doc_id, page, "block", "", placed.bbox, n, 100.0, "figure", source)
            )
        else:
            elements.append(element("block", n, text, group, kind))
    return elements


def _text(block: list) -> str:
    return "\n".join(line.text for line in block)


def _insert_figures(rows: list) -> list:
    text_rows = [row for row in rows if row[1] is None]
    figures = sorted((row for row in rows if row[1] is not None), key=lambda row: row[0])
    merged = []
    for row in text_rows:
        while figures and figures[0][0] <= row[0]:
            merged.append(figures.pop(0))
        merged.append(row)
    return merged + figures
