"""Drawing of chart slides (bar, line, pie) and the four-panel dashboard.

Every chart shows its values as labels in the canonical format (``Metric.format``) and hides
the value axis, so the only numbers on a chart are the ones questions ask about.
"""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from docqa.datasets.synthslides.numbers import Metric
from docqa.datasets.synthslides.slides import (
    BarChartSlide,
    DashboardSlide,
    LineChartSlide,
    Panel,
    PieChartSlide,
)
from docqa.datasets.synthslides.style import (
    ACCENT,
    BAR,
    CONTENT,
    FILLS,
    GRID,
    INK,
    LABEL_PT,
    MIN_PT,
    MUTED_INK,
    content_axes,
)


def _plain(ax: Axes, axis_label: str, size: int) -> None:
    """Only a baseline, the category ticks and (if not empty) a label on the value axis."""
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_color(GRID)
    ax.set_yticks([])
    ax.tick_params(axis="x", labelsize=size, colors=INK, length=0, pad=6)
    if axis_label:
        ax.set_ylabel(axis_label, fontsize=size, color=MUTED_INK)


def _bars(
    ax: Axes,
    metric: Metric,
    categories: tuple[str, ...],
    values: tuple[int, ...],
    size: int,
    axis_label: str,
) -> None:
    bars = ax.bar(categories, values, color=BAR, width=0.6)
    ax.bar_label(
        bars, labels=[metric.format(v) for v in values], fontsize=size, color=INK, padding=3
    )
    ax.set_ylim(0, max(values) * 1.18)
    _plain(ax, axis_label, size)


def _line(
    ax: Axes,
    metric: Metric,
    labels: tuple[str, ...],
    values: tuple[int, ...],
    size: int,
    axis_label: str,
) -> None:
    xs = range(len(values))
    ax.plot(xs, values, color=ACCENT, linewidth=2.5, marker="o", markersize=7)
    for x, value in zip(xs, values, strict=True):
        offset, align = _label_offset(values, x)
        ax.annotate(
            metric.format(value),
            (x, value),
            xytext=offset,
            textcoords="offset points",
            ha=align,
            va="center",
            fontsize=size,
            color=INK,
            zorder=3,
            bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"},
        )
    low, high = min(values), max(values)
    pad = (high - low) or high
    ax.set_ylim(low - 0.7 * pad, high + 0.45 * pad)  # room for labels below dips
    ax.set_xlim(-0.4, len(values) - 0.6)
    ax.set_xticks(list(xs), labels)
    _plain(ax, axis_label, size)


def _label_offset(values: tuple[int, ...], index: int) -> tuple[tuple[int, int], str]:
    """Where a point's label goes so the line does not cross it (crossings break OCR).

    Above a peak, below a dip; beside a point the line passes through, on the side the line
    leaves free: upper left where it rises, upper right where it falls.
    """
    value = values[index]
    before = values[index - 1] if index > 0 else value
    after = values[index + 1] if index + 1 < len(values) else value
    if value >= before and value >= after:
        return (0, 14), "center"
    if value <= before and value <= after:
        return (0, -15), "center"
    if before < value < after:
        return (-8, 10), "right"
    return (8, 10), "left"


def draw_bar_chart(fig: Figure, slide: BarChartSlide) -> None:
    _bars(
        fig.add_axes(CONTENT),
        slide.metric,
        slide.categories,
        slide.values,
        LABEL_PT,
        slide.metric.label,
    )


def draw_line_chart(fig: Figure, slide: LineChartSlide) -> None:
    labels = tuple(str(year) for year in slide.years)
    _line(fig.add_axes(CONTENT), slide.metric, labels, slide.values, LABEL_PT, slide.metric.label)


def draw_pie_chart(fig: Figure, slide: PieChartSlide) -> None:
    """Each wedge is labelled outside with its name and share on two lines."""
    ax = fig.add_axes((0.2, 0.1, 0.6, 0.68))
    labels = [
        f"{name}\n{slide.metric.format(v)}"
        for name, v in zip(slide.categories, slide.values, strict=True)
    ]
    ax.pie(
        slide.values,
        labels=labels,
        colors=FILLS[: len(slide.values)],
        startangle=90,
        counterclock=False,
        labeldistance=1.15,
        wedgeprops={"edgecolor": "white", "linewidth": 2},
        textprops={"fontsize": LABEL_PT, "color": INK},
    )
    ax.set_aspect("equal")


def _pie_with_legend(ax: Axes, legend_ax: Axes, panel: Panel) -> None:
    ax.pie(
        panel.values,
        colors=FILLS[: len(panel.values)],
        startangle=90,
        counterclock=False,
        wedgeprops={"edgecolor": "white", "linewidth": 2},
    )
    ax.set_aspect("equal")
    for row, (name, value) in enumerate(zip(panel.categories, panel.values, strict=True)):
        y = 0.75 - row * 0.28
        legend_ax.add_patch(
            Rectangle((0.0, y - 0.06), 0.08, 0.12, facecolor=FILLS[row], edgecolor=GRID)
        )
        legend_ax.text(
            0.12, y, f"{name} {panel.metric.format(value)}", fontsize=MIN_PT, color=INK, va="center"
        )


# Panel origins (left, bottom) in figure fractions, in ``POSITIONS`` order.
_PANEL_ORIGINS = ((0.05, 0.455), (0.51, 0.455), (0.05, 0.09), (0.51, 0.09))
_PANEL_SIZE = (0.44, 0.345)


def draw_dashboard(fig: Figure, slide: DashboardSlide) -> None:
    width, height = _PANEL_SIZE
    for (left, bottom), panel in zip(_PANEL_ORIGINS, slide.panels, strict=True):
        frame = content_axes(fig, (left, bottom, width, height))
        frame.add_patch(Rectangle((0, 0), 1, 1, facecolor="#f7f9fb", edgecolor=GRID))
        frame.text(
            0.03, 0.87, panel.title, fontsize=LABEL_PT, weight="bold", color=INK, va="center"
        )
        inner = (left + 0.1 * width, bottom + 0.17 * height, 0.85 * width, 0.55 * height)
        if panel.kind == "bar chart":
            _bars(fig.add_axes(inner), panel.metric, panel.categories, panel.values, MIN_PT, "")
        elif panel.kind == "line chart":
            _line(fig.add_axes(inner), panel.metric, panel.categories, panel.values, MIN_PT, "")
        elif panel.kind == "pie chart":
            pie_rect = (left + 0.05 * width, bottom + 0.05 * height, 0.4 * width, 0.7 * height)
            legend_rect = (left + 0.48 * width, bottom + 0.05 * height, 0.5 * width, 0.7 * height)
            _pie_with_legend(fig.add_axes(pie_rect), content_axes(fig, legend_rect), panel)
        else:
            frame.text(
                0.5,
                0.45,
                panel.metric.format(panel.values[0]),
                fontsize=30,
                weight="bold",
                color=ACCENT,
                ha="center",
                va="center",
            )
            if panel.metric.unit:
                frame.text(
                    0.5,
                    0.17,
                    panel.metric.unit,
                    fontsize=MIN_PT,
                    color=MUTED_INK,
                    ha="center",
                    va="center",
                )
