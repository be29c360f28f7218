"""Layout kinds of a page's blocks, from what either source gives: positions, text sizes, bold
fonts (text layer), bullets, caption and page-number patterns, and the PDF's image objects.

Rules, in order, for a block of lines in reading order:

- ``page_number``: one short line that is a number ("12", "Page 3", "3 of 10", "- 4 -") in the
  top or bottom ``MARGIN`` of the page;
- ``header`` / ``footer``: a block of at most two lines wholly inside the top / bottom margin;
- ``caption``: starts with "Figure 3", "Fig. 2", "Table 1", "Chart 4" ...;
- ``title``: at most three lines whose text is ``TITLE_SIZE`` times the page's body text size
  (the median line height), or bold and alone above text;
- ``table``: most lines join several runs spaced apart (cells of one row);
- ``list``: most lines start with a bullet or an enumerator;
- ``text`` otherwise. ``figure`` elements come from the PDF's images (boxes, no text).
"""

from __future__ import annotations

import re
from statistics import median

from docqa.text.reading_order import Line

MARGIN = 0.07
TITLE_SIZE = 1.3
PAGE_NUMBER = re.compile(r"^(page\s*)?[-–—]?\s*\d{1,4}\s*[-–—]?(\s*(of|/)\s*\d{1,4})?$", re.I)
CAPTION = re.compile(r"^(figure|fig\.|table|tab\.|chart|exhibit)\s*[0-9ivx]+", re.I)
BULLET = re.compile(r"^([•●▪■◦○·\-–—*>]|\(?\d{1,2}[.)]|\(?[a-z][.)])(\s|$)", re.I)


def block_kind(block: list[Line], page_height: float, body_height: float) -> str:
    """The layout kind of one block (see the module docstring)."""
    top, bottom = block[0].box[1], block[-1].box[3]
    text = " ".join(line.text for line in block).strip()
    in_top = bottom <= MARGIN * page_height
    in_bottom = top >= (1 - MARGIN) * page_height
    if len(block) == 1 and (in_top or in_bottom) and PAGE_NUMBER.match(text):
        return "page_number"
    if len(block) <= 2 and in_top:
        return "header"
    if len(block) <= 2 and in_bottom:
        return "footer"
    if CAPTION.match(text):
        return "caption"
    height = median(line.height for line in block)
    bold = all(word.bold for line in block for word in line.words)
    if len(block) <= 3 and (height >= TITLE_SIZE * body_height or (bold and len(text) < 120)):
        return "title"
    if len(block) >= 2 and sum(line.cells >= 2 for line in block) * 2 > len(block):
        return "table"
    if sum(bool(BULLET.match(line.text)) for line in block) * 2 > len(block):
        return "list"
    return "text"


def body_height(lines: list[Line]) -> float:
    """The text size of the page's body: the median line height, each line weighted by its
    number of words."""
    heights = [line.height for line in lines for _ in line.words]
    return median(heights) if heights else 1.0
