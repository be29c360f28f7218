"""The options of the synthslides dataset, checked so a bad config names the bad key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from docqa.datasets.synthslides.deck import MIN_SLIDES

MAX_SLIDES = 22  # the agenda fits twenty items in two columns


@dataclass(frozen=True)
class SynthOptions:
    seed: int = 0
    decks: int = 6
    slides_per_deck: tuple[int, int] = (8, 12)
    questions_per_deck: int = 10
    corrupt_decks: int = 0


def _integer(key: str, value: Any, minimum: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"synthslides option {key!r} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"synthslides option {key!r} must be at least {minimum}, got {value}")
    return value


def parse_options(options: dict[str, Any]) -> SynthOptions:
    """Options from the config; missing keys take their defaults, unknown keys are an error."""
    known = set(SynthOptions.__dataclass_fields__)
    for key in options:
        if key not in known:
            raise ValueError(
                f"synthslides: unknown option {key!r}; known options: {', '.join(sorted(known))}"
            )
    defaults = SynthOptions()
    span = options.get("slides_per_deck", defaults.slides_per_deck)
    if not isinstance(span, (list, tuple)) or len(span) != 2:
        raise ValueError(f"synthslides option 'slides_per_deck' must be [min, max], got {span!r}")
    low = _integer("slides_per_deck", span[0], MIN_SLIDES)
    high = _integer("slides_per_deck", span[1], low)
    if high > MAX_SLIDES:
        raise ValueError(
            f"synthslides option 'slides_per_deck' allows at most {MAX_SLIDES} slides, got {high}"
        )
    return SynthOptions(
        seed=_integer("seed", options.get("seed", defaults.seed), None),
        decks=_integer("decks", options.get("decks", defaults.decks), 0),
        slides_per_deck=(low, high),
        questions_per_deck=_integer(
            "questions_per_deck", options.get("questions_per_deck", defaults.questions_per_deck), 1
        ),
        corrupt_decks=_integer(
            "corrupt_decks", options.get("corrupt_decks", defaults.corrupt_decks), 0
        ),
    )
