"""Questions over several documents, for real: MADQA's layout in miniature over real PDFs
(tests/data/madqa_mini: public-domain and BSD-licensed files, none made by docqa) through the
whole DAG with every method on a tiny random VLM. Each question over several documents is
answered in one environment over its documents; its predicted pages and its score rows name the
document of every page; a question whose documents are partly missing fails naming them, or,
where the dataset allows it, is answered over the others."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.tiny_encoders import tiny_colpali
from helpers.tiny_models import build_tiny_vlm, tiny_model_entry
from helpers.workflow import default_config, snakemake, workflow_copy

pytestmark = pytest.mark.slow

MINI = Path(__file__).resolve().parent / "data" / "madqa_mini"
MODEL = "tiny-qwen2.5-vl"
METHODS: dict[str, dict[str, Any]] = {
    "vanilla_set": {"type": "vanilla", "mode": "pages", "max_pages": 4, "max_new_tokens": 8},
    "text_rag_set": {"type": "text_rag", "retriever": "bm25", "top_k": 2, "max_new_tokens": 8},
    "image_rag_set": {
        "type": "image_rag", "retriever": "colpali", "top_k": 2, "max_new_tokens": 8
    },
    "mdocagent_set": {
        "type": "mdocagent",
        "text_retriever": "bm25",
        "image_retriever": "colpali",
        "top_k": 1,
        "max_new_tokens": 8,
    },
    "slideagent_set": {
        "type": "slideagent",
        "retriever": "bm25",
        "top_k": 2,
        "single_image": True,
        "answer_tokens": 8,
        "subquery_tokens": 16,
        "classifier_tokens": 4,
    },
    "docpilot_set": {"type": "docpilot", "max_steps": 3, "orchestrator_tokens": 24},
    "oracle_pages": {"type": "oracle_pages", "max_new_tokens": 8},
}  # fmt: skip
#: questions over several documents in the fixture, and their documents in order
SETS = {
    "mini-two-docs": ["scotus-transcript-p1", "federal-register-2020-17221"],
    "mini-three-docs": ["local_crazyones", "scotus-transcript-p1", "local_vicksburg"],
    "mini-repeated-doc": ["federal-register-2020-17221", "local_crazyones"],
}
PARTLY_MISSING = "mini-partly-missing"
NICS = "nics-background-checks-2015-11-rotated"


def config_for(models: Path) -> dict[str, Any]:
    config = default_config()
    dataset = {"adapter": "madqa", "options": {"root": str(MINI)}, "metric": "madqa"}
    config["datasets"] = {
        "mini": dataset,
        "mini_partial": {**dataset, "options": {"root": str(MINI), "missing_documents": "answer"}},
    }
    config["models"] = {MODEL: tiny_model_entry(build_tiny_vlm("qwen2_5_vl", models / "vlm"))}
    colpali = {
        "type": "colpali",
        "model": str(tiny_colpali(models / "colpali")),
        "device": "cpu",
        "dtype": "float32",
        "attn_implementation": "eager",
    }
    config["retrievers"] = {"bm25": {"type": "bm25"}, "colpali": colpali}
    config["methods"] = METHODS
    config["metrics"] = {"madqa": {}}  # MADQA's ANLS* accuracy, citation F1s and hop types
    config["experiments"] = [
        {"datasets": ["mini"], "methods": list(METHODS), "models": [MODEL]},
        {"datasets": ["mini_partial"], "methods": ["text_rag_set"], "models": [MODEL]},
    ]
    return config


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("several")
    work = workflow_copy(base, config_for(base / "models"))
    result = snakemake(work, timeout=2400)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return work


def predictions(work: Path, dataset: str, method: str) -> dict[str, dict[str, Any]]:
    path = work / "results" / "runs" / dataset / method / MODEL / "predictions.jsonl"
    return {row["question_id"]: row for row in map(json.loads, path.read_text().splitlines())}


def score_rows(work: Path, dataset: str, method: str) -> dict[str, dict[str, Any]]:
    path = work / "results" / "scores" / dataset / method / f"{MODEL}.json"
    return {row["question_id"]: row for row in json.loads(path.read_text())["per_question"]}


def test_every_method_answers_over_the_documents_and_names_them(finished_run: Path) -> None:
    for method in METHODS:
        rows = predictions(finished_run, "mini", method)
        assert "mini-missing" not in rows  # its only document is missing: dropped at conversion
        for question_id, documents in SETS.items():
            row = rows[question_id]
            assert row["error"] == "", (method, question_id, row["error"])
            assert row["pages"] == []
            named = {doc for doc, _ in row.get("page_refs", [])}
            assert named <= set(documents), (method, row)
            # a random model writes no valid DocPilot action, so DocPilot reads no page here
            # (tests/methods/docpilot/test_docpilot_document_set.py plays a set through it)
            assert named or method == "docpilot_set", (method, row)
            listed = row["trace"][0]
            assert listed["step"] == "documents"
            assert [d["doc_id"] for d in listed["documents"]] == documents
            assert [d["label"] for d in listed["documents"]] == [
                f"D{n}" for n in range(1, len(documents) + 1)
            ]
        assert rows["mini-single"]["error"] == ""
        assert "page_refs" not in rows["mini-single"]  # one document: pages as before


def test_a_partly_missing_set_fails_naming_the_missing_document(finished_run: Path) -> None:
    for method in METHODS:
        row = predictions(finished_run, "mini", method)[PARTLY_MISSING]
        assert row["error_kind"] == "document"
        assert NICS in row["error"]
        assert "missing documents" in row["error"]


def test_the_dataset_option_answers_a_partly_missing_set_over_the_others(
    finished_run: Path,
) -> None:
    row = predictions(finished_run, "mini_partial", "text_rag_set")[PARTLY_MISSING]
    assert row["error"] == ""
    assert row["trace"][0]["missing"] == [NICS]
    assert {doc for doc, _ in row["page_refs"]} == {"federal-register-2020-17221"}


def test_scores_compare_pages_by_document(finished_run: Path) -> None:
    oracle = score_rows(finished_run, "mini", "oracle_pages")
    for question_id, documents in SETS.items():
        row = oracle[question_id]
        assert row["doc_ids"] == documents
        assert row["pages_used"] == row["evidence"]  # the oracle reads exactly the gold pages
        assert row["page_recall"] == 1.0
        assert row["page_precision"] == 1.0
        assert row["tags"]["documents_setting"] == "evidence"
        assert row["citation_page_f1"] == 1.0  # MADQA's Page F1, on (document, page) pairs
        assert row["citation_doc_f1"] == 1.0
    # the evidence pairs are the fixture's (1-based p2 of the register, p1 of the transcript)
    assert oracle["mini-two-docs"]["evidence"] == [
        ["scotus-transcript-p1", 0],
        ["federal-register-2020-17221", 1],
    ]
    # a method that reads other pages is scored on the pairs too: the same page number of the
    # wrong document is no hit
    vanilla = score_rows(finished_run, "mini", "vanilla_set")["mini-three-docs"]
    hits = {tuple(ref) for ref in vanilla["pages_used"]} & {
        tuple(ref) for ref in vanilla["evidence"]
    }
    assert vanilla["page_recall"] == round(len(hits) / len(vanilla["evidence"]), 4)  # as written


def test_madqa_scores_its_hop_types(finished_run: Path) -> None:
    path = finished_run / "results" / "scores" / "mini" / "oracle_pages" / f"{MODEL}.json"
    scores = json.loads(path.read_text())
    assert scores["documents"] == {"over_several": 4, "setting": ["evidence"], "missing": ["fail"]}
    aggregate = scores["aggregate"]
    assert aggregate["x_doc_questions"] == 4  # the three sets and the partly missing one
    assert aggregate["x_page_questions"] == 1
    assert aggregate["citation_page_f1"] == pytest.approx(100 * 5 / 6, abs=0.01)  # one failed
    assert set(scores["breakdown"]["hop_type"]) == {"single", "cross_page", "cross_doc"}


def test_vanilla_reads_the_set_in_document_order_up_to_its_cap(finished_run: Path) -> None:
    row = predictions(finished_run, "mini", "vanilla_set")["mini-repeated-doc"]
    # the register (15 pages) first, then crazyones: the first four pages, the rest counted
    assert row["page_refs"] == [["federal-register-2020-17221", page] for page in range(4)]
    assert row["pages_truncated"] == 15 + 1 - 4
