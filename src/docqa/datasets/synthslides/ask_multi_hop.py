"""Questions that need two slides: chart to table, agenda to slide, and a slide to its decoy."""

from __future__ import annotations

import random

from docqa.datasets.synthslides.candidate import Candidate, slides_of
from docqa.datasets.synthslides.slides import (
    AgendaSlide,
    BarChartSlide,
    Deck,
    LineChartSlide,
    PieChartSlide,
    TableSlide,
)


def multi_hop_questions(deck: Deck, rng: random.Random) -> list[Candidate]:
    return _chart_to_table(deck, rng) + _agenda_to_chart(deck) + _changes_across_twins(deck)


def _chart_to_table(deck: Deck, rng: random.Random) -> list[Candidate]:
    """The leading category of a bar chart, looked up in a table of the same dimension."""
    found = []
    for bar_page, bar in slides_of(deck, BarChartSlide):
        leader = max(zip(bar.values, bar.categories, strict=True))[1]
        for table_page, table in slides_of(deck, TableSlide):
            if table.dimension != bar.dimension or leader not in table.rows:
                continue
            column = rng.randrange(len(table.columns))
            metric = table.columns[column]
            value = table.cells[table.rows.index(leader)][column]
            found.append(
                Candidate(
                    f"Find the {bar.dimension.lower()} with the highest {bar.metric.name.lower()} "
                    f'in the chart "{bar.title}". What is its {metric.name.lower()} in the table '
                    f'"{table.title}"?',
                    metric.format(value),
                    metric.answer_format,
                    tuple(sorted((bar_page, table_page))),
                    ("Chart", "Table"),
                )
            )
    return found


def _agenda_to_chart(deck: Deck) -> list[Candidate]:
    """The largest value of the chart that the agenda lists as item k."""
    found = []
    page_of = {slide.title: page for page, slide in enumerate(deck.slides)}
    for agenda_page, agenda in slides_of(deck, AgendaSlide):
        for number, title in enumerate(agenda.items, start=1):
            page = page_of[title]
            slide = deck.slides[page]
            if isinstance(slide, (BarChartSlide, LineChartSlide, PieChartSlide)):
                found.append(
                    Candidate(
                        f"What is the largest value shown in the chart of agenda item {number}?",
                        slide.metric.format(max(slide.values)),
                        slide.metric.answer_format,
                        (agenda_page, page),
                        ("Text", "Chart"),
                    )
                )
    return found


def _changes_across_twins(deck: Deck) -> list[Candidate]:
    """Which categories grew from a chart (or table column) to its previous-year decoy."""
    found = []
    for first, second in deck.twins:
        old, new = deck.slides[first], deck.slides[second]
        if old.title > new.title:
            old, new = new, old
        if isinstance(old, (BarChartSlide, PieChartSlide)) and isinstance(new, type(old)):
            grew = [
                c for c, a, b in zip(old.categories, old.values, new.values, strict=True) if b > a
            ]
            what = "share" if isinstance(old, PieChartSlide) else old.metric.name.lower()
            names, source = old.dimension.lower(), "Chart"
        elif isinstance(old, TableSlide) and isinstance(new, TableSlide):
            what = old.columns[0].name.lower()
            grew = [
                r for r, a, b in zip(old.rows, old.cells, new.cells, strict=True) if b[0] > a[0]
            ]
            names, source = old.dimension.lower(), "Table"
        else:
            continue
        if grew:
            found.append(
                Candidate(
                    f'Which {names}s have a higher {what} in "{new.title}" than in "{old.title}"? '
                    "List them in the order shown.",
                    grew,
                    "List",
                    (first, second),
                    (source,),
                )
            )
    return found
