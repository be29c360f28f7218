"""Reciprocal rank fusion over the indexes of other retrievers (BM25 and dense text here)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.sample_document import TEXTS

from docqa.retrievers import IndexedPage, create_retriever
from docqa.retrievers.hybrid import component_names

CONFIG = {
    "bm25": {"type": "bm25"},
    "dense": {"type": "dense_text"},
    "hybrid": {"type": "hybrid", "retrievers": ["bm25", "dense"], "rrf_k": 60},
}
QUERIES = ["How many people work in engineering?", "revenue north 2022", "agenda", "zebra"]


@pytest.fixture(scope="module")
def results(document: list[IndexedPage], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """results/index/<retriever>/docs/doc for the three retrievers, as the index stage lays
    them out."""
    root = tmp_path_factory.mktemp("results") / "index"
    for name in ("bm25", "dense"):
        create_retriever(CONFIG[name]).build(document, root / name / "docs" / "doc")
    indexes = {
        name: {"config": CONFIG[name], "docs": str(root / name / "docs")}
        for name in ("bm25", "dense")
    }
    hybrid = create_retriever(CONFIG["hybrid"], indexes=indexes)
    hybrid.build(document, root / "hybrid" / "docs" / "doc")
    return root


def test_the_fused_ranking_is_reciprocal_rank_fusion(results: Path) -> None:
    searchers = [
        create_retriever(CONFIG[name]).load(results / name / "docs" / "doc")
        for name in ("bm25", "dense")
    ]
    fused = create_retriever(CONFIG["hybrid"]).load(results / "hybrid" / "docs" / "doc")
    assert fused.pages == len(TEXTS)
    for query in QUERIES:
        score = [0.0] * len(TEXTS)
        for searcher in searchers:
            for rank, page in enumerate(searcher.search(query, len(TEXTS)), start=1):
                score[page] += 1 / (60 + rank)
        expected = sorted(range(len(TEXTS)), key=lambda page: (-score[page], page))
        assert fused.search(query, 3) == expected[:3], query


def test_queries_prepared_for_a_hybrid_are_encoded_once_for_every_document(
    results: Path,
) -> None:
    shutil.copytree(results / "hybrid" / "docs" / "doc", results / "hybrid" / "docs" / "copy")
    hybrid = create_retriever(CONFIG["hybrid"])
    hybrid.prepare_queries(QUERIES[:2])
    first = hybrid.load(results / "hybrid" / "docs" / "doc")
    second = hybrid.load(results / "hybrid" / "docs" / "copy")
    (dense,) = [c for c in hybrid._components.values() if hasattr(c, "prepare_queries")]
    assert set(dense._query_vectors) == set(QUERIES[:2])  # encoded when the dense was created
    hybrid.prepare_queries(QUERIES[2:3])  # later queries reach the existing component
    assert set(dense._query_vectors) == set(QUERIES[:3])
    unprepared = create_retriever(CONFIG["hybrid"]).load(results / "hybrid" / "docs" / "doc")
    for query in QUERIES:
        assert first.search(query, 5) == second.search(query, 5) == unprepared.search(query, 5)
    assert len(hybrid._components) == 2  # bm25 and dense, shared by both documents


def test_the_results_folder_can_move(results: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(results, moved)
    fused = create_retriever(CONFIG["hybrid"]).load(moved / "hybrid" / "docs" / "doc")
    original = create_retriever(CONFIG["hybrid"]).load(results / "hybrid" / "docs" / "doc")
    assert fused.search(QUERIES[0], 5) == original.search(QUERIES[0], 5)


def test_building_needs_the_fused_indexes(document: list[IndexedPage], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no index given for \\['bm25', 'dense'\\]"):
        create_retriever(CONFIG["hybrid"]).build(document, tmp_path / "doc")
    with pytest.raises(ValueError, match="hybrid.retrievers: list should have at least 2 items"):
        create_retriever({"type": "hybrid", "retrievers": ["bm25"]})
    with pytest.raises(ValueError, match=r"names \['bm25'\] more than once"):
        create_retriever({"type": "hybrid", "retrievers": ["bm25", "dense", "bm25"]})


def test_fused_names_must_be_other_retrievers_of_the_config() -> None:
    assert component_names(CONFIG, "hybrid") == ["bm25", "dense"]
    assert component_names(CONFIG, "bm25") == []
    with pytest.raises(ValueError, match="'colpali', which is not a retriever of the config"):
        component_names({**CONFIG, "h": {"type": "hybrid", "retrievers": ["bm25", "colpali"]}}, "h")
    with pytest.raises(ValueError, match="'h', which is itself"):
        component_names({**CONFIG, "h": {"type": "hybrid", "retrievers": ["bm25", "h"]}}, "h")
