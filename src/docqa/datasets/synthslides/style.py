"""The look shared by every slide: page size, fonts, colours and the title/footer frame.

Sizes are chosen for OCR: at the pipeline's 200 dpi, 12 pt text is 33 px tall, which
tesseract reads reliably; nothing on a slide is smaller. Text is dark on a light background.
"""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

PAGE_SIZE = (10.0, 5.625)  # inches, 16:9
FONT = "DejaVu Sans"
# Type 3 fonts keep the PDF text extractable (pdfium maps their glyph names back to Unicode) and
# write four times faster than Type 42, whose font subsetting dominates generation time.
RC: dict[str, Any] = {"font.family": FONT, "pdf.fonttype": 3}

TITLE_PT = 22
BODY_PT = 16
LABEL_PT = 13
MIN_PT = 12

INK = "#1b2433"  # near-black text
MUTED_INK = "#3d4756"
ACCENT = "#2f6690"
GRID = "#b8c2cc"
FILLS = ("#cfe0f1", "#fde2c4", "#d5ecd4", "#ecd8ee", "#f7f0c6", "#d9e4e8")  # light fills
BAR = "#5b8ec2"

# Where slide content goes, in figure fractions: left, bottom, width, height.
CONTENT = (0.07, 0.16, 0.87, 0.62)


def framed_page(title: str, footer: str, page_number: int) -> Figure:
    """A blank slide with its title, an accent rule, and a footer with the page number."""
    fig = Figure(figsize=PAGE_SIZE, facecolor="white")
    fig.text(0.05, 0.895, title, fontsize=TITLE_PT, weight="bold", color=INK, va="center")
    fig.add_artist(
        Rectangle((0.05, 0.825), 0.9, 0.006, transform=fig.transFigure, color=ACCENT, linewidth=0)
    )
    fig.text(0.05, 0.045, footer, fontsize=MIN_PT, color=MUTED_INK, va="center")
    fig.text(
        0.95, 0.045, str(page_number), fontsize=MIN_PT, color=MUTED_INK, va="center", ha="right"
    )
    return fig


def content_axes(fig: Figure, rect: tuple[float, float, float, float] = CONTENT) -> Axes:
    """Axes over ``rect`` with no frame or ticks, in data units 0..1 both ways."""
    ax = fig.add_axes(rect)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_axis_off()
    return ax
