"""Image RAG (M3DocRAG): the top-k pages of a tiny random ColPali / ColQwen2 index, shown best
first; and a page without OCR text: retrievable by its image, an empty string for text
retrievers, a placeholder for a text-only model."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.docpilot_script import ScriptedReplies, run
from helpers.sample_document import NO_TEXT_PAGE, TEXTS, draw_document
from helpers.scripted_backend import text_of
from helpers.stage_files import write_stage_files
from helpers.tiny_encoders import tiny_colpali, tiny_colqwen2

from docqa.core.document import Document, Page
from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv
from docqa.methods.mdocagent.requests import NO_OCR_TEXT
from docqa.retrievers import create_retriever
from docqa.stages.index import build_indexes, load_indexed_pages
from docqa.text.page_texts import load_page_texts

BUILDERS = {"colpali": tiny_colpali, "colqwen2": tiny_colqwen2}
QUESTION = Question("q1", "doc", "Revenue by region in 2023?", "120", "Int", [("doc", 1)])


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def indexed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The five-page sample document, its environment with a tiny random page-image index, and
    the retriever's name."""
    kind = request.param
    folder = tmp_path_factory.mktemp(kind)
    pages = draw_document(folder / "pages")
    retriever = create_retriever({"type": kind, "model": str(BUILDERS[kind](folder / "model"))})
    retriever.build(pages, folder / "index")
    env = DocumentEnv(
        Document("doc", "doc.pdf", len(pages)),
        [Page("doc", i, str(p.image), 320, 180, 72) for i, p in enumerate(pages)],
        [p.text for p in pages],
        {kind: retriever.load(folder / "index")},
    )
    return env, kind


def test_the_top_k_pages_go_to_the_model_best_first(indexed) -> None:
    env, kind = indexed
    backend = ScriptedReplies([" 120\n"], sees_images=True)
    prediction = run(
        create_method({"type": "image_rag", "retriever": kind, "top_k": 2}), env, backend, QUESTION
    )
    ranked = env.searcher(kind).search(QUESTION.question, 2)
    assert prediction.answer == "120"
    assert prediction.pages == ranked
    assert prediction.trace[0] == {"step": "retrieve", "retriever": kind, "pages": ranked}
    assert backend.requests[0].images == [env.pages[page].image for page in ranked]
    text = text_of(backend.requests[0].as_text_only())
    # rindex: the few-shot examples before the pages have page headings of their own
    assert text.rindex(f"### Page {ranked[0] + 1}\n") < text.rindex(f"### Page {ranked[1] + 1}\n")


def test_a_page_without_text_is_retrieved_by_its_image_and_read_as_a_placeholder(indexed) -> None:
    env, kind = indexed
    assert env.page_texts[NO_TEXT_PAGE] == ""
    backend = ScriptedReplies(["x"])  # text-only
    method = create_method({"type": "image_rag", "retriever": kind, "top_k": len(TEXTS)})
    prediction = run(method, env, backend, QUESTION)
    assert NO_TEXT_PAGE in prediction.pages
    text = text_of(backend.requests[0])
    shown = text.split(f"### Page {NO_TEXT_PAGE + 1}\n")[-1]
    assert shown.startswith(f"[image shown as its OCR text]\n{NO_OCR_TEXT}\n")
    assert prediction.usage.calls == 1


def test_through_the_index_stage_a_textless_page_is_empty_text_and_still_ranked(
    tmp_path: Path,
) -> None:
    """The index stage's files: deck-b's second page has no OCR line at all."""
    files = write_stage_files(tmp_path)
    assert load_page_texts(files["elements"], files["pages"])["deck-b"] == ["Travel policy", ""]
    assert [p.text for p in load_indexed_pages(files["pages"], files["elements"])["deck-b"]] == [
        "Travel policy",
        "",
    ]
    entry = {"type": "colpali", "model": str(tiny_colpali(tmp_path / "colpali"))}
    build_indexes(entry, files["pages"], files["elements"], tmp_path / "colpali-index")
    searcher = create_retriever(entry).load(tmp_path / "colpali-index" / "deck-b")
    assert sorted(searcher.search("What does the travel policy say?", 2)) == [0, 1]
    build_indexes({"type": "bm25"}, files["pages"], files["elements"], tmp_path / "bm25-index")
    bm25 = create_retriever({"type": "bm25"}).load(tmp_path / "bm25-index" / "deck-b")
    assert bm25.search("What does the travel policy say?", 2) == [0, 1]  # the empty page last


@pytest.mark.parametrize("method", ["image_rag", "text_rag"])
def test_bad_top_k_is_an_error(method: str) -> None:
    with pytest.raises(ValueError, match=rf"{method}\.top_k: must be at least 1 \(got 0\)"):
        create_method({"type": method, "top_k": 0})
