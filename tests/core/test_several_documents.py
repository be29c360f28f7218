"""A question over several documents in the data model: its documents each once, its evidence
as (document, page) pairs, rows that say so; a one-document question's row is unchanged."""

from __future__ import annotations

import pytest

from docqa.core.prediction import Prediction
from docqa.core.question import Question, documents_fields


def question(doc_ids: list[str], evidence: list[tuple[str, int]], **extra: object) -> Question:
    return Question(
        question_id="q",
        question="Which is larger?",
        answer="a",
        answer_format="Str",
        **documents_fields(doc_ids, evidence),
        **extra,  # type: ignore[arg-type]
    )


def test_a_document_listed_twice_counts_once() -> None:
    asked = question(["b", "a", "b"], [("a", 2), ("b", 0), ("b", 0)])
    assert asked.documents == ["b", "a"]
    assert asked.doc_id == "b"
    assert asked.over_several
    assert asked.evidence == [("b", 0), ("a", 2)]  # in document order, each once
    row = asked.to_dict()
    assert (row["evidence_pages"], row["evidence_refs"]) == ([], [("b", 0), ("a", 2)])


def test_one_document_listed_twice_is_a_plain_question() -> None:
    asked = Question(
        question_id="q",
        doc_id="a",
        question="?",
        answer="x",
        answer_format="Str",
        doc_ids=["a", "a"],
        evidence=[("a", 2)],
    )
    assert not asked.over_several
    assert asked.evidence_in("a") == [2]


def test_one_document_is_a_plain_question_with_its_old_row() -> None:
    asked = question(["a", "a"], [("a", 3), ("a", 1)])
    assert not asked.over_several
    assert asked.evidence == [("a", 1), ("a", 3)]
    row = asked.to_dict()
    assert list(row)[4:7] == ["answer_format", "evidence_pages", "tags"]
    assert row["evidence_pages"] == [1, 3]
    assert "doc_ids" not in row
    assert "evidence_refs" not in row
    assert Question.from_dict(row) == asked


def test_the_row_round_trips_through_json_lists() -> None:
    asked = question(["a", "b"], [("b", 4)])
    row = asked.to_dict()
    assert row["doc_ids"] == ["a", "b"]
    again = Question.from_dict({**row, "evidence_refs": [["b", 4]]})  # as JSON gives it back
    assert again == asked


def test_evidence_in_a_document_not_asked_about_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\['c'\] that are not among"):
        documents_fields(["a", "b"], [("c", 0)])


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"doc_id": "a", "evidence": [("b", 1)]}, r"names documents \['b'\], but"),
        ({"doc_id": "b", "doc_ids": ["a", "b"]}, "doc_id .* first"),
        ({"doc_id": "a", "doc_ids": ["a", "b"], "page_window": [1]}, "no page_window"),
        ({"doc_id": "a", "doc_ids": ["a", "b"], "evidence": [("c", 0)]}, "strays"),
        ({"doc_id": "a", "doc_ids": ["a", "b"], "evidence": [("a", -1)]}, "0-based"),
    ],
)
def test_inconsistent_documents_are_refused(fields: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Question(question_id="q", question="?", answer="a", answer_format="Str", **fields)


def test_a_prediction_names_its_pages_by_document() -> None:
    answered = Prediction("q", "a", page_refs=[("b", 1), ("a", 0)])
    row = answered.to_dict()
    assert row["page_refs"] == [("b", 1), ("a", 0)]
    assert Prediction.from_dict({**row, "page_refs": [["b", 1], ["a", 0]]}) == answered
    assert answered.locations("a") == [("b", 1), ("a", 0)]
    single = Prediction("q", "a", pages=[2, 0])
    assert "page_refs" not in single.to_dict()
    assert single.locations("a") == [("a", 2), ("a", 0)]


def test_a_one_document_row_keeps_its_page_indices_in_their_order() -> None:
    row = {
        "question_id": "q",
        "doc_id": "a",
        "question": "?",
        "answer": "x",
        "answer_format": "Str",
        "evidence_pages": [3, 1],
        "tags": {},
        "original": {},
        "page_window": [],
    }
    asked = Question.from_dict(row)
    assert asked.evidence == [("a", 3), ("a", 1)]
    assert asked.to_dict() == row
    assert list(asked.to_dict()) == list(row)


def test_a_row_gives_no_evidence_field_of_its_own() -> None:
    with pytest.raises(ValueError, match="evidence_pages .* or evidence_refs"):
        Question.from_dict(
            {
                "question_id": "q",
                "doc_id": "a",
                "question": "?",
                "answer": "x",
                "answer_format": "Str",
                "evidence": [["a", 1]],
            }
        )
