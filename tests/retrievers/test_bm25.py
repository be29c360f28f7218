from __future__ import annotations

from pathlib import Path

from docqa.retrievers import RETRIEVERS, load_retrievers

PAGES = [
    "Quarterly Review\nAgenda",
    "Revenue by Region 2023\nNorth 120 South 95",
    "Revenue by Region 2022\nNorth 101 South 90",
    "Hiring plan\nEngineering 42 Design 9",
    "",
]


def searcher(tmp_path: Path):
    load_retrievers()
    retriever = RETRIEVERS.get("bm25")()
    retriever.build(PAGES, tmp_path / "doc")
    return retriever.load(tmp_path / "doc")


def test_ranks_the_matching_page_first(tmp_path: Path) -> None:
    index = searcher(tmp_path)
    assert index.search("How many people work in engineering?", 1) == [3]
    assert index.search("revenue by region", 2) == [1, 2]  # ties keep page order


def test_k_is_capped_by_the_page_count_and_unknown_words_fall_back(tmp_path: Path) -> None:
    index = searcher(tmp_path)
    assert sorted(index.search("revenue", 50)) == list(range(len(PAGES)))
    assert index.search("zebra", 2) == [0, 1]


def test_a_document_without_text_still_answers(tmp_path: Path) -> None:
    load_retrievers()
    retriever = RETRIEVERS.get("bm25")()
    retriever.build(["", ""], tmp_path / "empty")
    assert retriever.load(tmp_path / "empty").search("anything", 1) == [0]
