"""Generate the whole dataset: deck PDFs, ``documents.jsonl`` and ``questions.jsonl``.

Deck ``i`` draws from its own RNG seeded by (seed, i), so it is the same deck whatever the
number of decks asked for: ``decks: 300`` starts with the six decks of the default set.
"""

from __future__ import annotations

import dataclasses
import io
import random
from pathlib import Path

from docqa.core.document import Document
from docqa.core.jsonl import write_jsonl
from docqa.core.question import Question
from docqa.datasets.synthslides.corrupt import CORRUPTIONS, corrupt
from docqa.datasets.synthslides.deck import make_deck
from docqa.datasets.synthslides.options import SynthOptions
from docqa.datasets.synthslides.pdf import write_deck_pdf
from docqa.datasets.synthslides.questions import deck_questions

DOC_TYPE = "slides"


def build_dataset(out_dir: Path, options: SynthOptions) -> None:
    """Write ``out_dir/docs/<doc_id>.pdf`` and the two JSON Lines files."""
    docs_dir = out_dir / "docs"
    docs_dir.mkdir(parents=True, exist_ok=True)
    documents: list[Document] = []
    questions: list[Question] = []
    width = max(3, len(str(options.decks - 1)))
    for index in range(options.decks):
        rng = random.Random(f"synthslides/{options.seed}/deck/{index}")
        deck = make_deck(rng, f"deck{index:0{width}d}", rng.randint(*options.slides_per_deck))
        path = docs_dir / f"{deck.doc_id}.pdf"
        write_deck_pdf(deck, path)
        documents.append(Document(deck.doc_id, str(path), len(deck.slides), DOC_TYPE))
        questions += deck_questions(deck, rng, options.questions_per_deck)
    for index in range(options.corrupt_decks):
        document, question = _broken_document(docs_dir, options, index)
        documents.append(document)
        questions.append(question)
    write_jsonl(out_dir / "documents.jsonl", (d.to_dict() for d in documents))
    write_jsonl(out_dir / "questions.jsonl", (q.to_dict() for q in questions))


def _broken_document(
    docs_dir: Path, options: SynthOptions, index: int
) -> tuple[Document, Question]:
    """A corrupted deck with one question; its page count is unknown to any reader."""
    kind = CORRUPTIONS[index % len(CORRUPTIONS)]
    rng = random.Random(f"synthslides/{options.seed}/corrupt/{index}")
    deck = make_deck(rng, f"corrupt{index:03d}-{kind}", options.slides_per_deck[0])
    pdf = io.BytesIO()
    if kind != "empty":
        write_deck_pdf(deck, pdf)
    path = docs_dir / f"{deck.doc_id}.pdf"
    path.write_bytes(corrupt(kind, pdf.getvalue()))
    question = deck_questions(deck, rng, 1)[0]
    tags = {**question.tags, "corruption": kind}
    document = Document(deck.doc_id, str(path), None, DOC_TYPE)
    return document, dataclasses.replace(question, tags=tags)
