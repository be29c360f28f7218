"""MADQA over the real PDFs of tests/data/madqa_mini: each question over all its evidence
documents (the "relevant documents provided" setting), and their conversion."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from docqa.core.failures import read_failures
from docqa.core.jsonl import read_jsonl
from docqa.core.question import Question
from docqa.datasets import prepare, resolve_options
from docqa.datasets.madqa import MADQAOptions, read

MINI = Path(__file__).resolve().parents[1] / "data" / "madqa_mini"
REGISTER = "federal-register-2020-17221"
SCOTUS = "scotus-transcript-p1"
CRAZY = "local_crazyones"
VICKSBURG = "local_vicksburg"
NICS = "nics-background-checks-2015-11-rotated"


def convert(out: Path, **options: object) -> dict[str, Question]:
    prepare("madqa", out, {"root": str(MINI), **options})
    return {q.question_id: q for q in map(Question.from_dict, read_jsonl(out / "questions.jsonl"))}


def test_every_evidence_document_is_a_document_of_the_question() -> None:
    loaded = read(MINI, MADQAOptions())
    assert not loaded.skipped
    questions = {q.question_id: q for q in loaded.questions}
    assert len(questions) == 7

    single = questions["mini-single"]  # one document: a plain one-document question
    assert (single.doc_id, single.doc_ids, single.evidence_in(single.doc_id)) == (SCOTUS, [], [0])
    assert single.answer == "07-1315"
    assert single.tags["answer_variants"] == ["07-1315", "No. 07-1315"]

    pages = questions["mini-cross-page"]
    assert (pages.doc_ids, pages.evidence_in(pages.doc_id)) == ([], [0, 14])

    two = questions["mini-two-docs"]
    assert (two.doc_id, two.doc_ids) == (SCOTUS, [SCOTUS, REGISTER])
    assert two.evidence == [(SCOTUS, 0), (REGISTER, 1)]

    three = questions["mini-three-docs"]
    assert three.doc_ids == [CRAZY, SCOTUS, VICKSBURG]
    assert three.evidence == [(CRAZY, 0), (SCOTUS, 0), (VICKSBURG, 3)]
    assert (three.answer_format, three.answer) == (
        "List",
        ["October 14, 1998", "January 13, 2009", "June 14"],
    )

    repeated = questions["mini-repeated-doc"]  # the register named twice counts once
    assert repeated.documents == [REGISTER, CRAZY]
    assert repeated.evidence == [(REGISTER, 1), (CRAZY, 0)]

    assert questions["mini-partly-missing"].documents == [REGISTER, NICS]
    # MADQA's hop types, its evaluation's X-Page / X-Doc groups
    kinds = {qid: q.tags["kind"] for qid, q in questions.items()}
    assert kinds == {
        "mini-single": "single",
        "mini-cross-page": "cross_page",
        "mini-two-docs": "cross_doc",
        "mini-three-docs": "cross_doc",
        "mini-repeated-doc": "cross_doc",
        "mini-partly-missing": "cross_doc",
        "mini-missing": "single",
    }
    assert {q.tags["documents_setting"] for q in questions.values()} == {"evidence"}
    assert "documents" not in repeated.tags  # doc_ids replaced the old tag
    assert repeated.original["evidence"][2] == {"document": f"{REGISTER}.pdf", "page": 2}


def test_only_the_evidence_setting_is_offered(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="options.documents: must be one of 'evidence'"):
        resolve_options("madqa", {"documents": "collection"})
    assert "whole-collection protocol" in MADQAOptions.model_fields["documents"].description
    with pytest.raises(ValueError, match="options.missing_documents: must be one of 'fail' or"):
        convert(tmp_path / "a", missing_documents="skip")
    with pytest.raises(ValueError, match="did you mean .documents.*missing_documents"):
        convert(tmp_path / "b", documnets="evidence")


def test_conversion_writes_every_document_once_and_keeps_partly_missing(tmp_path: Path) -> None:
    out = tmp_path / "madqa"
    questions = convert(out)

    documents = [row["doc_id"] for row in read_jsonl(out / "documents.jsonl")]
    assert sorted(documents) == sorted([REGISTER, SCOTUS, CRAZY, VICKSBURG])  # each once
    register = pdfium.PdfDocument(out / "docs" / f"{REGISTER}.pdf")  # a link to the real file
    assert len(register) == 15
    register.close()
    failures = read_failures(out / "failures.jsonl")
    assert [f.doc_id for f in failures] == [NICS]  # named by two questions, tried once
    assert "missing from the download" in failures[0].error

    # the question over NICS alone is dropped; the one over NICS and the register is kept
    assert "mini-missing" not in questions
    assert len(questions) == 6
    partly = questions["mini-partly-missing"]
    assert partly.doc_ids == [REGISTER, NICS]
    assert partly.tags["missing_documents"] == "fail"
    assert questions["mini-two-docs"].tags["missing_documents"] == "fail"
    assert "missing_documents" not in questions["mini-single"].tags  # one document: no choice
    assert questions["mini-three-docs"].tags["documents_setting"] == "evidence"

    answered = convert(tmp_path / "answer", missing_documents="answer")
    assert answered["mini-partly-missing"].tags["missing_documents"] == "answer"


def test_max_pages_checks_the_evidence_in_every_document(tmp_path: Path) -> None:
    out = tmp_path / "madqa"
    questions = convert(out, max_pages=2)

    # the register's page 15, and Vicksburg's page 4 behind a first document that fits
    assert sorted(questions) == [
        "mini-partly-missing",
        "mini-repeated-doc",
        "mini-single",
        "mini-two-docs",
    ]
    pages = {row["doc_id"]: row["num_pages"] for row in read_jsonl(out / "documents.jsonl")}
    assert (pages[REGISTER], pages[VICKSBURG]) == (2, 2)
