"""Counting questions: bars, slices, rows, milestones, steps, bullets, agenda items, thresholds."""

from __future__ import annotations

import random

from docqa.datasets.synthslides.candidate import Candidate, slides_of
from docqa.datasets.synthslides.numbers import Metric
from docqa.datasets.synthslides.slides import (
    AgendaSlide,
    BarChartSlide,
    BulletsSlide,
    Deck,
    FigureSlide,
    LineChartSlide,
    PieChartSlide,
    TableSlide,
    TimelineSlide,
)


def round_threshold(low: int, high: int) -> int:
    """The roundest stored value strictly between ``low`` and ``high`` (``low + 1 < high``)."""
    step = 10 ** len(str(high))
    while step >= 1:
        for multiple in (5, 2, 1):
            size = step * multiple
            value = (low // size + 1) * size
            if value < high:
                return value
        step //= 10
    raise ValueError(f"no whole number between {low} and {high}")


def _above(metric: Metric, values: tuple[int, ...], rng: random.Random) -> tuple[str, int] | None:
    """A threshold label between two neighbouring values, and how many values exceed it."""
    ordered = sorted(values)
    gaps = [k for k in range(1, len(ordered)) if ordered[k] - ordered[k - 1] > 1]
    if not gaps:
        return None
    k = rng.choice(gaps)
    return metric.format(round_threshold(ordered[k - 1], ordered[k])), len(ordered) - k


def counting_questions(deck: Deck, rng: random.Random) -> list[Candidate]:
    found = []
    for page, bar in slides_of(deck, BarChartSlide):
        dimension = bar.dimension.lower()
        found.append(
            Candidate(
                f'How many {dimension}s are shown in the bar chart "{bar.title}"?',
                str(len(bar.categories)),
                "Int",
                (page,),
                ("Chart",),
            )
        )
        threshold = _above(bar.metric, bar.values, rng)
        if threshold:
            found.append(
                Candidate(
                    f'How many {dimension}s in the chart "{bar.title}" have a '
                    f"{bar.metric.name.lower()} above {threshold[0]}?",
                    str(threshold[1]),
                    "Int",
                    (page,),
                    ("Chart",),
                )
            )
    for page, line in slides_of(deck, LineChartSlide):
        threshold = _above(line.metric, line.values, rng)
        if threshold:
            found.append(
                Candidate(
                    f'In how many of the years shown in the chart "{line.title}" was the '
                    f"{line.metric.name.lower()} above {threshold[0]}?",
                    str(threshold[1]),
                    "Int",
                    (page,),
                    ("Chart",),
                )
            )
    for page, pie in slides_of(deck, PieChartSlide):
        found.append(
            Candidate(
                f'How many slices does the pie chart "{pie.title}" have?',
                str(len(pie.values)),
                "Int",
                (page,),
                ("Chart",),
            )
        )
    for page, table in slides_of(deck, TableSlide):
        found.append(
            Candidate(
                f'How many {table.dimension.lower()}s are listed in the table "{table.title}"?',
                str(len(table.rows)),
                "Int",
                (page,),
                ("Table",),
            )
        )
    for page, timeline in slides_of(deck, TimelineSlide):
        found.append(
            Candidate(
                f'How many milestones are shown on the slide "{timeline.title}"?',
                str(len(timeline.milestones)),
                "Int",
                (page,),
                ("Figure",),
            )
        )
    for page, figure in slides_of(deck, FigureSlide):
        parts = "steps" if figure.style == "flow" else "layers"
        found.append(
            Candidate(
                f"How many {parts} does Figure {figure.number} show?",
                str(len(figure.steps)),
                "Int",
                (page,),
                ("Figure",),
            )
        )
    for page, slide in slides_of(deck, BulletsSlide):
        found.append(
            Candidate(
                f'How many bullet points are on the slide "{slide.title}"?',
                str(len(slide.bullets)),
                "Int",
                (page,),
                ("Text",),
            )
        )
    for page, agenda in slides_of(deck, AgendaSlide):
        found.append(
            Candidate(
                "How many items does the agenda list?",
                str(len(agenda.items)),
                "Int",
                (page,),
                ("Text",),
            )
        )
    return found
