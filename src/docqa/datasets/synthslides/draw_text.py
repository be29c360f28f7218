"""Drawing of the text-based slides: title, agenda, bullets, two-column comparison and table."""

from __future__ import annotations

import textwrap

from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Rectangle

from docqa.datasets.synthslides.numbers import Metric
from docqa.datasets.synthslides.slides import (
    AgendaSlide,
    BulletsSlide,
    ComparisonSlide,
    TableSlide,
    TitleSlide,
)
from docqa.datasets.synthslides.style import (
    ACCENT,
    BODY_PT,
    FILLS,
    GRID,
    INK,
    LABEL_PT,
    MUTED_INK,
    PAGE_SIZE,
    content_axes,
)


def draw_title(slide: TitleSlide) -> Figure:
    """The cover page: it has no frame, so it builds its own figure."""
    fig = Figure(figsize=PAGE_SIZE, facecolor="#f3f6fa")
    fig.add_artist(
        Rectangle((0.0, 0.0), 0.035, 1.0, transform=fig.transFigure, color=ACCENT, linewidth=0)
    )
    fig.text(0.1, 0.62, slide.title, fontsize=34, weight="bold", color=INK)
    fig.text(0.1, 0.5, slide.subtitle, fontsize=20, color=ACCENT)
    fig.text(0.1, 0.3, f"Prepared by {slide.presenter}, {slide.role}", fontsize=BODY_PT, color=INK)
    fig.text(0.1, 0.22, slide.date, fontsize=14, color=MUTED_INK)
    return fig


def draw_agenda(fig: Figure, slide: AgendaSlide) -> None:
    """One numbered column of up to ten items; longer agendas continue in a second column."""
    ax = content_axes(fig)
    count = len(slide.items)
    size = BODY_PT if count <= 8 else 15 if count <= 10 else 13
    for number, item in enumerate(slide.items, start=1):
        column, row = divmod(number - 1, 10)
        ax.text(
            0.02 + 0.5 * column,
            0.97 - row * 0.097,
            f"{number}.  {item}",
            fontsize=size,
            color=INK,
            va="top",
        )


def draw_bullets(fig: Figure, slide: BulletsSlide) -> None:
    ax = content_axes(fig)
    for row, bullet in enumerate(slide.bullets):
        y = 0.9 - row * 0.2
        ax.text(0.03, y, "\u2022", fontsize=BODY_PT + 2, color=ACCENT, va="center")
        ax.text(0.07, y, bullet.text, fontsize=18, color=INK, va="center")


def draw_comparison(fig: Figure, slide: ComparisonSlide) -> None:
    ax = content_axes(fig)
    columns = (
        (0.0, slide.left_heading, slide.left_points, FILLS[0]),
        (0.52, slide.right_heading, slide.right_points, FILLS[1]),
    )
    for x, heading, points, fill in columns:
        ax.add_patch(
            FancyBboxPatch(
                (x + 0.01, 0.02),
                0.46,
                0.94,
                boxstyle="round,pad=0,rounding_size=0.03",
                facecolor=fill,
                edgecolor=GRID,
                linewidth=1,
            )
        )
        ax.text(x + 0.04, 0.86, heading, fontsize=19, weight="bold", color=INK, va="center")
        for row, point in enumerate(points):
            ax.text(
                x + 0.05, 0.66 - row * 0.17, f"\u2022  {point}", fontsize=15, color=INK, va="center"
            )


def column_header(metric: Metric) -> str:
    """A table header: the metric name wrapped to fit a column, then its unit on its own line."""
    name = textwrap.fill(metric.name, 14)
    if metric.unit in ("", "%"):
        return name
    return f"{name}\n({metric.unit})"


def draw_table(fig: Figure, slide: TableSlide) -> None:
    ax = content_axes(fig)
    widths = [0.3] + [0.7 / len(slide.columns)] * len(slide.columns)
    edges = [sum(widths[:i]) for i in range(len(widths) + 1)]
    header_height = 0.24
    row_height = min(0.14, (1.0 - header_height) / len(slide.rows))
    top = 1.0
    ax.add_patch(
        Rectangle((0, top - header_height), 1, header_height, facecolor=FILLS[0], edgecolor="none")
    )
    headers = [slide.dimension] + [column_header(metric) for metric in slide.columns]
    for index, header in enumerate(headers):
        x, align = (
            (edges[index] + 0.015, "left") if index == 0 else (edges[index + 1] - 0.02, "right")
        )
        ax.text(
            x,
            top - header_height / 2,
            header,
            fontsize=LABEL_PT,
            weight="bold",
            color=INK,
            va="center",
            ha=align,
        )
    for row, name in enumerate(slide.rows):
        y = top - header_height - (row + 0.5) * row_height
        ax.text(edges[0] + 0.015, y, name, fontsize=14, color=INK, va="center")
        for index, metric in enumerate(slide.columns):
            ax.text(
                edges[index + 2] - 0.02,
                y,
                metric.format(slide.cells[row][index]),
                fontsize=14,
                color=INK,
                va="center",
                ha="right",
            )
        line_y = top - header_height - (row + 1) * row_height
        ax.plot([0, 1], [line_y, line_y], color=GRID, linewidth=0.8)
