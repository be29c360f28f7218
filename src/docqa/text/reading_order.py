"""Reading order that keeps columns apart, for words from either source.

Three steps, all on word boxes in page pixels:

1. **Runs.** Words on one row (vertical overlap) that sit closer than ``RUN_GAP`` word heights
   form a run: a piece of one text line that cannot straddle a column gutter (a gutter is 1-3
   word heights wide, a space between words a third of one).
2. **Regions (columns).** A recursive XY cut over the runs: a band of whitespace across the
   region at least ``BAND_GAP`` heights tall splits it top/bottom; a strip of whitespace running
   down the whole region at least ``MIN_GUTTER`` heights wide splits it left/right when the
   text on both sides is prose (mostly runs at least ``PROSE_WIDTH`` heights wide: text columns),
   when one side is prose and the strip is ``LOOSE_GUTTER`` wide (a text column beside a chart), or
   when the strip is wider than ``MAX_LINE_GAP`` (nothing joins across it anyway). Table cells
   are short, so a table is not cut into its columns and still reads one row per line.
3. **Lines and blocks.** In each region, runs that overlap vertically form a row (anchored on its
   topmost run so rows do not chain down the page); a row splits where two runs are more than
   ``MAX_LINE_GAP`` heights apart. Lines read top to bottom in a region, regions in cut order
   (top band first, left column first); words turned another way than the page's text (a
   vertical stamp) are lines of their own at the end. A block is a stretch of lines of one
   region without a vertical gap over ``BLOCK_GAP`` line heights or a jump in text size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median

from docqa.text.words import Box, Word, box_of

RUN_GAP = 0.8
MIN_ROW_OVERLAP = 0.5
BAND_GAP = 1.5
MIN_GUTTER = 0.8
LOOSE_GUTTER = 3.0
PROSE_WIDTH = 8.0
MIN_PROSE_RUNS = 2
MAX_BRIDGE_SHARE = 0.15
# Two runs of a row join into one line when the gap between them is at most this many word
# heights. Measured on matplotlib slides at 200 dpi: the cells of a table row are 6-10 heights
# apart, the category labels under a 3-bar chart 12, a text column and a chart beside it 19-22.
MAX_LINE_GAP = 12.0
BLOCK_GAP = 0.8
BLOCK_SIZE_JUMP = 1.25


class Run(list):
    """Words of one run (or a single word), its box and height computed once."""

    def __init__(self, words: list[Word]) -> None:
        super().__init__(words)
        self.box = box_of(words)
        self.height = min(word.height for word in words)


@dataclass
class Line:
    """Words of one line in reading order; ``region`` is the column region it lies in and
    ``cells`` how many runs it joins (more than one: table cells or spaced-out labels)."""

    words: list[Word]
    region: int
    cells: int = 1
    box: Box = field(init=False)

    def __post_init__(self) -> None:
        self.box = box_of(self.words)

    @property
    def text(self) -> str:
        return " ".join(word.text for word in self.words)

    @property
    def height(self) -> float:
        return median(word.height for word in self.words)


def read_lines(words: list[Word]) -> list[Line]:
    """The page's lines in reading order; no line joins words of two column regions."""
    if not words:
        return []
    lines = []
    upright = [word for word in words if not word.turned]
    number = -1
    for number, region in enumerate(regions(runs(upright)) if upright else []):
        for row in _rows(region):
            row.sort(key=lambda run: run[0].box[0])
            current, cells = list(row[0]), 1
            for previous, run in zip(row, row[1:], strict=False):
                gap = run[0].box[0] - previous[-1].box[2]
                if gap > MAX_LINE_GAP * min(_height(previous), _height(run)):
                    lines.append(Line(current, number, cells))
                    current, cells = [], 0
                current.extend(run)
                cells += 1
            lines.append(Line(current, number, cells))
    # words that run another way than the page (a vertical stamp in the margin) are lines of
    # their own, after the page's text, top to bottom
    for word in sorted((w for w in words if w.turned), key=lambda w: (w.box[1], w.box[0])):
        number += 1
        lines.append(Line([word], number))
    return lines


def read_blocks(lines: list[Line]) -> list[list[Line]]:
    """Consecutive lines of one region without a paragraph gap or a change of text size."""
    blocks: list[list[Line]] = []
    for line in lines:
        if blocks:
            last = blocks[-1][-1]
            gap = line.box[1] - last.box[3]
            sizes = max(line.height, last.height) / min(line.height, last.height)
            if (
                line.region == last.region
                and -0.5 * last.height <= gap <= BLOCK_GAP * min(line.height, last.height)
                and sizes <= BLOCK_SIZE_JUMP
            ):
                blocks[-1].append(line)
                continue
        blocks.append([line])
    return blocks


def runs(words: list[Word]) -> list[Run]:
    """Words grouped into runs: one row, left to right, no gap over ``RUN_GAP`` heights."""
    result = []
    for row in _rows([Run([word]) for word in words]):
        ordered = sorted((unit[0] for unit in row), key=lambda word: word.box[0])
        run = [ordered[0]]
        for previous, word in zip(ordered, ordered[1:], strict=False):
            if word.box[0] - previous.box[2] > RUN_GAP * min(previous.height, word.height):
                result.append(Run(run))
                run = []
            run.append(word)
        result.append(Run(run))
    return result


def regions(page_runs: list[Run]) -> list[list[Run]]:
    """The runs split into column regions by a recursive XY cut, in reading order."""
    if len(page_runs) <= 1:
        return [page_runs] if page_runs else []
    height = median(_height(run) for run in page_runs)
    bands = _split(page_runs, axis=1, min_gap=BAND_GAP * height)
    if len(bands) > 1:
        return [region for band in bands for region in regions(band)]
    columns = _columns(page_runs, height)
    if len(columns) > 1:
        return [region for column in columns for region in regions(column)]
    bands = _bridged_bands(page_runs, height)
    if len(bands) > 1:
        return [region for band in bands for region in regions(band)]
    return [page_runs]


def _bridged_bands(page_runs: list[Run], height: float) -> list[list[Run]]:
    """Bands around the few runs that cross an otherwise clean gutter between two prose
    columns (a footer line, a wide equation, a full-width heading set close to the text).

    A strip at least ``MIN_GUTTER`` heights wide that at most ``MAX_BRIDGE_SHARE`` of the runs
    cover (lines that run into a narrow gutter, a table under two columns), with prose on both
    sides, is a gutter; when no run crosses it the columns part at its middle, else the region
    is cut into bands above, at and below each crossing run, and each band is then cut into
    its columns as usual.
    """
    left_edge = int(min(run.box[0] for run in page_runs))
    right_edge = int(max(run.box[2] for run in page_runs)) + 1
    counts = [0] * (right_edge - left_edge + 1)
    for run in page_runs:
        box = run.box
        counts[int(box[0]) - left_edge] += 1
        counts[int(box[2]) + 1 - left_edge] -= 1
    limit = max(1, int(MAX_BRIDGE_SHARE * len(page_runs)))
    covered, strip_start = 0, None
    for offset, change in enumerate(counts):
        covered += change
        x = left_edge + offset
        if covered <= limit and strip_start is None:
            strip_start = x
        elif covered > limit and strip_start is not None:
            if x - strip_start >= MIN_GUTTER * height and strip_start > left_edge:
                bands = _bands_at_bridges(page_runs, strip_start, x, height)
                if bands:
                    return bands
            strip_start = None
    return [page_runs]


def _bands_at_bridges(page_runs: list[Run], x0: float, x1: float, height: float) -> list[list[Run]]:
    left = [run for run in page_runs if run.box[2] <= x0]
    right = [run for run in page_runs if run.box[0] >= x1]
    if not (_prose(left, height) and _prose(right, height)):
        return []
    bridges = [run for run in page_runs if run.box[0] < x0 and run.box[2] > x1]
    if not bridges:  # a gutter narrowed by ragged line ends: the columns part at its middle
        middle = (x0 + x1) / 2
        return [
            [run for run in page_runs if (run.box[0] + run.box[2]) / 2 < middle],
            [run for run in page_runs if (run.box[0] + run.box[2]) / 2 >= middle],
        ]
    cuts: list[tuple[float, float]] = []  # the rows the bridges sit on, top to bottom
    for box in sorted(run.box for run in bridges):
        if cuts and box[1] < cuts[-1][1]:
            cuts[-1] = (cuts[-1][0], max(cuts[-1][1], box[3]))
        else:
            cuts.append((box[1], box[3]))
    bands: list[list[Run]] = [[] for _ in range(2 * len(cuts) + 1)]
    for run in page_runs:
        box = run.box
        centre = (box[1] + box[3]) / 2
        slot = 0
        for number, (top, bottom) in enumerate(cuts):
            if centre < top:
                break
            if centre <= bottom:
                slot = 2 * number + 1
                break
            slot = 2 * number + 2
        bands[slot].append(run)
    bands = [band for band in bands if band]
    return bands if len(bands) > 1 else []


def _columns(page_runs: list[Run], height: float) -> list[list[Run]]:
    pieces = _split(page_runs, axis=0, min_gap=MIN_GUTTER * height)
    if len(pieces) == 1:
        return pieces
    columns = [pieces[0]]
    for piece in pieces[1:]:
        left, right = columns[-1], piece
        gap = _extent(right, 0)[0] - _extent(left, 0)[1]
        prose = _prose(left, height) + _prose(right, height)
        if (
            prose == 2
            or (prose == 1 and gap >= LOOSE_GUTTER * height)
            or gap > MAX_LINE_GAP * height
        ):
            columns.append(piece)
        else:
            columns[-1] = left + right
    return columns


def _prose(side: list[Run], height: float) -> int:
    """1 when ``side`` looks like a text column: at least ``MIN_PROSE_RUNS`` runs
    ``PROSE_WIDTH`` heights wide that hold most of its text (by width). Table cells and chart
    labels are short runs."""
    widths = [run.box[2] - run.box[0] for run in side]
    long = [width for width in widths if width >= PROSE_WIDTH * height]
    return int(len(long) >= MIN_PROSE_RUNS and sum(long) >= 0.5 * sum(widths))


def _split(page_runs: list[Run], axis: int, min_gap: float) -> list[list[Run]]:
    """Runs split at every empty strip at least ``min_gap`` wide along ``axis`` (0: x, 1: y)."""
    ordered = sorted(page_runs, key=lambda run: run.box[axis])
    groups = [[ordered[0]]]
    reach = ordered[0].box[axis + 2]
    for run in ordered[1:]:
        box = run.box
        if box[axis] - reach >= min_gap:
            groups.append([])
        groups[-1].append(run)
        reach = max(reach, box[axis + 2])
    return groups


def _rows(units: list[Run]) -> list[list[Run]]:
    """Units (runs or single words) grouped into rows by vertical overlap with the row's first
    (topmost) unit, rows top to bottom."""
    rows: list[list[Run]] = []
    anchors: list[Box] = []
    active: list[int] = []
    for unit in sorted(units, key=lambda u: (u.box[1], u.box[0])):
        box = unit.box
        active = [r for r in active if anchors[r][3] > box[1]]
        best, best_overlap = -1, 0.0
        for r in active:
            overlap = _overlap(anchors[r], box)
            if overlap > best_overlap:
                best, best_overlap = r, overlap
        if best >= 0 and best_overlap >= MIN_ROW_OVERLAP:
            rows[best].append(unit)
        else:
            rows.append([unit])
            anchors.append(box)
            active.append(len(rows) - 1)
    return rows


def _extent(page_runs: list[Run], axis: int) -> tuple[float, float]:
    boxes = [run.box for run in page_runs]
    return min(b[axis] for b in boxes), max(b[axis + 2] for b in boxes)


def _height(run: Run) -> float:
    return run.height


def _overlap(a: Box, b: Box) -> float:
    """Vertical overlap of two boxes as a share of the shorter one's height."""
    shared = min(a[3], b[3]) - max(a[1], b[1])
    return shared / max(1.0, min(a[3] - a[1], b[3] - b[1]))
