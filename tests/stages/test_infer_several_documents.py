"""The infer stage's environment for a question over several documents: the set of its
documents, or, when some have no pages, a failure naming them unless the dataset lets the
question be answered over the others; the prediction's pages named by document."""

from __future__ import annotations

import pytest
from helpers.stage_files import write_stage_files

from docqa.core.document import Document
from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.core.prediction import Prediction
from docqa.core.question import Question, documents_fields
from docqa.methods.store import DocumentStore
from docqa.stages.index import build_indexes
from docqa.stages.infer import over_documents


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> DocumentStore:
    folder = tmp_path_factory.mktemp("stage")
    files = write_stage_files(folder)
    pages = list(read_jsonl(files["pages"]))
    documents = folder / "documents.jsonl"
    write_jsonl(
        documents,
        (Document(d, f"{d}.pdf").to_dict() for d in dict.fromkeys(p["doc_id"] for p in pages)),
    )
    build_indexes({"type": "bm25"}, files["pages"], files["elements"], folder / "index" / "bm25")
    return DocumentStore(
        documents, files["pages"], files["elements"], {"bm25": folder / "index" / "bm25"},
        {"bm25": {"type": "bm25"}},
    )  # fmt: skip


def asked(doc_ids: list[str], missing: str = "fail") -> Question:
    return Question(
        question_id="q",
        question="revenue north",
        answer="120",
        answer_format="Int",
        tags={"missing_documents": missing},
        **documents_fields(doc_ids, [("deck-a", 1)] if "deck-a" in doc_ids else []),
    )


def test_a_question_over_two_documents_gets_one_environment(store: DocumentStore) -> None:
    found = store.question_env(asked(["deck-b", "deck-a"]), ("bm25",))
    assert found.missing == []
    assert found.env is not None
    assert [m.document.doc_id for m in found.env.members] == ["deck-b", "deck-a"]
    assert len(found.env.pages) == 5
    assert found.env.searcher("bm25").search("revenue north", 1) == [3]  # deck-a's page 1
    again = store.question_env(asked(["deck-b", "deck-a"]), ("bm25",))
    assert again.env is found.env  # built once


def test_a_partly_missing_set_fails_unless_the_dataset_allows_it(store: DocumentStore) -> None:
    failed = store.question_env(asked(["deck-a", "lost", "gone"]), ("bm25",))
    assert failed.env is None
    assert failed.missing == ["lost", "gone"]
    answered = store.question_env(asked(["deck-a", "lost"], missing="answer"), ("bm25",))
    assert answered.missing == ["lost"]
    assert answered.env is not None
    assert answered.env.document.doc_id == "deck-a"  # the one document that is there
    nothing = store.question_env(asked(["lost", "gone"], missing="answer"), ("bm25",))
    assert nothing.env is None


def test_the_prediction_names_its_pages_by_document(store: DocumentStore) -> None:
    env = store.question_env(asked(["deck-b", "deck-a"]), ("bm25",)).env
    assert env is not None
    made = Prediction("q", "120", pages=[3, 0], trace=[{"step": "read"}])
    named = over_documents(made, env, ["lost"])
    assert named.pages == []
    assert named.page_refs == [("deck-a", 1), ("deck-b", 0)]
    first = named.trace[0]
    assert first["step"] == "documents"
    assert first["missing"] == ["lost"]
    assert first["documents"][1] == {
        "label": "D2", "doc_id": "deck-a", "first_page": 2, "pages": 3
    }  # fmt: skip
    assert named.trace[1] == {"step": "read"}
