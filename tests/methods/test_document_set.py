"""One environment over several documents: pages numbered end to end, named ``D2:3`` to models
and read back from their replies, located as (document, page); each retriever's pages ranked
over the whole set."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from helpers.text_env import text_env

from docqa.core.element import Element
from docqa.methods.base import DocumentEnv
from docqa.methods.document_set import env_over, legend, member_env
from docqa.retrievers.bm25 import bm25_over
from docqa.retrievers.document_set import MergedSearcher, join_searchers
from docqa.retrievers.hybrid import FusedSearcher

TEXTS = {
    # "tariff" is on every page of the report, so its own index weighs it little
    "report": ["tariff tariff schedule", "tariff annex", "tariff rates for steel"],
    "memo": ["meeting notes", "tariff question from the minister"],
}


def one_document(folder: Path, doc_id: str) -> DocumentEnv:
    """``doc_id`` of TEXTS with a BM25 index, one line element a page and one overview grid."""
    env = text_env(folder, doc_id, TEXTS[doc_id])
    elements = [
        Element(doc_id, index, "line", text, (0, 0, 10, 10), 0, 100.0)
        for index, text in enumerate(TEXTS[doc_id])
    ]
    overview = {
        "doc_id": doc_id,
        "image": f"{doc_id}-grid.png",
        "pages": list(range(len(elements))),
    }
    return replace(env, elements=elements, overviews=[overview])


@pytest.fixture
def envs(tmp_path: Path) -> list[DocumentEnv]:
    return [one_document(tmp_path, "report"), one_document(tmp_path, "memo")]


def test_pages_are_numbered_end_to_end_and_named_by_document(envs: list[DocumentEnv]) -> None:
    env = env_over(envs)
    assert env.is_set
    assert len(env.pages) == 5
    assert env.page_texts[3] == "meeting notes"
    assert [env.page_label(page) for page in range(5)] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert env.locate(4) == ("memo", 1)
    assert env.source(3) == (envs[1].document, 0)
    assert env.pages_of([("memo", 1), ("report", 0), ("memo", 9), ("other", 0)]) == [4, 0]
    assert [e.page for e in env.elements] == [0, 1, 2, 3, 4]
    assert [row["pages"] for row in env.overviews] == [[0, 1, 2], [3, 4]]
    assert env.document.doc_id == "report+memo"
    assert legend(env) == "D1: report (3 pages)\nD2: memo (2 pages)\n"
    # one document keeps its plain numbers
    assert envs[0].page_label(2) == "3"
    assert envs[0].source(2) == (envs[0].document, 2)


def test_a_member_is_its_own_document_again(envs: list[DocumentEnv]) -> None:
    env = env_over(envs)
    memo = member_env(env, env.members[1])
    assert memo.page_texts == TEXTS["memo"]
    assert [e.page for e in memo.elements] == [0, 1]
    assert memo.overviews == envs[1].overviews
    assert not memo.is_set


def test_page_references_in_replies_are_read_by_document(envs: list[DocumentEnv]) -> None:
    env = env_over(envs)
    assert env.read_page_labels("Pages: D2:1, D1:3") == [3, 2]
    assert env.read_page_labels("see D1 p. 2 and d2 page 2") == [1, 4]
    assert env.read_page_labels("D1:2-3 then D1:3") == [1, 2]
    # a bare number is ambiguous in a set; pages past a document's end do not exist
    assert env.read_page_labels("page 2, D2:7, D3:1") == []
    assert envs[0].read_page_labels("p. 3 and 1-2, 9") == [2, 0, 1]


def test_bm25_ranks_the_set_as_one_collection(envs: list[DocumentEnv]) -> None:
    joined = env_over(envs).searcher("bm25")
    assert joined.pages == 5
    ranked = joined.search("tariff minister", 5)
    # over the set, "tariff" is common (4 of 5 pages) and "minister" rare: the memo page leads
    assert ranked[0] == 4
    expected = bm25_over([t for d in ("report", "memo") for t in TEXTS[d]], 1.5, 0.75)
    assert ranked == expected.search("tariff minister", 5)


def test_scores_of_one_model_are_merged_across_documents(envs: list[DocumentEnv]) -> None:
    merged = MergedSearcher([env.searchers["bm25"] for env in envs])
    scores = merged.page_scores("tariff")
    assert len(scores) == 5
    assert list(scores[3:]) == list(envs[1].searchers["bm25"].page_scores("tariff"))
    order = merged.search("tariff", 5)
    assert set(order) == set(range(5))
    assert [float(scores[page]) for page in order] == sorted(scores.tolist(), reverse=True)


def test_a_hybrid_is_joined_component_by_component(envs: list[DocumentEnv]) -> None:
    fused = [
        FusedSearcher([env.searchers["bm25"], env.searchers["bm25"]], 60, len(env.pages))
        for env in envs
    ]
    texts = [env.page_texts for env in envs]
    joined = join_searchers(fused, texts)
    assert isinstance(joined, FusedSearcher)
    assert joined.pages == 5
    assert joined.search("tariff minister", 1) == [4]


def test_a_set_needs_two_whole_documents(envs: list[DocumentEnv]) -> None:
    with pytest.raises(ValueError, match="two or more"):
        env_over(envs[:1])
    with pytest.raises(ValueError, match="whole"):
        env_over([envs[0].within([0]), envs[1]])
