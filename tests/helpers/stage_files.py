"""The files the index and infer stages read (pages.jsonl with page images, elements.jsonl,
questions.jsonl) for two small decks, in the formats of the render, OCR and data stages."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from docqa.core.document import Page
from docqa.core.element import Element
from docqa.core.jsonl import write_jsonl
from docqa.core.question import Question

DOCS = {
    "deck-a": ["Quarterly review agenda", "Revenue north 120 south 95", "Hiring engineering 42"],
    "deck-b": ["Travel policy", ""],  # page 1 has no text
}
QUESTIONS = [
    Question("q1", "deck-a", "What was the revenue in the north?", "120", "Int", [("deck-a", 1)]),
    Question("q2", "deck-a", "Hiring in engineering: how many?", "42", "Int", [("deck-a", 2)]),
    Question(
        "q3",
        "deck-b",
        "What does the travel policy say?",
        "x",
        "Str",
        [("deck-b", 0), ("deck-b", 1)],
    ),
    Question("q4", "deck-b", "Who is the CEO?", "Not answerable", "None", []),
]


def write_stage_files(folder: Path) -> dict[str, Path]:
    """pages.jsonl (with page images), elements.jsonl (one line per text) and questions.jsonl,
    in the formats of the render, OCR and data stages."""
    pages, elements = [], []
    for doc_id, texts in DOCS.items():
        rows = []
        for index, text in enumerate(texts):
            image = folder / doc_id / f"page-{index:03d}.png"
            image.parent.mkdir(parents=True, exist_ok=True)
            Image.new("RGB", (64, 36), "white").save(image)
            pages.append(Page(doc_id, index, str(image), 64, 36, 72).to_dict())
            if text:
                rows.append(Element(doc_id, index, "line", text, (0, 0, 60, 10), 0, 90.0).to_dict())
        elements.append({"doc_id": doc_id, "elements": rows})
    files = {
        "pages": folder / "pages.jsonl",
        "elements": folder / "elements.jsonl",
        "questions": folder / "questions.jsonl",
    }
    write_jsonl(files["pages"], pages)
    write_jsonl(files["elements"], elements)
    write_jsonl(files["questions"], (q.to_dict() for q in QUESTIONS))
    return files
