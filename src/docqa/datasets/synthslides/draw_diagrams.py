"""Drawing of diagram slides: a captioned figure of boxes and arrows, and a timeline."""

from __future__ import annotations

import textwrap

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from docqa.datasets.synthslides.slides import FigureSlide, TimelineSlide
from docqa.datasets.synthslides.style import (
    ACCENT,
    CONTENT,
    FILLS,
    GRID,
    INK,
    LABEL_PT,
    MUTED_INK,
    PAGE_SIZE,
    content_axes,
)

_CHAR_INCHES = 0.11  # generous width of one 13 pt DejaVu Sans character


def _box(ax: Axes, x: float, y: float, width: float, height: float, label: str, fill: str) -> None:
    # No outline: tesseract reads a box's label as picture when a dark border surrounds it.
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle="round,pad=0,rounding_size=0.02",
            facecolor=fill,
            edgecolor="none",
        )
    )
    ax.text(x, y, label, fontsize=15, color=INK, ha="center", va="center")


def _arrow(ax: Axes, start: tuple[float, float], end: tuple[float, float]) -> None:
    ax.add_patch(
        FancyArrowPatch(
            start, end, arrowstyle="-|>", mutation_scale=18, color=MUTED_INK, linewidth=1.5
        )
    )


def draw_figure(fig: Figure, slide: FigureSlide) -> None:
    """A flow runs left to right; a stack of layers runs top to bottom; caption underneath."""
    ax = content_axes(fig)
    count = len(slide.steps)
    if slide.style == "flow":
        slot = 1.0 / count
        width = slot * 0.72
        for index, step in enumerate(slide.steps):
            x = slot * (index + 0.5)
            _box(ax, x, 0.58, width, 0.3, step, FILLS[index % len(FILLS)])
            if index:
                _arrow(ax, (x - slot + width / 2, 0.58), (x - width / 2, 0.58))
    else:
        height = 0.7 / count
        for index, step in enumerate(slide.steps):
            y = 0.92 - height * (index + 0.5)
            _box(ax, 0.5, y, 0.46, height * 0.7, step, FILLS[index % len(FILLS)])
            if index:
                _arrow(ax, (0.5, y + height * 0.65), (0.5, y + height * 0.35))
    ax.text(
        0.5,
        0.04,
        slide.caption_text,
        fontsize=14,
        style="italic",
        color=INK,
        ha="center",
        va="center",
    )


def draw_timeline(fig: Figure, slide: TimelineSlide) -> None:
    """Milestones left to right along one line: date above each marker, label below.

    Labels of neighbouring milestones sit at alternating depths when there are more than four,
    so each may be two slots wide: a label wrapped onto two lines reads as two words to OCR.
    """
    ax = content_axes(fig)
    count = len(slide.milestones)
    slot = 1.0 / count
    staggered = count > 4
    width = int((2 if staggered else 1) * slot * CONTENT[2] * PAGE_SIZE[0] / _CHAR_INCHES)
    ax.plot([0.02, 0.98], [0.6, 0.6], color=GRID, linewidth=3, zorder=1)
    for index, (date, label) in enumerate(slide.milestones):
        x = slot * (index + 0.5)
        ax.scatter([x], [0.6], s=160, color=ACCENT, zorder=2)
        ax.text(x, 0.75, date, fontsize=15, color=INK, ha="center", va="center")
        y = 0.45 if not (staggered and index % 2) else 0.25
        ax.plot([x, x], [0.6, y + 0.04], color=GRID, linewidth=1, zorder=1)
        ax.text(
            x,
            y,
            textwrap.fill(label, width),
            fontsize=LABEL_PT,
            color=INK,
            ha="center",
            va="top",
            linespacing=1.3,
        )
