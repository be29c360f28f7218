"""Option checking, and the broken documents asked for with ``corrupt_decks``."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from docqa.core.document import Document
from docqa.core.jsonl import read_jsonl
from docqa.core.question import Question
from docqa.datasets import prepare, resolve_options
from docqa.datasets.synthslides.options import SynthOptions


def test_defaults():
    assert resolve_options("synthslides", {}) == SynthOptions(
        seed=0, decks=6, slides_per_deck=(8, 12), questions_per_deck=10, corrupt_decks=0
    )
    assert resolve_options("synthslides", {"slides_per_deck": [9, 9]}).slides_per_deck == (9, 9)


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"deck": 3}, "deck"),
        ({"decks": "3"}, "decks"),
        ({"decks": True}, "decks"),
        ({"decks": -1}, "decks"),
        ({"slides_per_deck": [9, 8]}, "slides_per_deck"),
        ({"slides_per_deck": [5, 8]}, "slides_per_deck"),
        ({"slides_per_deck": 8}, "slides_per_deck"),
        ({"slides_per_deck": [8, 23]}, "slides_per_deck"),
        ({"slides_per_deck": [8, "9"]}, "slides_per_deck"),
        ({"seed": -1}, "seed"),
        ({"questions_per_deck": 0}, "questions_per_deck"),
    ],
)
def test_bad_options_are_rejected_by_name(options: dict, key: str):
    with pytest.raises(ValueError, match=rf"^options\.{key}\b"):
        resolve_options("synthslides", options)


def test_unknown_option_is_rejected_before_writing(tmp_path: Path):
    with pytest.raises(ValueError, match="'colour'"):
        prepare("synthslides", tmp_path / "out", {"colour": "blue"})
    assert not (tmp_path / "out").exists()


def test_corrupt_documents_are_listed_and_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    prepare(
        "synthslides", Path("data"), {"decks": 0, "corrupt_decks": 4, "slides_per_deck": [6, 6]}
    )
    documents = [Document.from_dict(row) for row in read_jsonl("data/documents.jsonl")]
    questions = [Question.from_dict(row) for row in read_jsonl("data/questions.jsonl")]
    kinds = ["empty", "truncated", "encrypted", "empty"]
    assert [d.doc_id for d in documents] == [f"corrupt{i:03d}-{k}" for i, k in enumerate(kinds)]
    assert [q.tags["corruption"] for q in questions] == kinds
    assert [q.doc_id for q in questions] == [d.doc_id for d in documents]
    assert Path(documents[0].path).stat().st_size == 0
    for document in documents:
        assert document.path == f"data/docs/{document.doc_id}.pdf"
        assert document.num_pages is None
        with pytest.raises(pdfium.PdfiumError):
            pdfium.PdfDocument(document.path)
