"""A question's page window (LongDocURL's ``start_end_idx``): retrievers rank only its pages,
vanilla reads only its pages, and the score row records it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.docpilot_script import run
from helpers.scripted_backend import ScriptedBackend
from helpers.text_env import text_env

from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv

# the best page for the question by far is page 0, outside the window
TEXTS = [
    "revenue revenue revenue 2020 revenue",
    "staff list",
    "revenue 2020 was 42 million",
    "costs 2020",
    "revenue outlook",
]
WINDOW = [2, 3, 4]
QUESTION = Question(
    "q1",
    "doc",
    "What was the revenue in 2020?",
    "42 million",
    "Str",
    [("doc", 2)],
    page_window=WINDOW,
)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> DocumentEnv:
    return text_env(tmp_path_factory.mktemp("doc"), "doc", TEXTS)


def test_retrieval_ranks_only_the_window(env: DocumentEnv) -> None:
    assert env.searcher("bm25").search(QUESTION.question, 1) == [0]  # outside the window
    windowed = env.within(QUESTION.page_window)
    ranked = windowed.searcher("bm25").search(QUESTION.question, 5)
    assert set(ranked) == set(WINDOW)
    assert ranked[0] == 2
    backend = ScriptedBackend(lambda request: "42 million", identity={"id": "chat"})
    method = create_method({"type": "image_rag", "retriever": "bm25", "top_k": 2})
    prediction = run(method, windowed, backend, QUESTION)
    assert set(prediction.pages) <= set(WINDOW)
    assert len(prediction.pages) == 2


def test_vanilla_reads_only_the_window_in_both_modes(env: DocumentEnv, tmp_path: Path) -> None:
    windowed = env.within(QUESTION.page_window)
    for options in ({"mode": "pages"}, {"mode": "grids", "max_images": 2}):
        backend = ScriptedBackend(lambda request: "42 million", identity={"id": "chat"})
        method = create_method(
            {"type": "vanilla", "images_dir": str(tmp_path / "grids"), **options}
        )
        prediction = run(method, windowed, backend, QUESTION)
        assert prediction.pages == WINDOW
        assert prediction.pages_truncated == 0
        text = backend.requests[0].messages[0].text
        assert "### Page 1\n" not in text
        assert "### Page 3\n" in text or "### Pages 3-4\n" in text


def test_no_window_is_the_whole_document(env: DocumentEnv) -> None:
    assert env.within([]) is env
    assert env.readable == list(range(len(TEXTS)))


def test_a_window_must_be_distinct_pages_in_order() -> None:
    with pytest.raises(ValueError, match="page_window"):
        Question("q", "d", "?", "a", "Str", page_window=[3, 2])
