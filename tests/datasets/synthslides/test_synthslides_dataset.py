"""The default synthslides set: kinds, formats, evidence pages and answers drawn on the slides."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from docqa.core.document import Document
from docqa.core.jsonl import read_jsonl
from docqa.core.question import ANSWER_FORMATS, UNANSWERABLE, Question
from docqa.datasets import prepare
from docqa.datasets.synthslides.questions import KINDS

SOURCES = {"Text", "Chart", "Table", "Layout", "Figure"}


@pytest.fixture(scope="module")
def default_set(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Document], list[Question]]:
    out = tmp_path_factory.mktemp("synthslides")
    prepare("synthslides", out, {})
    documents = [Document.from_dict(row) for row in read_jsonl(out / "documents.jsonl")]
    questions = [Question.from_dict(row) for row in read_jsonl(out / "questions.jsonl")]
    return documents, questions


def _page_texts(document: Document) -> list[str]:
    pdf = pdfium.PdfDocument(document.path)
    return [" ".join(pdf[i].get_textpage().get_text_range().split()) for i in range(len(pdf))]


def test_documents_are_readable_slide_decks(default_set):
    documents, _ = default_set
    assert [d.doc_id for d in documents] == [f"deck{i:03d}" for i in range(6)]
    for document in documents:
        assert document.doc_type == "slides"
        assert Path(document.path).name == f"{document.doc_id}.pdf"
        assert len(pdfium.PdfDocument(document.path)) == document.num_pages
        assert 8 <= document.num_pages <= 12


def test_every_kind_format_and_operation_appears(default_set):
    _, questions = default_set
    assert len(questions) == 60
    assert {q.tags["kind"] for q in questions} == set(KINDS)
    assert {q.answer_format for q in questions} == set(ANSWER_FORMATS)
    operations = {q.tags["operation"] for q in questions if q.tags["kind"] == "arithmetic"}
    assert operations == {"sum", "difference", "ratio", "percentage_change"}


def test_ids_evidence_pages_and_sources(default_set):
    documents, questions = default_set
    pages = {d.doc_id: d.num_pages for d in documents}
    assert len({q.question_id for q in questions}) == len(questions)
    for q in questions:
        assert q.question_id.startswith(f"{q.doc_id}-q")
        assert all(0 <= p < pages[q.doc_id] for p in q.evidence_in(q.doc_id)), q
        assert set(q.tags["evidence_sources"]) <= SOURCES
        if q.answer_format == "List":
            assert isinstance(q.answer, list)
            assert all(isinstance(a, str) for a in q.answer)
        else:
            assert isinstance(q.answer, str)


def test_unanswerable_questions(default_set):
    _, questions = default_set
    for q in questions:
        unanswerable = q.tags["kind"] == "unanswerable"
        assert unanswerable == (q.answer_format == "None") == (q.answer == UNANSWERABLE)
        if unanswerable:
            assert q.evidence == []
            assert q.tags["evidence_sources"] == []
        else:
            assert q.evidence


def test_extractive_answers_are_printed_on_their_evidence_pages(default_set):
    documents, questions = default_set
    texts = {d.doc_id: _page_texts(d) for d in documents}
    checked = 0
    for q in questions:
        if q.tags["kind"] not in ("chart_value", "table_cell"):
            continue
        text = " ".join(texts[q.doc_id][p] for p in q.evidence_in(q.doc_id))
        for answer in q.answer if isinstance(q.answer, list) else [q.answer]:
            assert answer in text, (q.question_id, answer)
            checked += 1
    assert checked >= 12
