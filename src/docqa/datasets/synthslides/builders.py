"""Random content for each slide kind, and decoy twins of chart and table slides.

Values within one chart or table column are distinct, so "highest" and "which" questions have
a single answer. Decoy twins keep the title but for one word (the year or the product) and move
every value by 3-15 %, so they look alike but answer differently.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass

from docqa.datasets.synthslides import vocabulary as vocab
from docqa.datasets.synthslides.bullets import bullet_points
from docqa.datasets.synthslides.numbers import SHARE, Metric
from docqa.datasets.synthslides.slides import (
    BarChartSlide,
    BulletsSlide,
    ComparisonSlide,
    DashboardSlide,
    FigureSlide,
    LineChartSlide,
    Panel,
    PieChartSlide,
    Slide,
    TableSlide,
    TimelineSlide,
)


@dataclass(frozen=True)
class DeckContext:
    """What the slides of one deck share: the year, and the categories charts and tables use."""

    company: str
    year: int
    main_dimension: str
    main_members: tuple[str, ...]
    side_dimension: str
    side_members: tuple[str, ...]


def distinct_values(rng: random.Random, metric: Metric, count: int) -> tuple[int, ...]:
    span = range(metric.low * metric.scale, metric.high * metric.scale + 1)
    return tuple(rng.sample(span, count))


def shares(rng: random.Random, count: int) -> tuple[int, ...]:
    """Distinct shares in tenths of a percent, each at least 10 %, summing to 100 %."""
    spare = 1000 - 100 * count
    while True:
        cuts = sorted(rng.sample(range(1, spare), count - 1))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, spare], strict=True)]
        values = tuple(100 + part for part in parts)
        if len(set(values)) == count:
            return values


def _members(rng: random.Random, pool: tuple[str, ...], low: int, high: int) -> tuple[str, ...]:
    """A random subset of ``pool`` kept in pool order, so related slides list items alike."""
    chosen = set(rng.sample(pool, min(len(pool), rng.randint(low, high))))
    return tuple(member for member in pool if member in chosen)


def bar_chart(rng: random.Random, ctx: DeckContext) -> BarChartSlide:
    metric = rng.choice(vocab.METRICS)
    categories = _members(rng, ctx.main_members, 4, 6)
    return BarChartSlide(
        f"{metric.name} by {ctx.main_dimension} {ctx.year}",
        metric,
        ctx.main_dimension,
        categories,
        distinct_values(rng, metric, len(categories)),
    )


def line_chart(rng: random.Random, ctx: DeckContext) -> LineChartSlide:
    metric = rng.choice([m for m in vocab.METRICS if m.style != "pct"])
    product = rng.choice(vocab.DIMENSIONS["Product"])
    count = rng.randint(4, 6)
    years = tuple(range(ctx.year - count + 1, ctx.year + 1))
    return LineChartSlide(
        f"{product} {metric.name} {years[0]}-{years[-1]}",
        metric,
        years,
        _walk(rng, metric.random_value(rng), count),
    )


def _walk(rng: random.Random, start: int, count: int) -> tuple[int, ...]:
    """A plausible yearly series: distinct values, each within -12 % .. +20 % of the last."""
    while True:
        values = [start]
        for _ in range(count - 1):
            values.append(max(1, round(values[-1] * (1 + rng.uniform(-0.12, 0.2)))))
        if len(set(values)) == count:
            return tuple(values)


def pie_chart(rng: random.Random, ctx: DeckContext) -> PieChartSlide:
    categories = _members(rng, ctx.side_members, 3, 5)
    return PieChartSlide(
        f"{rng.choice(vocab.PIE_TITLES)} by {ctx.side_dimension} {ctx.year}",
        SHARE,
        ctx.side_dimension,
        categories,
        shares(rng, len(categories)),
    )


def table(rng: random.Random, ctx: DeckContext) -> TableSlide:
    columns = tuple(rng.sample(vocab.METRICS, rng.randint(2, 3)))
    rows = _members(rng, ctx.main_members, 4, 6)
    by_column = [distinct_values(rng, metric, len(rows)) for metric in columns]
    title = f"{ctx.main_dimension} {rng.choice(vocab.TABLE_TITLES)} {ctx.year}"
    return TableSlide(title, ctx.main_dimension, rows, columns, tuple(zip(*by_column, strict=True)))


def bullets(rng: random.Random, ctx: DeckContext) -> BulletsSlide:
    title = rng.choice(vocab.BULLET_TITLES)
    if rng.random() < 0.5:
        title = f"{title} {ctx.year}"
    return BulletsSlide(title, bullet_points(rng, ctx.year, rng.randint(3, 5)))


def figure(rng: random.Random, ctx: DeckContext) -> FigureSlide:
    """A diagram; its number is set once the slide order is known."""
    style, title, caption, steps = rng.choice(vocab.FIGURES)
    shown = steps[: rng.randint(4, 5)] if style == "flow" else steps
    return FigureSlide(title, 0, caption, style, tuple(shown))


def comparison(rng: random.Random, ctx: DeckContext) -> ComparisonSlide:
    left, right, left_points, right_points = rng.choice(vocab.COMPARISONS)
    count = rng.randint(3, 4)
    return ComparisonSlide(
        f"{left} vs {right}",
        left,
        tuple(rng.sample(left_points, count)),
        right,
        tuple(rng.sample(right_points, count)),
    )


def timeline(rng: random.Random, ctx: DeckContext) -> TimelineSlide:
    count = rng.randint(4, 6)
    dates = [f"{vocab.QUARTERS[i % 4]} {ctx.year + 1 + i // 4}" for i in range(count)]
    labels = rng.sample(vocab.MILESTONES, count)
    return TimelineSlide(
        f"{rng.choice(vocab.TIMELINE_TITLES)} {ctx.year + 1}",
        tuple(zip(dates, labels, strict=True)),
    )


def dashboard(rng: random.Random, ctx: DeckContext) -> DashboardSlide:
    kinds = rng.sample(("bar chart", "line chart", "pie chart", "KPI"), 4)
    metrics = rng.sample([m for m in vocab.METRICS if m.style != "pct"], 4)
    panels = tuple(
        _panel(rng, ctx, kind, metric) for kind, metric in zip(kinds, metrics, strict=True)
    )
    title = f"{rng.choice(vocab.DASHBOARD_TITLES)} {rng.choice(vocab.QUARTERS)} {ctx.year}"
    return DashboardSlide(title, panels)


def _panel(rng: random.Random, ctx: DeckContext, kind: str, metric: Metric) -> Panel:
    if kind == "bar chart":
        members = tuple(rng.sample(ctx.main_members, 3))
        return Panel(
            kind,
            f"{metric.name} by {ctx.main_dimension}",
            metric,
            members,
            distinct_values(rng, metric, 3),
        )
    if kind == "line chart":
        years = tuple(str(year) for year in range(ctx.year - 3, ctx.year + 1))
        return Panel(
            kind, f"{metric.name} Trend", metric, years, _walk(rng, metric.random_value(rng), 4)
        )
    if kind == "pie chart":
        members = tuple(rng.sample(ctx.side_members, 3))
        return Panel(kind, f"{ctx.side_dimension} Mix", SHARE, members, shares(rng, 3))
    return Panel(kind, metric.name, metric, (), (metric.random_value(rng),))


BUILDERS: dict[str, Callable[[random.Random, DeckContext], Slide]] = {
    "bullets": bullets,
    "bar": bar_chart,
    "line": line_chart,
    "pie": pie_chart,
    "table": table,
    "figure": figure,
    "comparison": comparison,
    "timeline": timeline,
    "dashboard": dashboard,
}


def twin(rng: random.Random, slide: Slide, ctx: DeckContext) -> Slide | None:
    """A decoy of a chart or table slide, or None for kinds that have no twin."""
    previous = f" {ctx.year - 1}"
    if isinstance(slide, BarChartSlide):
        return dataclasses.replace(
            slide,
            title=_retitle(slide.title, previous),
            values=_nudged(rng, slide.values),
        )
    if isinstance(slide, PieChartSlide):
        return dataclasses.replace(
            slide,
            title=_retitle(slide.title, previous),
            values=_nudged_shares(rng, slide.values),
        )
    if isinstance(slide, TableSlide):
        columns = [_nudged(rng, column) for column in zip(*slide.cells, strict=True)]
        return dataclasses.replace(
            slide,
            title=_retitle(slide.title, previous),
            cells=tuple(zip(*columns, strict=True)),
        )
    if isinstance(slide, LineChartSlide):
        product = slide.title.split(" ", 1)[0]
        other = rng.choice([p for p in vocab.DIMENSIONS["Product"] if p != product])
        return dataclasses.replace(
            slide,
            title=other + slide.title[len(product) :],
            values=_nudged(rng, slide.values),
        )
    return None


def _retitle(title: str, year_suffix: str) -> str:
    """Replace the trailing " <year>" of ``title``."""
    return title.rsplit(" ", 1)[0] + year_suffix


def _nudged(rng: random.Random, values: tuple[int, ...]) -> tuple[int, ...]:
    """Each value moved up or down by 3-15 %; distinct, and never equal to the original."""
    while True:
        moved = tuple(
            max(1, round(v * (1 + rng.choice((-1, 1)) * rng.uniform(0.03, 0.15)))) for v in values
        )
        if len(set(moved)) == len(moved) and all(
            a != b for a, b in zip(moved, values, strict=True)
        ):
            return moved


def _nudged_shares(rng: random.Random, values: tuple[int, ...]) -> tuple[int, ...]:
    """Shares moved by a few points, still distinct, each at least 10 %, summing to 100 %."""
    while True:
        moved = list(_nudged(rng, values))
        moved[-1] = 1000 - sum(moved[:-1])
        if min(moved) >= 100 and len(set(moved)) == len(moved) and tuple(moved) != values:
            return tuple(moved)
