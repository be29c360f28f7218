"""The options of the synthslides dataset: its spec, read without generating anything."""

from __future__ import annotations

from pydantic import field_validator

from docqa.datasets.synthslides.deck import MIN_SLIDES
from docqa.runtime.spec import Field, Options

MAX_SLIDES = 22  # the agenda fits twenty items in two columns


class SynthOptions(Options):
    """The options of adapter ``synthslides``."""

    seed: int = Field(default=0, ge=0, description="the seed every deck and question is drawn from")
    decks: int = Field(default=6, ge=0, description="how many slide decks to generate")
    slides_per_deck: tuple[int, int] = Field(
        default=(8, 12),
        strict=False,  # a YAML list [8, 12]
        description=f"[min, max] slides per deck, from {MIN_SLIDES} to {MAX_SLIDES}",
    )
    questions_per_deck: int = Field(default=10, ge=1, description="questions asked about each deck")
    corrupt_decks: int = Field(
        default=0, ge=0, description="broken documents added, for robustness tests"
    )

    @field_validator("slides_per_deck")
    @classmethod
    def _within_bounds(cls, span: tuple[int, int]) -> tuple[int, int]:
        low, high = span
        if not MIN_SLIDES <= low <= high <= MAX_SLIDES:
            raise ValueError(
                f"[min, max] must have {MIN_SLIDES} <= min <= max <= {MAX_SLIDES}, got {list(span)}"
            )
        return span
