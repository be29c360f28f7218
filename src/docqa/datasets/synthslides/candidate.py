"""A candidate question derived from a deck, before one is chosen and numbered."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from docqa.datasets.synthslides.slides import Deck

S = TypeVar("S")


@dataclass(frozen=True)
class Candidate:
    """``pages`` are 0-based evidence pages; ``sources`` are evidence sources (Text, Chart, ...)."""

    question: str
    answer: str | list[str]
    answer_format: str
    pages: tuple[int, ...]
    sources: tuple[str, ...]
    operation: str = ""


def slides_of(deck: Deck, kind: type[S]) -> list[tuple[int, S]]:
    """(page, slide) for every slide of ``kind`` in page order."""
    return [(page, slide) for page, slide in enumerate(deck.slides) if isinstance(slide, kind)]
