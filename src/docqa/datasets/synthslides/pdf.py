"""Write a ``Deck`` to a reproducible PDF, one page per slide."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import matplotlib
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from docqa.datasets.synthslides.draw_charts import (
    draw_bar_chart,
    draw_dashboard,
    draw_line_chart,
    draw_pie_chart,
)
from docqa.datasets.synthslides.draw_diagrams import draw_figure, draw_timeline
from docqa.datasets.synthslides.draw_text import (
    draw_agenda,
    draw_bullets,
    draw_comparison,
    draw_table,
    draw_title,
)
from docqa.datasets.synthslides.slides import (
    AgendaSlide,
    BarChartSlide,
    BulletsSlide,
    ComparisonSlide,
    DashboardSlide,
    Deck,
    FigureSlide,
    LineChartSlide,
    PieChartSlide,
    Slide,
    TableSlide,
    TimelineSlide,
    TitleSlide,
)
from docqa.datasets.synthslides.style import RC, framed_page

_DRAW: dict[type, Callable[[Figure, Any], None]] = {
    AgendaSlide: draw_agenda,
    BulletsSlide: draw_bullets,
    BarChartSlide: draw_bar_chart,
    LineChartSlide: draw_line_chart,
    PieChartSlide: draw_pie_chart,
    TableSlide: draw_table,
    FigureSlide: draw_figure,
    ComparisonSlide: draw_comparison,
    TimelineSlide: draw_timeline,
    DashboardSlide: draw_dashboard,
}

# No creation date and a fixed producer: the same deck gives the same bytes on every run.
METADATA = {"CreationDate": None, "Producer": "docqa synthslides", "Creator": "docqa"}


def slide_figure(deck: Deck, page: int) -> Figure:
    """The matplotlib figure of one slide (``page`` is 0-based)."""
    slide: Slide = deck.slides[page]
    if isinstance(slide, TitleSlide):
        return draw_title(slide)
    fig = framed_page(slide.title, deck.company, page + 1)
    _DRAW[type(slide)](fig, slide)
    return fig


def write_deck_pdf(deck: Deck, target: Path | BinaryIO) -> None:
    """Write every slide of ``deck`` to a file path or a binary stream."""
    with matplotlib.rc_context(RC), PdfPages(target, metadata=METADATA) as pdf:  # type: ignore[arg-type]
        for page in range(len(deck.slides)):
            pdf.savefig(slide_figure(deck, page))
