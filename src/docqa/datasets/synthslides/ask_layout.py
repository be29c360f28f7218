"""Layout questions: answerable from where things sit on a slide (panels, columns, ends)."""

from __future__ import annotations

from itertools import pairwise

from docqa.datasets.synthslides.candidate import Candidate, slides_of
from docqa.datasets.synthslides.slides import (
    POSITIONS,
    BarChartSlide,
    ComparisonSlide,
    DashboardSlide,
    Deck,
    FigureSlide,
    TimelineSlide,
)


def layout_questions(deck: Deck) -> list[Candidate]:
    return (
        _dashboards(deck) + _comparisons(deck) + _figures(deck) + _timelines(deck) + _bar_ends(deck)
    )


def _dashboards(deck: Deck) -> list[Candidate]:
    found = []
    for page, slide in slides_of(deck, DashboardSlide):
        title, where = slide.title, (page,)
        for position, panel in zip(POSITIONS, slide.panels, strict=True):
            found.append(
                Candidate(
                    f'What is the title of the {position} panel on the slide "{title}"?',
                    panel.title,
                    "Str",
                    where,
                    ("Layout",),
                )
            )
            if panel.kind == "KPI":
                found.append(
                    Candidate(
                        f'What number is shown in the {position} panel of the slide "{title}"?',
                        panel.metric.format(panel.values[0]),
                        panel.metric.answer_format,
                        where,
                        ("Layout", "Chart"),
                    )
                )
            else:
                found.append(
                    Candidate(
                        f"Which type of chart appears in the {position} panel of the slide "
                        f'"{title}"?',
                        panel.kind,
                        "Str",
                        where,
                        ("Layout", "Chart"),
                    )
                )
                found.append(
                    Candidate(
                        f'In which panel of the slide "{title}" is the {panel.kind}? Answer with '
                        "its position, such as upper left.",
                        position,
                        "Str",
                        where,
                        ("Layout", "Chart"),
                    )
                )
    return found


def _comparisons(deck: Deck) -> list[Candidate]:
    found = []
    for page, slide in slides_of(deck, ComparisonSlide):
        columns = (
            ("left", slide.left_heading, slide.left_points),
            ("right", slide.right_heading, slide.right_points),
        )
        for side, heading, points in columns:
            found.append(
                Candidate(
                    f'What is the heading of the {side} column on the slide "{slide.title}"?',
                    heading,
                    "Str",
                    (page,),
                    ("Layout", "Text"),
                )
            )
            found.append(
                Candidate(
                    f'On the slide "{slide.title}", what is the first point listed in the {side} '
                    "column?",
                    points[0],
                    "Str",
                    (page,),
                    ("Layout", "Text"),
                )
            )
    return found


def _figures(deck: Deck) -> list[Candidate]:
    found = []
    for page, figure in slides_of(deck, FigureSlide):
        steps, name, where = figure.steps, f"Figure {figure.number}", (page,)
        sources = ("Figure", "Layout")
        if figure.style == "flow":
            found.append(
                Candidate(
                    f"In {name}, what is the label of the leftmost box?",
                    steps[0],
                    "Str",
                    where,
                    sources,
                )
            )
            found.append(
                Candidate(
                    f"In {name}, what is the label of the rightmost box?",
                    steps[-1],
                    "Str",
                    where,
                    sources,
                )
            )
            found += [
                Candidate(
                    f'In {name}, which step comes directly after "{a}"?', b, "Str", where, sources
                )
                for a, b in pairwise(steps)
            ]
        else:
            found.append(
                Candidate(f"What is the top layer in {name}?", steps[0], "Str", where, sources)
            )
            found.append(
                Candidate(f"What is the bottom layer in {name}?", steps[-1], "Str", where, sources)
            )
            found += [
                Candidate(
                    f'In {name}, which layer sits directly below "{a}"?', b, "Str", where, sources
                )
                for a, b in pairwise(steps)
            ]
    return found


def _timelines(deck: Deck) -> list[Candidate]:
    found = []
    for page, slide in slides_of(deck, TimelineSlide):
        for end, (_, label) in (
            ("leftmost", slide.milestones[0]),
            ("rightmost", slide.milestones[-1]),
        ):
            found.append(
                Candidate(
                    f'Which milestone is {end} on the timeline of the slide "{slide.title}"?',
                    label,
                    "Str",
                    (page,),
                    ("Layout",),
                )
            )
    return found


def _bar_ends(deck: Deck) -> list[Candidate]:
    found = []
    for page, bar in slides_of(deck, BarChartSlide):
        for end, category in (("leftmost", bar.categories[0]), ("rightmost", bar.categories[-1])):
            found.append(
                Candidate(
                    f'Which {bar.dimension.lower()} is the {end} bar in the chart "{bar.title}"?',
                    category,
                    "Str",
                    (page,),
                    ("Chart", "Layout"),
                )
            )
    return found
