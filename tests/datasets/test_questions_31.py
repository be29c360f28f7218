"""The question set of issue 31 (tests/data/real_pdfs/questions-31.jsonl): the local adapter's
format, at least 40 questions, and every answer quoted from the text of its evidence page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pypdfium2 as pdfium

REAL = Path(__file__).resolve().parents[1] / "data" / "real_pdfs"


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def test_every_answer_is_quoted_from_its_evidence_page() -> None:
    questions = [json.loads(line) for line in (REAL / "questions-31.jsonl").open()]
    assert len(questions) >= 40
    assert len({q["id"] for q in questions}) == len(questions)
    licences = (REAL / "LICENSES-31.md").read_text()
    for q in questions:
        assert set(q) == {"id", "question", "document", "answer", "evidence_pages", "kind"}
        assert f"`{q['document']}`" in licences  # its licence is noted
        pdf = pdfium.PdfDocument(REAL / q["document"])
        texts = [pdf[page - 1].get_textpage().get_text_range() for page in q["evidence_pages"]]
        assert any(normalise(q["answer"]) in normalise(text) for text in texts), q["id"]
        pdf.close()
