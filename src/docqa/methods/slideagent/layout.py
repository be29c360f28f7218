"""Layout grouping: a page's OCR lines and its non-text ink grouped into the elements the element
agent describes — titles, text blocks, tables, charts and figures — each with a box.

docqa's OCR (psm 11) gives words, lines and blocks but no layout: in sparse mode every table
cell and chart label is a block of its own. The grouping here is ours (SlideAgent's paper only
says element boundaries come from OCR/layout tools):

1. Graphic regions: the page image downscaled to ``GRID_WIDTH`` columns, pixels that differ from
   the page background, with the box of every line read as text blanked out (a line much
   taller than the page's confidently read lines, ``MAX_LINE_SCALE``, is OCR junk over a
   chart's bars: ink); ink closer than ``JOIN_REACH`` joins one region (the bars of a chart);
   regions whose box covers at least ``MIN_GRAPHIC_AREA`` of the page are kept and merged
   while their boxes overlap. Thin strokes (a side less than ``MIN_GRAPHIC_SIDE`` of the page:
   rules, stripes) are decoration, not elements.
2. Lines whose centre lies in a graphic region (grown by ``REGION_MARGIN``) belong to it: labels,
   values, cells. A region is a ``table`` when ``MIN_TABLE_ROWS`` of its lines have three cells,
   a ``chart`` when at least two of its words are numbers, else a ``figure``.
3. Tables without drawn lines: runs of at least ``MIN_TABLE_ROWS`` rows (lines side by side)
   with several cells each (word gaps over ``CELL_GAP`` heights, or several lines in the row).
4. The title: the tallest remaining line in the top ``TITLE_ZONE`` of the page, when it is at
   least ``TITLE_SCALE`` times the median line height (or the page's only line), with the lines
   right under it of about its height.
5. Other lines form text blocks: a line joins the block above when the vertical gap is under
   ``BLOCK_GAP`` line heights and the two overlap horizontally.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from statistics import median

import numpy as np
from PIL import Image
from scipy import ndimage

from docqa.core.element import Element
from docqa.core.records import Record

LAYOUT_KINDS = ("title", "text", "table", "chart", "figure")

GRID_WIDTH = 320
INK_THRESHOLD = 20  # grey levels away from the background
MIN_GRAPHIC_AREA = 0.015
MIN_GRAPHIC_SIDE = 0.05
#: ink closer than this (grid pixels across, down) joins one region: the bars of one chart
JOIN_REACH = (12, 4)
MIN_TABLE_ROWS = 3
TABLE_ROW_GAP = 3.0
REGION_MARGIN = 0.03
TITLE_ZONE = 0.4
TITLE_SCALE = 1.1
MAX_LINE_SCALE = 2.5
CONFIDENT = 70.0  # OCR confidence of a line read as text, not junk over a graphic
BLOCK_GAP = 1.2
CELL_GAP = 2.0
NUMBER = re.compile(r"^[-+$€£(]?\d[\d,.]*%?[)kKmMbB]?$")

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class LayoutElement(Record):
    """One layout element of a page: ``bbox`` in page pixels, ``order`` its reading order on the
    page, ``text`` its OCR text (lines joined by line breaks; empty for a figure without text)."""

    page: int
    order: int
    kind: str
    bbox: tuple[float, float, float, float]
    text: str


def layout_elements(page: int, image: str, elements: list[Element]) -> list[LayoutElement]:
    """The layout elements of one page from its image and its OCR elements (any kinds; the
    words and lines of ``page`` are used), in reading order: top to bottom, then left to right."""
    lines = sorted((e for e in elements if e.page == page and e.kind == "line"), key=_order)
    words = [e for e in elements if e.page == page and e.kind == "word"]
    cells = {id(line): _cells(line, words) for line in lines}
    groups: list[tuple[str, Box, list[Element]]] = []
    remaining = list(lines)
    with Image.open(image) as opened:
        width, height = opened.size
    margin = (REGION_MARGIN * width, REGION_MARGIN * height)
    typical = _typical_height(lines)
    # OCR also reads bars and icons as tall lines of junk ("i", "ii"): they are ink, not text
    text_boxes = [line.bbox for line in lines if _height(line) <= MAX_LINE_SCALE * typical]
    for region in graphic_regions(image, text_boxes):
        grown = (
            region[0] - margin[0],
            region[1] - margin[1],
            region[2] + margin[0],
            region[3] + margin[1],
        )
        inside = [line for line in remaining if _centre_in(line.bbox, grown)]
        remaining = [line for line in remaining if line not in inside]
        kind = _graphic_kind(inside, cells)
        groups.append((kind, _union([region, *(line.bbox for line in inside)]), inside))
    for table in _tables(remaining, cells):
        remaining = [line for line in remaining if line not in table]
        groups.append(("table", _union([line.bbox for line in table]), table))
    title = _title(remaining, height)
    if title:
        remaining = [line for line in remaining if line not in title]
        groups.append(("title", _union([line.bbox for line in title]), title))
    for block in _blocks(remaining):
        groups.append(("text", _union([line.bbox for line in block]), block))
    groups.sort(key=lambda group: (round(group[1][1] / 20), group[1][0]))
    return [
        LayoutElement(page, order, kind, _rounded(box), "\n".join(line.text for line in members))
        for order, (kind, box, members) in enumerate(groups)
    ]


def graphic_regions(image: str, text_boxes: list[Box]) -> list[Box]:
    """Boxes (page pixels) of the page's non-text ink: charts, pictures, drawn tables."""
    with Image.open(image) as opened:
        width, height = opened.size
        scale = GRID_WIDTH / width
        small = opened.convert("L").resize((GRID_WIDTH, max(1, round(height * scale))))
    grey = np.asarray(small, dtype=np.int16)
    background = int(np.bincount(grey.ravel()).argmax())
    ink = np.abs(grey - background) > INK_THRESHOLD
    for x0, y0, x1, y1 in text_boxes:
        ink[
            max(0, int(y0 * scale) - 1) : int(y1 * scale) + 2,
            max(0, int(x0 * scale) - 1) : int(x1 * scale) + 2,
        ] = False
    reach = np.ones((2 * JOIN_REACH[1] + 1, 2 * JOIN_REACH[0] + 1), dtype=bool)
    labels, _ = ndimage.label(ndimage.binary_dilation(ink, structure=reach))
    rows_total, columns_total = ink.shape
    boxes = []
    for found in ndimage.find_objects(labels):
        # the dilation grew each region by the reach: take it back
        rows = slice(found[0].start + JOIN_REACH[1], found[0].stop - JOIN_REACH[1])
        columns = slice(found[1].start + JOIN_REACH[0], found[1].stop - JOIN_REACH[0])
        tall, wide = rows.stop - rows.start, columns.stop - columns.start
        if (
            tall * wide >= MIN_GRAPHIC_AREA * rows_total * columns_total
            and tall >= MIN_GRAPHIC_SIDE * rows_total
            and wide >= MIN_GRAPHIC_SIDE * columns_total
        ):
            boxes.append(
                (
                    columns.start / scale,
                    rows.start / scale,
                    columns.stop / scale,
                    rows.stop / scale,
                )
            )
    return _merge_overlapping(boxes)


def _graphic_kind(lines: list[Element], cells: dict[int, int]) -> str:
    if sum(cells[id(line)] >= 3 for line in lines) >= MIN_TABLE_ROWS:
        return "table"
    numbers = sum(bool(NUMBER.match(word)) for line in lines for word in line.text.split())
    return "chart" if numbers >= 2 else "figure"


def _tables(lines: list[Element], cells: dict[int, int]) -> list[list[Element]]:
    """Runs of rows with several cells each, of at least ``MIN_TABLE_ROWS`` rows."""
    rows: list[list[Element]] = []
    for line in sorted(lines, key=lambda line: line.bbox[1]):
        centre = (line.bbox[1] + line.bbox[3]) / 2
        if rows and rows[-1][0].bbox[1] <= centre <= rows[-1][0].bbox[3]:
            rows[-1].append(line)
        else:
            rows.append([line])
    tables: list[list[Element]] = []
    run: list[list[Element]] = []
    for row in rows:
        several = len(row) >= 2 or cells[id(row[0])] >= 2
        close = bool(run) and row[0].bbox[1] - max(
            line.bbox[3] for line in run[-1]
        ) <= TABLE_ROW_GAP * _height(row[0])
        if several and (close or not run):
            run.append(row)
            continue
        if len(run) >= MIN_TABLE_ROWS:
            tables.append([line for kept in run for line in kept])
        run = [row] if several else []
    if len(run) >= MIN_TABLE_ROWS:
        tables.append([line for kept in run for line in kept])
    return tables


def _title(lines: list[Element], page_height: int) -> list[Element]:
    if not lines:
        return []
    typical = _typical_height(lines)
    zone = [
        line
        for line in lines
        if line.bbox[1] <= TITLE_ZONE * page_height and _height(line) <= MAX_LINE_SCALE * typical
    ]
    if not zone:
        return []
    tallest = max(zone, key=_height)
    if len(lines) > 1 and _height(tallest) < TITLE_SCALE * typical:
        return []
    title = [tallest]
    for line in sorted(lines, key=lambda line: line.bbox[1]):
        below = title[-1]
        gap = line.bbox[1] - below.bbox[3]
        similar = abs(_height(line) - _height(tallest)) <= 0.25 * _height(tallest)
        if line not in title and similar and 0 <= gap <= BLOCK_GAP * _height(below):
            title.append(line)
    return title


def _blocks(lines: list[Element]) -> list[list[Element]]:
    blocks: list[list[Element]] = []
    for line in sorted(lines, key=lambda line: (line.bbox[1], line.bbox[0])):
        for block in blocks:
            last = block[-1]
            gap = line.bbox[1] - last.bbox[3]
            if gap <= BLOCK_GAP * max(_height(line), _height(last)) and _overlaps_x(
                line.bbox, _union([member.bbox for member in block])
            ):
                block.append(line)
                break
        else:
            blocks.append([line])
    return blocks


def _cells(line: Element, words: list[Element]) -> int:
    """How many cells the line has: runs of its words split where a gap exceeds ``CELL_GAP``
    word heights."""
    inside = sorted((w for w in words if _centre_in(w.bbox, line.bbox)), key=lambda w: w.bbox[0])
    if not inside:
        return 1
    count = 1
    for previous, word in pairwise(inside):
        if word.bbox[0] - previous.bbox[2] > CELL_GAP * _height(previous):
            count += 1
    return count


def _merge_overlapping(boxes: list[Box]) -> list[Box]:
    merged = list(boxes)
    changed = True
    while changed:
        changed = False
        for i in range(len(merged)):
            for j in range(i + 1, len(merged)):
                if _intersects(merged[i], merged[j]):
                    merged[i] = _union([merged[i], merged[j]])
                    del merged[j]
                    changed = True
                    break
            if changed:
                break
    return merged


def _typical_height(lines: list[Element]) -> float:
    """The median height of the confidently read lines (of all lines if none is)."""
    confident = [line for line in lines if line.conf >= CONFIDENT] or lines
    return median(_height(line) for line in confident) if confident else 0.0


def _order(element: Element) -> int:
    return element.order


def _height(element: Element) -> float:
    return element.bbox[3] - element.bbox[1]


def _centre_in(box: Box, region: Box) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= x <= region[2] and region[1] <= y <= region[3]


def _intersects(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _overlaps_x(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2]


def _union(boxes: list[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _rounded(box: Box) -> tuple[float, float, float, float]:
    return (round(box[0], 1), round(box[1], 1), round(box[2], 1), round(box[3], 1))
