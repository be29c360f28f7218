"""No silent truncation: a page longer than a method's text budget is read as its passages that
bear on the question (docqa.methods.page_passages), the trace step lists the pages cut
(``text_cut``) and the score file counts them. The real case: a three-column Federal Register
page of 9,400 characters whose answer lies 4,000 characters in, far past the 1,500 the reading
methods read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.docpilot_script import ScriptedReplies, run
from helpers.scripted_backend import text_of
from helpers.text_env import text_env
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.core.jsonl import write_jsonl
from docqa.core.question import Question
from docqa.core.trace import pages_cut
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv
from docqa.methods.page_passages import GAP, PageTexts, fit_page
from docqa.stages.render import render_dataset
from docqa.stages.score import score_run
from docqa.stages.text import text_dataset
from docqa.text.page_texts import load_page_texts

REGISTER = Path(__file__).parents[1] / "data" / "real_pdfs" / "federal-register-2020-17221.pdf"
BUDGET = 1500  # max_chars_per_page's default
# question fr-01 of tests/data/real_pdfs/questions-15.jsonl, answered on page 2 (index 1)
DIED = Question(
    "fr-01",
    "register",
    "How many people died in the Ethiopian Airlines Flight 302 accident?",
    "157 fatalities",
    "Str",
    [("register", 1)],
)
ANSWER_LINE = "resulting in 157 fatalities"


def filler(words: int, start: int = 0) -> str:
    return " ".join(f"word{i % 97}" for i in range(start, start + words))


def test_a_page_that_fits_is_read_whole_and_not_reported() -> None:
    fit = fit_page("Revenue 2020: 42 million\nCosts: 17", "revenue?", 40)
    assert fit.text == "Revenue 2020: 42 million\nCosts: 17"
    assert not fit.cut
    texts = PageTexts("revenue?", 40)
    assert texts.read(0, "short") == "short"
    assert texts.trace() == {}


def test_a_long_page_is_read_as_the_passages_that_answer_in_page_order() -> None:
    page = f"{filler(400)} The launch date was 12 March 2031. {filler(400, 7)} Ending remark."
    fit = fit_page(page, "When was the launch date?", 500)
    assert len(fit.text) <= 500
    assert "The launch date was 12 March 2031." in fit.text
    assert not fit.text.startswith(page[:50])  # not the page's start
    assert fit.cut
    spans = list(fit.spans)
    assert spans == sorted(spans)
    assert fit.text == GAP.lstrip("\n") + GAP.join(page[s:e] for s, e in spans) + GAP.rstrip("\n")
    record = fit.record(4)
    assert record["page"] == 4
    assert record["chars"] == len(page)
    assert record["left_out"] == len(page) - sum(e - s for s, e in spans)


def test_without_a_shared_term_the_page_start_is_read_and_the_cut_marked() -> None:
    page = filler(600)
    fit = fit_page(page, "zebra?", 300)
    assert fit.spans[0][0] == 0
    assert fit.text.endswith("[...]")
    assert page.startswith(fit.text.removesuffix("\n[...]"))


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab cd\nef1 2"), max_size=3000),
    st.text(alphabet=st.sampled_from("abcdef12 "), max_size=30),
    st.integers(min_value=1, max_value=900),
)
def test_what_is_read_never_exceeds_the_budget_and_comes_from_the_page(
    page: str, question: str, budget: int
) -> None:
    fit = fit_page(page, question, budget)
    assert len(fit.text) <= budget
    for start, end in fit.spans:
        assert page[start:end] in fit.text
    assert fit.cut == (sum(e - s for s, e in fit.spans) < len(page))


def test_a_page_of_white_space_reads_as_nothing_and_nothing_cut() -> None:
    fit = fit_page(" \n" * 400, "anything?", 100)
    assert (fit.text, fit.cut) == ("", False)


@pytest.fixture(scope="module")
def register(tmp_path_factory: pytest.TempPathFactory) -> DocumentEnv:
    """The Federal Register rule's pages as the pipeline reads them (render, text stage from
    the PDF's text layer), with a BM25 index over them."""
    root = tmp_path_factory.mktemp("register")
    documents = root / "documents.jsonl"
    write_jsonl(documents, [{"doc_id": "register", "path": str(REGISTER)}])
    render_dataset(documents, root / "pages", dpi=40, thumb_width=32)
    elements = root / "text" / "elements.jsonl"
    text_dataset(documents, root / "pages" / "pages.jsonl", elements, workers=1, source="pdf")
    texts = load_page_texts(elements, root / "pages" / "pages.jsonl")["register"]
    return text_env(root / "env", "register", texts)


def test_the_passages_hold_the_answers_of_the_register_questions(register: DocumentEnv) -> None:
    """The 34 questions on the rule (questions-15.jsonl, answers quoted from its pages): the
    answer's text is in what oracle_pages reads of the gold pages for 30 of them with the
    passages, for 8 with each page's first 1,500 characters (docs/methods.md quotes both)."""
    rows = [json.loads(line) for line in (REGISTER.parent / "questions-15.jsonl").open()]
    rows = [row for row in rows if row["doc_id"] == REGISTER.stem]
    flat = [" ".join(text.split()) for text in register.page_texts]

    def found(read: list[str], answer: str) -> bool:
        return any(" ".join(answer.split()) in " ".join(text.split()) for text in read)

    assert len(rows) == 34
    assert all(found([flat[p] for p in row["evidence_pages"]], row["answer"]) for row in rows)
    start = [
        found([register.page_texts[p][:BUDGET] for p in row["evidence_pages"]], row["answer"])
        for row in rows
    ]
    passages = [
        found(
            [
                fit_page(register.page_texts[p], row["question"], BUDGET).text
                for p in row["evidence_pages"]
            ],
            row["answer"],
        )  # fmt: skip
        for row in rows
    ]
    assert (sum(start), sum(passages)) == (8, 30), "docs/methods.md quotes 8 and 30"


@pytest.mark.parametrize("method", ["text_rag", "oracle_pages"])
def test_the_answer_past_the_budget_reaches_the_model_and_the_cut_is_traced(
    register: DocumentEnv, method: str, tmp_path: Path
) -> None:
    page = register.page_texts[1]
    assert len(page) > 4 * BUDGET
    assert ANSWER_LINE in page
    assert ANSWER_LINE not in page[:BUDGET]  # what the reading methods read before
    backend = ScriptedReplies([" 157\n"])
    options = {"top_k": 1} if method == "text_rag" else {}
    prediction = run(create_method({"type": method, **options}), register, backend, DIED)
    assert prediction.pages == [1]
    assert ANSWER_LINE in text_of(backend.requests[0])
    (cut,) = prediction.trace[-1]["text_cut"]
    assert cut["page"] == 1
    assert cut["chars"] == len(page)
    assert 0 < cut["left_out"] < len(page) - BUDGET + 50  # the budget is used up
    assert any(start > BUDGET for start, _ in cut["read"])
    # the score file counts the page cut
    questions, predictions = tmp_path / "questions.jsonl", tmp_path / "predictions.jsonl"
    write_jsonl(questions, [DIED.to_dict()])
    write_jsonl(predictions, [json.loads(json.dumps(prediction.to_dict()))])
    meta = {"dataset": "register", "method": method, "model": "scripted"}
    assert score_run(questions, predictions, "slideagent", {}, meta)["summary"]["pages_cut"] == 1


def test_vanilla_image_rag_and_mdocagent_read_and_trace_the_passages_too(
    register: DocumentEnv,
) -> None:
    """The text-only reading of page images (vanilla, image_rag) and MDocAgent's page texts go
    through the same passages; a model that sees the images, or a budget that the whole page
    fits, leaves no trace of a cut."""
    cases = [
        ({"type": "vanilla"}, [" 157\n"]),
        ({"type": "image_rag", "retriever": "bm25", "top_k": 1}, [" 157\n"]),
        (
            {"type": "mdocagent", "top_k": 1, "max_chars_per_page": BUDGET},
            ["157", "text: fatalities\nimage: none", "157", "157", "157"],
        ),
    ]
    for options, replies in cases:
        backend = ScriptedReplies(replies)
        prediction = run(create_method(options), register, backend, DIED)
        assert any(ANSWER_LINE in text_of(r) for r in backend.requests), options["type"]
        cut = [step for step in prediction.trace if "text_cut" in step]
        assert cut, options["type"]
        assert 1 in {c["page"] for step in cut for c in step["text_cut"]}
    sees = ScriptedReplies([" 157\n"], sees_images=True)  # reads the images, not their text
    prediction = run(create_method({"type": "vanilla"}), register, sees, DIED)
    assert pages_cut(prediction.trace) == 0
    whole = ScriptedReplies([" 157\n"])
    prediction = run(create_method({"type": "oracle_pages", "max_chars_per_page": 10**5}),
                     register, whole, DIED)  # fmt: skip
    assert pages_cut(prediction.trace) == 0
    assert "text_cut" not in prediction.trace[-1]
