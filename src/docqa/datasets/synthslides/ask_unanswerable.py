"""Unanswerable questions: plausible, but about items or slides the deck does not contain.

An item counts as absent only if its name occurs nowhere in the deck, so no slide can
answer the question by accident.
"""

from __future__ import annotations

import random

from docqa.core.question import UNANSWERABLE
from docqa.datasets.synthslides import vocabulary as vocab
from docqa.datasets.synthslides.candidate import Candidate, slides_of
from docqa.datasets.synthslides.slides import (
    BarChartSlide,
    BulletsSlide,
    Deck,
    TableSlide,
    TimelineSlide,
)


def _absent(deck: Deck, pool: tuple[str, ...], rng: random.Random) -> str | None:
    missing = [name for name in pool if not deck.mentions(name)]
    return rng.choice(missing) if missing else None


def _unanswerable(question: str) -> Candidate:
    return Candidate(question, UNANSWERABLE, "None", (), ())


def unanswerable_questions(deck: Deck, rng: random.Random) -> list[Candidate]:
    found = []
    for _, bar in slides_of(deck, BarChartSlide):
        name = bar.metric.name.lower()
        absent = _absent(deck, vocab.DIMENSIONS[bar.dimension], rng)
        if absent:
            found.append(
                _unanswerable(f'In the bar chart "{bar.title}", what is the {name} of {absent}?')
            )
        base, year = bar.title.rsplit(" ", 1)
        missing_title = f"{base} {int(year) - 3}"  # decoys go back one year only
        if not deck.mentions(missing_title):
            found.append(
                _unanswerable(
                    f'In the chart "{missing_title}", what is the {name} of {bar.categories[0]}?'
                )
            )
    for _, table in slides_of(deck, TableSlide):
        absent = _absent(deck, vocab.DIMENSIONS[table.dimension], rng)
        if absent:
            found.append(
                _unanswerable(
                    f'In the table "{table.title}", what is the {table.columns[0].name.lower()} '
                    f"of {absent}?"
                )
            )
    for _, timeline in slides_of(deck, TimelineSlide):
        absent = _absent(deck, vocab.MILESTONES, rng)
        if absent:
            found.append(
                _unanswerable(
                    f'According to the slide "{timeline.title}", when is the "{absent}" milestone '
                    "planned?"
                )
            )
    for _, slide in slides_of(deck, BulletsSlide):
        absent = _absent(deck, vocab.INITIATIVES, rng)
        if absent:
            found.append(
                _unanswerable(
                    f'According to the slide "{slide.title}", who leads the {absent} program?'
                )
            )
    return found
