"""Choose a deck's questions: a mix of every kind, numbered ``<doc_id>-qNN``.

Each kind has a generator listing every candidate the deck supports. Kinds are visited in a
random order and then cycled, so a deck with at least as many questions as kinds gets every
kind once before any repeats.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from docqa.core.question import Question, page_refs
from docqa.datasets.synthslides.ask_arithmetic import arithmetic_questions
from docqa.datasets.synthslides.ask_counting import counting_questions
from docqa.datasets.synthslides.ask_layout import layout_questions
from docqa.datasets.synthslides.ask_multi_hop import multi_hop_questions
from docqa.datasets.synthslides.ask_single import (
    chart_value_questions,
    table_cell_questions,
    text_questions,
)
from docqa.datasets.synthslides.ask_unanswerable import unanswerable_questions
from docqa.datasets.synthslides.candidate import Candidate
from docqa.datasets.synthslides.slides import Deck

GENERATORS: dict[str, Callable[[Deck, random.Random], list[Candidate]]] = {
    "text": lambda deck, rng: text_questions(deck),
    "chart_value": lambda deck, rng: chart_value_questions(deck),
    "table_cell": lambda deck, rng: table_cell_questions(deck),
    "layout": lambda deck, rng: layout_questions(deck),
    "multi_hop": multi_hop_questions,
    "arithmetic": arithmetic_questions,
    "counting": counting_questions,
    "unanswerable": unanswerable_questions,
}
KINDS = tuple(GENERATORS)


def to_question(deck: Deck, kind: str, candidate: Candidate, number: int) -> Question:
    tags: dict[str, str | list[str]] = {
        "kind": kind,
        "evidence_sources": list(candidate.sources),
        "decoy": "yes" if any(deck.twin_of(p) is not None for p in candidate.pages) else "no",
    }
    if candidate.operation:
        tags["operation"] = candidate.operation
    return Question(
        question_id=f"{deck.doc_id}-q{number:02d}",
        doc_id=deck.doc_id,
        question=candidate.question,
        answer=candidate.answer,
        answer_format=candidate.answer_format,
        evidence=page_refs(deck.doc_id, candidate.pages),
        tags=tags,
    )


def deck_questions(deck: Deck, rng: random.Random, count: int) -> list[Question]:
    """``count`` distinct questions about ``deck`` (fewer only if it runs out of candidates)."""
    pools = {kind: generate(deck, rng) for kind, generate in GENERATORS.items()}
    order = rng.sample(KINDS, len(KINDS))
    chosen: list[tuple[str, Candidate]] = []
    asked: set[str] = set()
    while len(chosen) < count and any(pools.values()):
        for kind in order:
            pool = [c for c in pools[kind] if c.question not in asked]
            pools[kind] = pool
            if not pool or len(chosen) == count:
                continue
            candidate = pool.pop(rng.randrange(len(pool)))
            asked.add(candidate.question)
            chosen.append((kind, candidate))
    return [to_question(deck, kind, c, n) for n, (kind, c) in enumerate(chosen)]
