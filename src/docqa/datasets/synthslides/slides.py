"""The content of a generated deck: one frozen dataclass per slide kind.

A ``Deck`` is the single source of truth: the drawing code renders it to PDF and the question
code derives answers and evidence pages from it, so both agree by construction. A slide's page
index is its position in ``Deck.slides``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from docqa.datasets.synthslides.numbers import Metric

# Dashboard panel positions, in drawing order.
POSITIONS = ("upper left", "upper right", "lower left", "lower right")


@dataclass(frozen=True)
class Fact:
    """A question a bullet answers: ``question`` is phrased to follow "According to <slide>, "."""

    question: str
    answer: str
    answer_format: str


@dataclass(frozen=True)
class Bullet:
    text: str
    fact: Fact


@dataclass(frozen=True)
class TitleSlide:
    title: str
    subtitle: str
    presenter: str
    role: str
    date: str


@dataclass(frozen=True)
class AgendaSlide:
    title: str
    items: tuple[str, ...]


@dataclass(frozen=True)
class BulletsSlide:
    title: str
    bullets: tuple[Bullet, ...]


@dataclass(frozen=True)
class BarChartSlide:
    title: str
    metric: Metric
    dimension: str
    categories: tuple[str, ...]
    values: tuple[int, ...]


@dataclass(frozen=True)
class LineChartSlide:
    title: str
    metric: Metric
    years: tuple[int, ...]
    values: tuple[int, ...]


@dataclass(frozen=True)
class PieChartSlide:
    """``values`` are shares in tenths of a percent and sum to 1000."""

    title: str
    metric: Metric
    dimension: str
    categories: tuple[str, ...]
    values: tuple[int, ...]


@dataclass(frozen=True)
class TableSlide:
    """``cells[r][c]`` is row ``rows[r]`` in column ``columns[c]``."""

    title: str
    dimension: str
    rows: tuple[str, ...]
    columns: tuple[Metric, ...]
    cells: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class FigureSlide:
    """A drawn diagram: ``style`` "flow" runs left to right, "stack" top to bottom."""

    title: str
    number: int
    caption: str
    style: str
    steps: tuple[str, ...]

    @property
    def caption_text(self) -> str:
        return f"Figure {self.number}: {self.caption}"


@dataclass(frozen=True)
class ComparisonSlide:
    title: str
    left_heading: str
    left_points: tuple[str, ...]
    right_heading: str
    right_points: tuple[str, ...]


@dataclass(frozen=True)
class TimelineSlide:
    """``milestones`` are (date, label) pairs in time order, drawn left to right."""

    title: str
    milestones: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Panel:
    """One dashboard panel: ``kind`` is "bar chart", "line chart", "pie chart" or "KPI"."""

    kind: str
    title: str
    metric: Metric
    categories: tuple[str, ...]
    values: tuple[int, ...]


@dataclass(frozen=True)
class DashboardSlide:
    """Four panels, in ``POSITIONS`` order."""

    title: str
    panels: tuple[Panel, ...]


Slide = (
    TitleSlide
    | AgendaSlide
    | BulletsSlide
    | BarChartSlide
    | LineChartSlide
    | PieChartSlide
    | TableSlide
    | FigureSlide
    | ComparisonSlide
    | TimelineSlide
    | DashboardSlide
)


@dataclass(frozen=True)
class Deck:
    """``twins`` maps a slide's page to its decoy's page (a near-duplicate title, other values)."""

    doc_id: str
    company: str
    slides: tuple[Slide, ...]
    twins: tuple[tuple[int, int], ...] = ()

    def twin_of(self, page: int) -> int | None:
        for a, b in self.twins:
            if page == a:
                return b
            if page == b:
                return a
        return None

    def mentions(self, text: str) -> bool:
        """Whether ``text`` occurs anywhere in the deck's content (a conservative test)."""
        return text in self._content

    @cached_property
    def _content(self) -> str:
        return repr(self.slides)
