"""Single-slide questions whose answers are read off one slide: text, chart_value, table_cell.

Answers are the exact strings drawn on the slide (``Metric.format`` for numbers).
"""

from __future__ import annotations

from docqa.datasets.synthslides.candidate import Candidate, slides_of
from docqa.datasets.synthslides.slides import (
    BarChartSlide,
    BulletsSlide,
    Deck,
    FigureSlide,
    LineChartSlide,
    PieChartSlide,
    TableSlide,
    TimelineSlide,
    TitleSlide,
)


def text_questions(deck: Deck) -> list[Candidate]:
    found = []
    for page, slide in slides_of(deck, BulletsSlide):
        for bullet in slide.bullets:
            fact = bullet.fact
            found.append(
                Candidate(
                    f'According to the slide "{slide.title}", {fact.question}?',
                    fact.answer,
                    fact.answer_format,
                    (page,),
                    ("Text",),
                )
            )
    for page, cover in slides_of(deck, TitleSlide):
        found.append(
            Candidate(
                "Who prepared this presentation, according to its title slide?",
                cover.presenter,
                "Str",
                (page,),
                ("Text",),
            )
        )
        found.append(
            Candidate(
                "What is the role of the person who prepared this presentation?",
                cover.role,
                "Str",
                (page,),
                ("Text",),
            )
        )
    for page, timeline in slides_of(deck, TimelineSlide):
        for date, label in timeline.milestones:
            found.append(
                Candidate(
                    f'According to the slide "{timeline.title}", which milestone is planned for '
                    f"{date}?",
                    label,
                    "Str",
                    (page,),
                    ("Text",),
                )
            )
    for page, figure in slides_of(deck, FigureSlide):
        found.append(
            Candidate(
                f"What does Figure {figure.number} show, according to its caption?",
                figure.caption,
                "Str",
                (page,),
                ("Text", "Figure"),
            )
        )
    return found


def chart_value_questions(deck: Deck) -> list[Candidate]:
    found = []
    for page, bar in slides_of(deck, BarChartSlide):
        metric, where = bar.metric, (page,)
        name = metric.name.lower()
        for category, value in zip(bar.categories, bar.values, strict=True):
            found.append(
                Candidate(
                    f'In the bar chart "{bar.title}", what is the {name} of {category}?',
                    metric.format(value),
                    metric.answer_format,
                    where,
                    ("Chart",),
                )
            )
        ranked = [c for _, c in sorted(zip(bar.values, bar.categories, strict=True), reverse=True)]
        dimension = bar.dimension.lower()
        found.append(
            Candidate(
                f'Which {dimension} has the highest {name} in the chart "{bar.title}"?',
                ranked[0],
                "Str",
                where,
                ("Chart",),
            )
        )
        found.append(
            Candidate(
                f'Which {dimension} has the lowest {name} in the chart "{bar.title}"?',
                ranked[-1],
                "Str",
                where,
                ("Chart",),
            )
        )
        found.append(
            Candidate(
                f'Which two {dimension}s have the highest {name} in the chart "{bar.title}"? '
                "List them from highest to lowest.",
                ranked[:2],
                "List",
                where,
                ("Chart",),
            )
        )
    for page, line in slides_of(deck, LineChartSlide):
        name = line.metric.name.lower()
        for year, value in zip(line.years, line.values, strict=True):
            found.append(
                Candidate(
                    f'According to the chart "{line.title}", what was the {name} in {year}?',
                    line.metric.format(value),
                    line.metric.answer_format,
                    (page,),
                    ("Chart",),
                )
            )
        peak = max(zip(line.values, line.years, strict=True))[1]
        found.append(
            Candidate(
                f'In which year was the {name} highest in the chart "{line.title}"?',
                str(peak),
                "Int",
                (page,),
                ("Chart",),
            )
        )
    for page, pie in slides_of(deck, PieChartSlide):
        for category, value in zip(pie.categories, pie.values, strict=True):
            found.append(
                Candidate(
                    f'In the pie chart "{pie.title}", what share does {category} have?',
                    pie.metric.format(value),
                    "Float",
                    (page,),
                    ("Chart",),
                )
            )
        largest = max(zip(pie.values, pie.categories, strict=True))[1]
        found.append(
            Candidate(
                f"Which {pie.dimension.lower()} has the largest share in the pie chart "
                f'"{pie.title}"?',
                largest,
                "Str",
                (page,),
                ("Chart",),
            )
        )
    return found


def table_cell_questions(deck: Deck) -> list[Candidate]:
    found = []
    for page, table in slides_of(deck, TableSlide):
        dimension = table.dimension.lower()
        for column, metric in enumerate(table.columns):
            name = metric.name.lower()
            for row, cells in zip(table.rows, table.cells, strict=True):
                found.append(
                    Candidate(
                        f'In the table "{table.title}", what is the {name} of {row}?',
                        metric.format(cells[column]),
                        metric.answer_format,
                        (page,),
                        ("Table",),
                    )
                )
            best = max(zip((cells[column] for cells in table.cells), table.rows, strict=True))[1]
            found.append(
                Candidate(
                    f'Which {dimension} has the highest {name} in the table "{table.title}"?',
                    best,
                    "Str",
                    (page,),
                    ("Table",),
                )
            )
    return found
