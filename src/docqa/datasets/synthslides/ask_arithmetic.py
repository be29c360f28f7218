"""Arithmetic questions over drawn values: sum, difference, ratio and percentage change.

Sums and differences keep the metric's format; ratios have two decimals and percentage changes
one decimal with a "%" sign. Percentages are only summed (pie shares), since adding or dividing
margins and rates is not meaningful.
"""

from __future__ import annotations

import random

from docqa.datasets.synthslides.candidate import Candidate, slides_of
from docqa.datasets.synthslides.numbers import Metric, percentage_change, ratio
from docqa.datasets.synthslides.slides import (
    BarChartSlide,
    Deck,
    LineChartSlide,
    PieChartSlide,
    TableSlide,
)


def _pairwise(
    metric: Metric,
    title: str,
    kind: str,
    named: list[tuple[str, int]],
    page: int,
    source: str,
    rng: random.Random,
) -> list[Candidate]:
    """Sum, difference and ratio of two named values of one chart or table column."""
    (name_a, a), (name_b, b) = sorted(rng.sample(named, 2), key=lambda item: -item[1])
    what, where = metric.name.lower(), (page,)
    found = [
        Candidate(
            f'In the {kind} "{title}", what is the combined {what} of {name_a} and {name_b}?',
            metric.format(a + b),
            metric.answer_format,
            where,
            (source,),
            "sum",
        )
    ]
    if metric.style != "pct":
        found.append(
            Candidate(
                f'In the {kind} "{title}", how much higher is the {what} of {name_a} than that of '
                f"{name_b}?",
                metric.format(a - b),
                metric.answer_format,
                where,
                (source,),
                "difference",
            )
        )
        found.append(
            Candidate(
                f'In the {kind} "{title}", what is the ratio of the {what} of {name_a} to that of '
                f"{name_b}? Round to two decimals.",
                ratio(a, b),
                "Float",
                where,
                (source,),
                "ratio",
            )
        )
    return found


def arithmetic_questions(deck: Deck, rng: random.Random) -> list[Candidate]:
    found = []
    for page, bar in slides_of(deck, BarChartSlide):
        named = list(zip(bar.categories, bar.values, strict=True))
        found += _pairwise(bar.metric, bar.title, "chart", named, page, "Chart", rng)
        if bar.metric.style != "pct":
            found.append(
                Candidate(
                    f"What is the total {bar.metric.name.lower()} of all {bar.dimension.lower()}s "
                    f'in the chart "{bar.title}"?',
                    bar.metric.format(sum(bar.values)),
                    bar.metric.answer_format,
                    (page,),
                    ("Chart",),
                    "sum",
                )
            )
    for page, pie in slides_of(deck, PieChartSlide):
        named = list(zip(pie.categories, pie.values, strict=True))
        found += _pairwise(pie.metric, pie.title, "pie chart", named, page, "Chart", rng)
    for page, table in slides_of(deck, TableSlide):
        column = rng.randrange(len(table.columns))
        named = [(row, cells[column]) for row, cells in zip(table.rows, table.cells, strict=True)]
        found += _pairwise(table.columns[column], table.title, "table", named, page, "Table", rng)
    for page, line in slides_of(deck, LineChartSlide):
        first, last = line.years[0], line.years[-1]
        found.append(
            Candidate(
                f'According to the chart "{line.title}", by what percentage did the '
                f"{line.metric.name.lower()} change from {first} to {last}? Round to one decimal.",
                percentage_change(line.values[0], line.values[-1]),
                "Float",
                (page,),
                ("Chart",),
                "percentage_change",
            )
        )
    found += _across_twins(deck, rng)
    return found


def _across_twins(deck: Deck, rng: random.Random) -> list[Candidate]:
    """Percentage change of one bar between a chart and its previous-year decoy."""
    found = []
    for old_page, new_page in deck.twins:
        old, new = deck.slides[old_page], deck.slides[new_page]
        if not (isinstance(old, BarChartSlide) and isinstance(new, BarChartSlide)):
            continue
        if old.metric.style == "pct":
            continue
        if old.title > new.title:  # titles differ only in the year: the later one is newer
            old, new, old_page, new_page = new, old, new_page, old_page
        index = rng.randrange(len(old.categories))
        found.append(
            Candidate(
                f"By what percentage did the {old.metric.name.lower()} of {old.categories[index]} "
                f'change from the chart "{old.title}" to the chart "{new.title}"? '
                "Round to one decimal.",
                percentage_change(old.values[index], new.values[index]),
                "Float",
                tuple(sorted((old_page, new_page))),
                ("Chart",),
                "percentage_change",
            )
        )
    return found
