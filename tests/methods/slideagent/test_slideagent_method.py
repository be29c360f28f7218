"""SlideAgent against a scripted backend: each query class routes to its levels, each ablation
takes its part away, each unusable reply has its counted fallback, and the evaluation settings
(oracle pages, one concatenated image) change what the page reader sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.scripted_backend import text_of
from helpers.slideagent_script import QUESTION, SlideScript, ask, step
from PIL import Image

from docqa.core.document import Page
from docqa.core.prediction import Prediction
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv
from docqa.methods.errors import classify
from docqa.methods.partial import PartialAnswer
from docqa.methods.slideagent import SlideAgent, SlideAgentOptions, prompts
from docqa.methods.slideagent.knowledge import write_knowledge
from docqa.report.traces import render_trace_html

QUESTION_AGENTS = ("classifier", "subqueries", "read_global", "read_page", "read_element")


def recorded_failure(method: SlideAgent, env: DocumentEnv, backend: SlideScript) -> Prediction:
    """What the infer stage records of a question the method fails: the method raises, carrying
    its trace so far, and the runner's classification (docqa.methods.errors) makes the row."""
    with pytest.raises(PartialAnswer) as raised:
        ask(method, env, backend)
    return classify(raised.value).prediction(QUESTION.question_id)


def question_agents(backend: SlideScript) -> list[str]:
    return [agent for agent in backend.agents() if agent in (*QUESTION_AGENTS, "synthesizer")]


@pytest.mark.parametrize(
    ("reply", "query_type", "readers"),
    [
        (" global", "global", ["read_global"]),
        (" factual", "factual", ["read_page", "read_element"]),
        (" multi-hop", "multi-hop", ["read_global", "read_page", "read_element"]),
        (
            " Multi hop, it needs two pages",
            "multi-hop",
            ["read_global", "read_page", "read_element"],
        ),
        (" layout", "layout", ["read_element"]),
        (" ambiguous", "ambiguous", ["read_global", "read_page", "read_element"]),
    ],
)
def test_each_query_class_activates_its_levels(
    indexed: DocumentEnv, reply: str, query_type: str, readers: list[str]
) -> None:
    backend = SlideScript({"classifier": reply})
    prediction = ask(SlideAgent(SlideAgentOptions()), indexed, backend)
    assert question_agents(backend) == ["classifier", "subqueries", *readers, "synthesizer"]
    classified = step(prediction, "classifier")
    assert classified["query_type"] == query_type
    assert prediction.answer == "77"
    assert prediction.usage.fallbacks == 0
    assert prediction.error == ""
    # the pages a reader was shown: none when only the global knowledge was read
    assert bool(prediction.pages) == (readers != ["read_global"])


def test_an_unparseable_classification_uses_every_level_and_is_counted(
    indexed: DocumentEnv,
) -> None:
    backend = SlideScript({"classifier": " I think it is about money"})
    prediction = ask(SlideAgent(SlideAgentOptions()), indexed, backend)
    assert question_agents(backend)[2:5] == ["read_global", "read_page", "read_element"]
    assert step(prediction, "classifier")["fallbacks"] == ["classifier_unparsed"]
    assert prediction.usage.fallbacks == 1
    assert prediction.trace[-1]["fallbacks"] == ["classifier_unparsed"]


def test_the_knowledge_is_built_once_per_document_and_conditions_each_page(
    indexed: DocumentEnv,
) -> None:
    backend = SlideScript({"page": lambda request: f" knowledge {len(text_of(request))}"})
    method = SlideAgent(SlideAgentOptions())
    ask(method, indexed, backend)
    ask(method, indexed, backend)
    pages = backend.requests_of("page")
    assert len(backend.requests_of("global")) == 1
    assert len(pages) == len(indexed.pages)
    assert [image for r in backend.requests_of("global") for image in r.images] == [
        page.image for page in indexed.pages[:3]
    ]
    knowledge = method._knowledge["acme"]
    for number, request in enumerate(pages):
        shown = text_of(request)
        assert "An annual report of Acme" in shown  # the global draft
        assert request.images == [indexed.pages[number].image]
        if number:
            assert f"Previous page knowledge: {knowledge.pages[number - 1]}" in shown
    assert knowledge.global_knowledge.startswith("Acme's 2023 annual report")  # refined
    chart = [e for e in knowledge.elements if e.page == 3 and e.kind in ("chart", "figure")]
    assert chart, knowledge.elements


def test_sub_queries_join_the_retrieval_and_find_the_chart_page(indexed: DocumentEnv) -> None:
    backend = SlideScript()
    prediction = ask(SlideAgent(SlideAgentOptions(top_k=2)), indexed, backend)
    retrieved = step(prediction, "retrieve")
    assert retrieved["queries"] == [QUESTION.question, "orders Q3", "quarterly orders chart"]
    assert retrieved["pages"][0] == 3
    assert len(retrieved["pages"]) == 2
    assert retrieved["elements"]
    assert all(e["page"] in retrieved["pages"] for e in retrieved["elements"])
    page_reader = backend.requests_of("read_page")[0]
    assert page_reader.images == [indexed.pages[p].image for p in retrieved["pages"]]
    assert prediction.pages == retrieved["pages"]


def test_unparseable_sub_queries_leave_the_original_query_alone(indexed: DocumentEnv) -> None:
    prediction = ask(SlideAgent(SlideAgentOptions()), indexed, SlideScript({"subqueries": "\n\n"}))
    assert step(prediction, "retrieve")["queries"] == [QUESTION.question]
    assert step(prediction, "subqueries")["fallbacks"] == ["subqueries_unparsed"]
    assert prediction.usage.fallbacks == 1
    assert prediction.answer == "77"


def test_an_empty_synthesis_falls_back_to_the_last_level_answer(indexed: DocumentEnv) -> None:
    prediction = ask(SlideAgent(SlideAgentOptions()), indexed, SlideScript({"synthesizer": "  \n"}))
    assert prediction.answer == "77 orders"  # the element level's answer
    assert step(prediction, "synthesizer")["fallbacks"] == ["empty_answer"]
    assert prediction.usage.fallbacks == 1


def test_knowledge_replies_that_need_fallbacks_are_counted(indexed: DocumentEnv) -> None:
    # E1 described, E2 a copy of the prompt's example, any further element left out
    copying = f" Title only.\nE2: {prompts.ELEMENT_EXAMPLES[1]}"
    backend = SlideScript({"global": "", "page": "", "refine": "", "element": copying})
    method = SlideAgent(SlideAgentOptions())
    prediction = ask(method, indexed, backend)
    knowledge = method._knowledge["acme"]
    assert knowledge.global_knowledge.startswith("Acme Annual Report")  # the pages' OCR text
    assert knowledge.pages[1].startswith("Revenue by Region")
    assert knowledge.fallbacks["empty_global"] == 1
    assert knowledge.fallbacks["empty_refine"] == 1
    assert knowledge.fallbacks["empty_page"] == len(indexed.pages)
    orders = [e for e in knowledge.elements if e.order == 1]
    assert orders
    assert knowledge.fallbacks["element_description_copied"] == len(orders)
    beyond = [e for e in knowledge.elements if e.order >= 2]
    assert knowledge.fallbacks.get("element_description_missing", 0) == len(beyond)
    for element in knowledge.elements:
        if element.order == 0:
            assert element.description == "Title only."
        else:  # the fallback: kind and OCR text
            assert element.description.startswith(element.kind)
            assert prompts.ELEMENT_EXAMPLES[1] not in element.description
    assert step(prediction, "knowledge")["build_fallbacks"] == knowledge.fallbacks


@pytest.mark.parametrize(
    ("ablation", "classified", "agents"),
    [
        ("without_global", " multi-hop", ["subqueries", "read_page", "read_element"]),
        ("without_page", " multi-hop", ["subqueries", "read_global", "read_element"]),
        ("without_element", " multi-hop", ["subqueries", "read_global", "read_page"]),
        ("without_subqueries", " multi-hop", ["read_global", "read_page", "read_element"]),
        # every level of the type left out: the levels the variant has
        ("without_global", " global", ["subqueries", "read_page", "read_element"]),
        ("without_element", " layout", ["subqueries", "read_global", "read_page"]),
    ],
)
def test_each_ablation_takes_its_part_away(
    indexed: DocumentEnv, ablation: str, classified: str, agents: list[str]
) -> None:
    backend = SlideScript({"classifier": classified})
    prediction = ask(SlideAgent(SlideAgentOptions(ablation=ablation)), indexed, backend)
    assert question_agents(backend) == ["classifier", *agents, "synthesizer"]
    if ablation == "without_subqueries":
        assert step(prediction, "retrieve")["queries"] == [QUESTION.question]
    assert prediction.answer == "77"
    assert prediction.error == ""


def test_the_oracle_setting_reads_the_gold_pages_without_a_retriever(acme: DocumentEnv) -> None:
    backend = SlideScript()
    method = SlideAgent(SlideAgentOptions(setting="oracle"))
    assert method.retrievers == ()
    prediction = ask(method, acme, backend)  # acme has no index at all
    assert step(prediction, "retrieve")["pages"] == [3] == prediction.pages
    assert backend.requests_of("read_page")[0].images == [acme.pages[3].image]


def test_a_single_image_model_gets_the_top_pages_as_one_image(
    indexed: DocumentEnv, tmp_path: Path
) -> None:
    backend = SlideScript(sees_images=True)
    prediction = ask(
        SlideAgent(SlideAgentOptions(single_image=True, grids_dir=str(tmp_path))), indexed, backend
    )
    pages = step(prediction, "retrieve")["pages"]
    [grid] = backend.requests_of("read_page")[0].images
    first = indexed.pages[0]
    with Image.open(grid) as image:  # three pages in a 2 x 2 grid of page-sized cells
        assert image.size == (2 * first.width, 2 * first.height)
    assert len(pages) == 3
    assert step(prediction, "read_page")["images"] == [grid]
    text_only = SlideScript()
    ask(
        SlideAgent(SlideAgentOptions(single_image=True, grids_dir=str(tmp_path))),
        indexed,
        text_only,
    )
    shown = text_of(text_only.requests_of("read_page")[0])
    assert all(f"[page {p + 1}]" in shown for p in pages)


def test_a_prebuilt_knowledge_base_is_read_not_rebuilt(
    indexed: DocumentEnv, tmp_path: Path
) -> None:
    builder = SlideAgent(SlideAgentOptions())
    ask(builder, indexed, SlideScript())
    write_knowledge(tmp_path, builder._knowledge["acme"])
    backend = SlideScript()
    prediction = ask(SlideAgent(SlideAgentOptions(knowledge_dir=str(tmp_path))), indexed, backend)
    assert not {"global", "page", "element", "refine"} & set(backend.agents())
    assert step(prediction, "knowledge")["source"] == str(tmp_path)
    assert prediction.answer == "77"


def test_a_missing_or_stale_knowledge_base_is_a_clear_error(
    indexed: DocumentEnv, tmp_path: Path
) -> None:
    missing = recorded_failure(
        SlideAgent(SlideAgentOptions(knowledge_dir=str(tmp_path))), indexed, SlideScript()
    )
    assert "no knowledge base for document 'acme'" in missing.error
    assert "build_knowledge" in missing.error
    assert missing.answer == ""
    builder = SlideAgent(SlideAgentOptions())
    ask(builder, indexed, SlideScript())
    knowledge = builder._knowledge["acme"]
    knowledge.pages = knowledge.pages[:2]
    write_knowledge(tmp_path, knowledge)
    stale = recorded_failure(
        SlideAgent(SlideAgentOptions(knowledge_dir=str(tmp_path))), indexed, SlideScript()
    )
    assert "has 2 pages, the document 6" in stale.error


def test_a_failed_model_call_ends_the_question_with_its_trace(indexed: DocumentEnv) -> None:
    backend = SlideScript({"read_page": RuntimeError("GPU fell over")})
    prediction = recorded_failure(SlideAgent(SlideAgentOptions()), indexed, backend)
    assert prediction.error == "RuntimeError: GPU fell over"
    assert prediction.error_kind == "input"
    assert prediction.answer == ""
    assert prediction.trace[-1]["step"] == "result"
    assert step(prediction, "retrieve")["pages"]


def test_the_trace_renders_as_html(indexed: DocumentEnv, tmp_path: Path) -> None:
    prediction = ask(SlideAgent(SlideAgentOptions()), indexed, SlideScript({"classifier": "?"}))
    pages = [Page.from_dict(page.to_dict()) for page in indexed.pages]
    html = render_trace_html(prediction, QUESTION, pages, tmp_path / "q.html").read_text()
    for shown in ("classifier", "retrieve", "synthesizer", "classifier_unparsed", "data:image"):
        assert shown in html


def test_the_method_is_built_from_a_minimal_config_and_refuses_bad_options() -> None:
    method = create_method({"type": "slideagent", "retriever": "bm25"})
    assert isinstance(method, SlideAgent)
    assert method.retrievers == ("bm25",)
    for bad, named in (
        ({"ablation": "without_everything"}, "without_everything"),
        ({"setting": "gold"}, "gold"),
        ({"top_k": 0}, "top_k"),
    ):
        with pytest.raises(ValueError, match=named):
            create_method({"type": "slideagent", **bad})


def test_the_synthesizer_can_leave_not_answerable_out(indexed: DocumentEnv) -> None:
    """SlideVQA has no unanswerable question: its config turns the option off."""
    offered, plain = SlideScript(), SlideScript()
    ask(SlideAgent(SlideAgentOptions()), indexed, offered)
    ask(SlideAgent(SlideAgentOptions(not_answerable=False)), indexed, plain)
    assert "Not answerable" in text_of(offered.requests_of("synthesizer")[0])
    assert "Not answerable" not in text_of(plain.requests_of("synthesizer")[0])


@pytest.mark.parametrize("ranking", ["knowledge", "both"])
def test_pages_rank_by_their_knowledge_text(
    indexed: DocumentEnv, tmp_path: Path, ranking: str
) -> None:
    from docqa.methods.slideagent.knowledge_index import page_texts
    from docqa.methods.slideagent.retrieval import retrieve_pages
    from docqa.retrievers import IndexedPage, create_retriever

    method = SlideAgent(
        SlideAgentOptions(
            top_k=2,
            page_ranking=ranking,
            knowledge_index={"type": "bm25"},
            knowledge_index_dir=str(tmp_path / "kindex"),
        )
    )
    assert method.retrievers == (() if ranking == "knowledge" else ("bm25",))
    prediction = ask(method, indexed, SlideScript())
    retrieved = step(prediction, "retrieve")
    assert "knowledge text (bm25)" in retrieved["retriever"]
    knowledge = method._knowledge[indexed.document.doc_id]
    texts = page_texts(knowledge)
    assert knowledge.pages[3] in texts[3]
    assert knowledge.global_knowledge in texts[0]
    # the same ranking from an index built here over the same texts
    own = create_retriever({"type": "bm25"})
    own.build(
        [IndexedPage(t, Path(p.image)) for t, p in zip(texts, indexed.pages, strict=True)],
        tmp_path / "own",
    )
    searchers = [own.load(tmp_path / "own")]
    if ranking == "both":
        searchers.insert(0, indexed.searcher("bm25"))
    assert retrieved["pages"] == retrieve_pages(searchers, retrieved["queries"], 2)


def test_knowledge_ranking_needs_a_knowledge_index() -> None:
    with pytest.raises(ValueError, match="knowledge_index"):
        SlideAgent(SlideAgentOptions(page_ranking="knowledge"))
