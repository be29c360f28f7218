from __future__ import annotations

from pathlib import Path

from helpers.sample_document import NO_TEXT_PAGE, TEXTS

from docqa.retrievers import IndexedPage, create_retriever
from docqa.retrievers.bm25 import BM25Searcher


def searcher(pages: list[IndexedPage], folder: Path) -> BM25Searcher:
    retriever = create_retriever({"type": "bm25"})
    retriever.build(pages, folder)
    return retriever.load(folder)


def test_ranks_the_matching_page_first(document: list[IndexedPage], tmp_path: Path) -> None:
    index = searcher(document, tmp_path / "doc")
    assert index.search("How many people work in engineering?", 1) == [3]
    assert index.search("revenue by region", 2) == [1, 2]  # ties keep page order


def test_k_is_capped_by_the_page_count_and_unknown_words_fall_back(
    document: list[IndexedPage], tmp_path: Path
) -> None:
    index = searcher(document, tmp_path / "doc")
    assert sorted(index.search("revenue", 50)) == list(range(len(TEXTS)))
    assert index.search("zebra", 2) == [0, 1]
    assert index.search("revenue", 0) == []


def test_a_page_without_text_is_an_empty_page(document: list[IndexedPage], tmp_path: Path) -> None:
    ranking = searcher(document, tmp_path / "doc").search("hiring revenue agenda", len(TEXTS))
    assert ranking[-1] == NO_TEXT_PAGE


def test_a_document_without_text_still_answers(document: list[IndexedPage], tmp_path: Path) -> None:
    blank = [IndexedPage("", page.image) for page in document[:2]]
    assert searcher(blank, tmp_path / "empty").search("anything", 1) == [0]
