"""Compose one deck: a title slide, an agenda, then content slides in random order.

Every deck holds the slides each question kind needs (bullets, a bar chart, a table, and one
slide with a spatial layout), and when it has room, one or two decoy twins.
"""

from __future__ import annotations

import dataclasses
import random

from docqa.datasets.synthslides import builders
from docqa.datasets.synthslides import vocabulary as vocab
from docqa.datasets.synthslides.builders import DeckContext
from docqa.datasets.synthslides.slides import AgendaSlide, Deck, FigureSlide, Slide, TitleSlide

MIN_SLIDES = 6  # title, agenda, and the four slides every deck needs
EXTRA_KINDS = (
    "bar",
    "line",
    "pie",
    "table",
    "bullets",
    "figure",
    "comparison",
    "timeline",
    "dashboard",
)
EXTRA_WEIGHTS = (2, 2, 2, 1, 1, 1, 1, 1, 1)
# Most slides of these kinds one deck may have, so that decks look like real presentations;
# bar and line charts are not capped, so decks of any length can be filled.
MAX_PER_DECK = {
    "bullets": 3,
    "figure": 2,
    "comparison": 1,
    "timeline": 1,
    "dashboard": 1,
    "table": 2,
    "pie": 2,
}
_ATTEMPTS = 50


def make_deck(rng: random.Random, doc_id: str, num_slides: int) -> Deck:
    """A deck of ``num_slides`` slides (at least ``MIN_SLIDES``) with unique titles."""
    if num_slides < MIN_SLIDES:
        raise ValueError(f"a deck needs at least {MIN_SLIDES} slides, got {num_slides}")
    ctx = _context(rng)
    extra = num_slides - MIN_SLIDES
    num_twins = min(extra, rng.choice((1, 2)))
    kinds = ["bullets", "bar", "table", rng.choice(("dashboard", "comparison", "figure"))]
    titles: set[str] = {"Agenda"}
    content = [_unique(rng, kind, ctx, titles) for kind in kinds]
    for _ in range(extra - num_twins):
        content.append(_extra(rng, ctx, titles, kinds))
    pairs = _add_twins(rng, content, ctx, titles, num_slides - 2, kinds)
    order = list(range(len(content)))
    rng.shuffle(order)
    page_of = {index: page + 2 for page, index in enumerate(order)}
    content = _number_figures([content[index] for index in order])
    slides: list[Slide] = [
        _title_slide(rng, ctx),
        AgendaSlide("Agenda", tuple(slide.title for slide in content)),
        *content,
    ]
    twins = tuple(
        sorted((min(page_of[a], page_of[b]), max(page_of[a], page_of[b])) for a, b in pairs)
    )
    return Deck(doc_id, ctx.company, tuple(slides), twins)


def _context(rng: random.Random) -> DeckContext:
    company = f"{rng.choice(vocab.COMPANY_PREFIXES)} {rng.choice(vocab.COMPANY_SUFFIXES)}"
    main, side = rng.choice(
        (
            ("Region", "Segment"),
            ("Product", "Channel"),
            ("Region", "Channel"),
            ("Product", "Segment"),
        )
    )
    return DeckContext(
        company=company,
        year=rng.randint(2021, 2025),
        main_dimension=main,
        main_members=tuple(rng.sample(vocab.DIMENSIONS[main], 6)),
        side_dimension=side,
        side_members=tuple(rng.sample(vocab.DIMENSIONS[side], 5)),
    )


def _unique(rng: random.Random, kind: str, ctx: DeckContext, titles: set[str]) -> Slide:
    """A new slide of ``kind`` whose title no other slide of the deck has."""
    slide = _try_unique(rng, kind, ctx, titles)
    if slide is None:
        raise RuntimeError(f"no unique title for a {kind} slide after {_ATTEMPTS} attempts")
    return slide


def _extra(rng: random.Random, ctx: DeckContext, titles: set[str], kinds: list[str]) -> Slide:
    """A slide of a random kind that has not reached its cap; ``kinds`` records the choice."""
    while True:
        kind = rng.choices(EXTRA_KINDS, EXTRA_WEIGHTS)[0]
        if kind in MAX_PER_DECK and kinds.count(kind) >= MAX_PER_DECK[kind]:
            continue
        slide = _try_unique(rng, kind, ctx, titles)
        if slide is not None:
            kinds.append(kind)
            return slide


def _try_unique(rng: random.Random, kind: str, ctx: DeckContext, titles: set[str]) -> Slide | None:
    for _ in range(_ATTEMPTS):
        slide = builders.BUILDERS[kind](rng, ctx)
        if slide.title not in titles:
            titles.add(slide.title)
            return slide
    return None


def _add_twins(
    rng: random.Random,
    content: list[Slide],
    ctx: DeckContext,
    titles: set[str],
    size: int,
    kinds: list[str],
) -> list[tuple[int, int]]:
    """Append decoy twins (or ordinary slides where none fits) until ``content`` has ``size``."""
    pairs = []
    candidates = list(range(len(content)))
    rng.shuffle(candidates)
    for index in candidates:
        if len(content) == size:
            break
        decoy = builders.twin(rng, content[index], ctx)
        if decoy is not None and decoy.title not in titles:
            titles.add(decoy.title)
            pairs.append((index, len(content)))
            content.append(decoy)
    while len(content) < size:
        content.append(_extra(rng, ctx, titles, kinds))
    return pairs


def _number_figures(slides: list[Slide]) -> list[Slide]:
    """Number the figures 1, 2, ... in page order."""
    numbered: list[Slide] = []
    count = 0
    for slide in slides:
        if isinstance(slide, FigureSlide):
            count += 1
            slide = dataclasses.replace(slide, number=count)
        numbered.append(slide)
    return numbered


def _title_slide(rng: random.Random, ctx: DeckContext) -> TitleSlide:
    purpose = rng.choice(vocab.DECK_PURPOSES)
    return TitleSlide(
        title=ctx.company,
        subtitle=f"{purpose} {ctx.year}",
        presenter=f"{rng.choice(vocab.FIRST_NAMES)} {rng.choice(vocab.LAST_NAMES)}",
        role=rng.choice(vocab.ROLES),
        date=f"{rng.choice(vocab.MONTHS)} {ctx.year}",
    )
