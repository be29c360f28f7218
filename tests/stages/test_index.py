"""The index stage: pages and OCR text to per-document indexes, recall@k, and the rule wiring;
and (slow) BM25 and dense recall on the default synthslides decks through render and OCR."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.stage_files import write_stage_files
from helpers.workflow import default_config, snakemake, workflow_copy

from docqa.core.question import Question, documents_fields
from docqa.stages.index import build_indexes, evaluate_recall, load_indexed_pages


def test_pages_reach_retrievers_with_their_text_and_image(tmp_path: Path) -> None:
    files = write_stage_files(tmp_path)
    documents = load_indexed_pages(files["pages"], files["elements"])
    assert [page.text for page in documents["deck-b"]] == ["Travel policy", ""]
    assert documents["deck-a"][2].image == tmp_path / "deck-a" / "page-002.png"


def test_bm25_indexes_and_recall(tmp_path: Path) -> None:
    files = write_stage_files(tmp_path)
    docs = tmp_path / "index" / "bm25" / "docs"
    build_indexes({"type": "bm25"}, files["pages"], files["elements"], docs)
    assert sorted(path.name for path in docs.iterdir()) == ["deck-a", "deck-b"]
    result = evaluate_recall("bm25", {"type": "bm25"}, files["questions"], docs)
    assert result["retriever"] == "bm25"
    assert result["questions"] == 3
    # q1, q2 found first; q3 finds its text page first and its no-text page second
    assert result["recall"][:2] == pytest.approx([100 * (1 + 1 + 0.5) / 3, 100.0], abs=0.01)
    assert result["random"][0] == pytest.approx(100 * (1 / 3 + 1 / 3 + 1 / 2) / 3, abs=0.01)


def test_recall_searches_each_document_of_a_question_over_several(tmp_path: Path) -> None:
    files = write_stage_files(tmp_path)
    docs = tmp_path / "index" / "bm25" / "docs"
    build_indexes({"type": "bm25"}, files["pages"], files["elements"], docs)
    both = Question(
        question_id="q5",
        question="What was the revenue in the north, and what does the travel policy say?",
        answer="120; x",
        answer_format="Str",
        **documents_fields(["deck-a", "deck-b"], [("deck-a", 1), ("deck-b", 0)]),
    )
    with files["questions"].open("a") as handle:
        handle.write(json.dumps(both.to_dict()) + "\n")
    result = evaluate_recall("bm25", {"type": "bm25"}, files["questions"], docs)
    # q1-q3 as above, and q5 once in deck-a (page 1) and once in deck-b (page 0)
    assert result["questions"] == 5
    assert result["recall"][0] == pytest.approx(100 * (1 + 1 + 0.5 + 1 + 1) / 5, abs=0.01)


def test_a_hybrid_reuses_the_indexes_it_fuses(tmp_path: Path) -> None:
    files = write_stage_files(tmp_path)
    root = tmp_path / "index"
    config = {"bm25": {"type": "bm25"}, "bm25_flat": {"type": "bm25", "b": 0.0}}
    for name, entry in config.items():
        build_indexes(entry, files["pages"], files["elements"], root / name / "docs")
    hybrid = {"type": "hybrid", "retrievers": ["bm25", "bm25_flat"]}
    indexes = {
        name: {"config": entry, "docs": str(root / name / "docs")} for name, entry in config.items()
    }
    build_indexes(
        {**hybrid, "indexes": indexes}, files["pages"], files["elements"], root / "hybrid" / "docs"
    )
    assert {p.name for p in (root / "hybrid" / "docs" / "deck-a").iterdir()} == {"pages.json"}
    result = evaluate_recall("hybrid", hybrid, files["questions"], root / "hybrid" / "docs")
    assert result["retriever"] == "hybrid"
    assert result["recall"][0] == pytest.approx(83.33)


def planned_jobs(output: str) -> dict[str, str]:
    """Each job's text in a dry run's output, by its wildcards line."""
    blocks = output.split("rule ")[1:]
    return {
        next(
            (line.strip() for line in block.splitlines() if "wildcards:" in line), block[:20]
        ): block
        for block in blocks
    }


def test_the_dag_builds_each_index_once_and_a_hybrid_after_what_it_fuses(tmp_path: Path) -> None:
    config = default_config()
    config["retrievers"]["dense"] = {"type": "dense_text"}
    config["retrievers"]["hybrid"] = {"type": "hybrid", "retrievers": ["bm25", "dense"]}
    config["methods"]["text_rag_hybrid"] = {"type": "text_rag", "retriever": "hybrid"}
    config["methods"]["text_rag_dense"] = {"type": "text_rag", "retriever": "dense"}
    config["experiments"][0]["methods"] += ["text_rag_hybrid", "text_rag_dense"]
    result = snakemake(workflow_copy(tmp_path, config), "-n")
    assert result.returncode == 0, result.stderr[-3000:]
    jobs = planned_jobs(result.stdout)
    index_jobs = [key for key, block in jobs.items() if block.startswith("build_index:")]
    assert sorted(index_jobs) == [
        f"wildcards: dataset=synthslides, retriever={name}" for name in ("bm25", "dense", "hybrid")
    ]
    hybrid = jobs["wildcards: dataset=synthslides, retriever=hybrid"]
    inputs = next(line for line in hybrid.splitlines() if line.strip().startswith("input:"))
    for name in ("bm25", "dense"):
        assert f"results/index/synthslides/{name}/docs" in inputs


@pytest.mark.slow
def test_bm25_and_dense_recall_on_the_default_decks(tmp_path: Path) -> None:
    """The default synthslides (6 decks, seed 0), rendered and read as the pipeline does."""
    from docqa.datasets import prepare
    from docqa.stages.render import render_dataset
    from docqa.stages.text import text_dataset

    config = default_config()
    data, pages = tmp_path / "data", tmp_path / "pages"
    prepare("synthslides", data, config["datasets"]["synthslides"]["options"])
    render_dataset(data / "documents.jsonl", pages, dpi=config["render"]["dpi"])
    elements = tmp_path / "text" / "elements.jsonl"
    text_dataset(
        data / "documents.jsonl",
        pages / "pages.jsonl",
        elements,
        workers=os.cpu_count() or 1,
        source=config["text"]["source"],
        psm=config["text"]["psm"],
        lang=config["text"]["lang"],
    )
    recall = {}
    retrievers = {"bm25": config["retrievers"]["bm25"], "dense": {"type": "dense_text"}}
    for name, entry in retrievers.items():
        docs = tmp_path / "index" / name / "docs"
        build_indexes(entry, pages / "pages.jsonl", elements, docs)
        recall[name] = evaluate_recall(name, entry, data / "questions.jsonl", docs)
    bm25, dense = recall["bm25"], recall["dense"]
    assert bm25["questions"] >= 40
    assert bm25["recall"][3] >= 80.0, bm25  # recall@4, percent
    for result in (bm25, dense):
        assert result["recall"][0] >= result["random"][0] + 30, result
        assert result["recall"][3] >= result["random"][3] + 30, result
