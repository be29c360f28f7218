from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers.sample_document import NO_TEXT_PAGE, TEXTS

from docqa.retrievers import IndexedPage, create_retriever
from docqa.retrievers.bm25 import BM25Searcher, bm25_over
from docqa.retrievers.document_set import join_searchers


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


def test_a_rebuild_without_text_leaves_no_earlier_index(
    document: list[IndexedPage], tmp_path: Path
) -> None:
    assert searcher(document, tmp_path / "doc").search("engineering", 1) == [3]
    blank = [IndexedPage("", page.image) for page in document]
    assert searcher(blank, tmp_path / "doc").search("engineering", 1) == [0]  # page order


def long_page_with_one_answer() -> tuple[list[str], str]:
    """Four pages: the answer sits in one sentence of a 600-word page, while a short page
    repeats one of the question's words; ranked whole, the short page wins."""
    rng = random.Random(0)
    vocabulary = [f"w{i}" for i in range(300)]

    def filler(words: int) -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(words))

    answer = f"{filler(300)} Ten yoke of oxen hauled the siege guns to the fort. {filler(300)}"
    short = f"The guns on the hill fired at dawn; the guns were loud and many. {filler(20)}"
    return [filler(200), short, answer, filler(200)], "How many yoke of oxen hauled the guns?"


def test_a_page_scores_as_its_best_passage(document: list[IndexedPage], tmp_path: Path) -> None:
    texts, question = long_page_with_one_answer()
    pages = [IndexedPage(text, page.image) for text, page in zip(texts, document, strict=False)]
    whole = create_retriever({"type": "bm25"})
    whole.build(pages, tmp_path / "whole")
    assert whole.load(tmp_path / "whole").search(question, 1) == [1]
    passages = create_retriever({"type": "bm25", "passage_words": 60})
    passages.build(pages, tmp_path / "passages")
    searcher = passages.load(tmp_path / "passages")
    assert searcher.search(question, 2) == [2, 1]
    # the same ranking from an index built in memory, as a document set joins its documents
    assert bm25_over(texts, searcher.k1, searcher.b, 60).search(question, 2) == [2, 1]


def test_an_index_of_passages_is_not_read_as_whole_pages(
    document: list[IndexedPage], tmp_path: Path
) -> None:
    create_retriever({"type": "bm25", "passage_words": 60}).build(document, tmp_path / "index")
    with pytest.raises(ValueError, match="passage_words=60 but is loaded with passage_words=None"):
        create_retriever({"type": "bm25"}).load(tmp_path / "index")


def test_a_document_set_keeps_the_passages(document: list[IndexedPage], tmp_path: Path) -> None:
    texts, question = long_page_with_one_answer()
    retriever = create_retriever({"type": "bm25", "passage_words": 60})
    searchers = []
    for n, part in enumerate((texts[:2], texts[2:])):
        pages = [IndexedPage(text, document[0].image) for text in part]
        retriever.build(pages, tmp_path / str(n))
        searchers.append(retriever.load(tmp_path / str(n)))
    assert join_searchers(searchers, [texts[:2], texts[2:]]).search(question, 1) == [2]
