"""MDocAgent against scripted models: the order of the calls, what each agent receives, every
fallback and every ablation.

``AgentScript`` is a real backend: it tells the agent from its prompt, answers with that agent's
scripted reply and logs every request, in one log shared by the VLM and the text model.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from helpers.text_env import FixedRanking
from helpers.workflow import default_config
from PIL import Image

from docqa.backends.base import Backend, Completion
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Part
from docqa.core.document import Document, Page
from docqa.core.prediction import Prediction, Usage
from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv, Models
from docqa.methods.errors import classify
from docqa.methods.mdocagent import prompts
from docqa.methods.mdocagent.method import MDocAgent
from docqa.methods.mdocagent.requests import NO_OCR_TEXT
from docqa.methods.partial import PartialAnswer
from docqa.report.traces import render_trace_html

PAGE_TEXTS = [
    "Acme Corp\nAnnual review",
    "Revenue\n2020: 42 million\n2021: 50 million",
    "Costs\r\n2020: 17 million",
    "",  # a chart without any text
]
QUESTION = Question(
    "q1", "deck", "What was the revenue in 2020?", "42 million", "Str", [("deck", 1)]
)

CLEAN = {
    "general": "The revenue in 2020 was 42 million.",
    "critical": '{"text": "revenue 2020", "image": "revenue chart"}',
    "text": "42 million",
    "image": "The chart shows 42 million.",
    "summarizer": '{"Answer": "42 million"}',
}


def agent_of(request: ChatRequest) -> str:
    """Which agent sent ``request``, from the prompt of its last message."""
    last = request.messages[-1].text
    if last == prompts.CRITICAL:
        return "critical"
    for agent, prompt in (
        ("summarizer", prompts.SUMMARIZER),
        ("general", prompts.GENERAL),
        ("text", prompts.TEXT),
        ("image", prompts.IMAGE),
    ):
        if prompt in last:
            return agent
    raise AssertionError(f"no agent's prompt in {last!r}")


class AgentScript(Backend):
    """Replies with ``replies[agent]``; an exception there is raised instead."""

    def __init__(self, name: str, replies: dict[str, Any], log: list[tuple[str, str, Any]]):
        self.name = name
        self.replies = replies
        self.log = log

    @property
    def identity(self) -> dict[str, Any]:
        return {"id": self.name}

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        completions = []
        for request in requests:
            agent = agent_of(request)
            self.log.append((agent, self.name, request))
            reply = self.replies[agent]
            if isinstance(reply, Exception):
                raise reply
            usage = Usage(calls=1, tokens_in=len(request.messages), tokens_out=len(reply))
            completions.append(Completion(reply, usage))
        return completions


@pytest.fixture
def env(tmp_path: Path) -> DocumentEnv:
    pages = []
    for index in range(len(PAGE_TEXTS)):
        image, thumb = tmp_path / f"page-{index}.png", tmp_path / f"thumb-{index}.png"
        Image.new("RGB", (40, 30), "white").save(image)
        Image.new("RGB", (20, 15), "white").save(thumb)
        pages.append(Page("deck", index, str(image), 40, 30, 72, str(thumb)))
    searchers = {
        "words": FixedRanking([1, 2, 0, 3], len(PAGE_TEXTS)),
        "pictures": FixedRanking([2, 3, 1, 0], len(PAGE_TEXTS)),
    }
    return DocumentEnv(Document("deck", "deck.pdf", 4), pages, PAGE_TEXTS, searchers)


def method(**options: Any) -> MDocAgent:
    config = {"type": "mdocagent", "text_retriever": "words", "image_retriever": "pictures"}
    built = create_method({**config, "top_k": 2, **options})
    assert isinstance(built, MDocAgent)
    return built


def ask(
    env: DocumentEnv,
    replies: dict[str, Any] | None = None,
    text_replies: dict[str, Any] | None = None,
    log: list[tuple[str, str, Any]] | None = None,
    **options: Any,
) -> tuple[Prediction, list[tuple[str, str, ChatRequest]]]:
    """Run the method with a scripted VLM (and a separate scripted text model if
    ``text_replies`` is given); the prediction and the shared log of (agent, model, request),
    which goes to ``log`` when one is given."""
    log = [] if log is None else log
    vlm = AgentScript("vlm", {**CLEAN, **(replies or {})}, log)
    text = AgentScript("llm", {**CLEAN, **text_replies}, log) if text_replies is not None else None

    async def run() -> Prediction:
        models = Models(ModelClient(vlm), {"text": ModelClient(text)} if text else {})
        try:
            return await method(**options).answer(QUESTION, env, models)
        finally:
            for client in (models.main, *models.roles.values()):
                await client.close()

    return asyncio.run(run()), log


def requests_of(log: list[tuple[str, str, ChatRequest]]) -> dict[str, ChatRequest]:
    return {agent: request for agent, _, request in log}


def texts(*pages: int) -> list[str]:
    return [PAGE_TEXTS[p].replace("\r\n", " ").replace("\n", " ") for p in pages]


def test_the_five_agents_run_in_the_original_order_on_their_models(env: DocumentEnv) -> None:
    prediction, log = ask(env, text_replies={})
    assert [(agent, model) for agent, model, _ in log] == [
        ("general", "vlm"),
        ("critical", "vlm"),
        ("text", "llm"),
        ("image", "vlm"),
        ("summarizer", "vlm"),
    ]
    assert prediction.answer == "42 million"
    assert not prediction.error
    assert prediction.usage.calls == 5
    assert prediction.usage.fallbacks == 0
    assert prediction.usage.tokens_out == sum(len(reply) for reply in CLEAN.values())
    assert prediction.pages == [1, 2, 3]  # text pages 1, 2 then image pages 2, 3


def test_the_general_agent_gets_texts_then_images_each_with_the_question(env: DocumentEnv) -> None:
    _, log = ask(env)
    general = requests_of(log)["general"]
    ask_part = Part.of_text(prompts.GENERAL + QUESTION.question)
    by_text, by_image = general.messages
    assert (by_text.role, by_image.role) == ("user", "user")
    assert by_text.parts == (*(Part.of_text(t + "\n") for t in texts(1, 2)), ask_part)
    assert by_image.parts == (
        Part.of_image(env.pages[2].image, PAGE_TEXTS[2]),
        Part.of_image(env.pages[3].image, NO_OCR_TEXT),  # the page without text
        ask_part,
    )
    assert general.generation.max_new_tokens == 256
    assert general.generation.temperature == 0


def test_the_critical_agent_continues_the_general_conversation(env: DocumentEnv) -> None:
    _, log = ask(env)
    sent = requests_of(log)
    critical = sent["critical"]
    assert critical.messages[:2] == sent["general"].messages
    assert [m.role for m in critical.messages] == ["user", "user", "assistant", "user"]
    assert critical.messages[2].text == CLEAN["general"]
    assert critical.messages[3].text == prompts.CRITICAL  # no system prompt, no question


def test_the_text_and_image_agents_get_their_pages_and_their_clue(env: DocumentEnv) -> None:
    _, log = ask(env)
    sent = requests_of(log)
    (text_message,) = sent["text"].messages
    assert text_message.text == (
        "".join(t + "\n" for t in texts(1, 2))
        + "\n"
        + prompts.TEXT
        + QUESTION.question
        + prompts.CLUE_INTRO
        + "revenue 2020"
    )
    assert not sent["text"].images
    (image_message,) = sent["image"].messages
    assert sent["image"].images == [env.pages[2].image, env.pages[3].image]
    assert image_message.text == (
        prompts.IMAGE + QUESTION.question + prompts.CLUE_INTRO + "revenue chart"
    )


def test_the_summarizer_sees_the_answers_but_not_the_question(env: DocumentEnv) -> None:
    _, log = ask(env)
    summary = requests_of(log)["summarizer"]
    assert summary.messages[0].text == prompts.SUMMARIZER + (
        f"General Agent:\n{CLEAN['general']}\n"
        f"Text Agent:\n{CLEAN['text']}\n"
        f"Image Agent:\n{CLEAN['image']}\n"
    )
    assert QUESTION.question not in summary.messages[0].text
    assert not summary.images

    _, log = ask(env, summarizer_sees_question=True)
    shown = requests_of(log)["summarizer"].messages[0].text
    assert shown.startswith(prompts.SUMMARIZER + f"Question: {QUESTION.question}\nGeneral Agent:")


def test_one_model_serves_every_agent_by_default(env: DocumentEnv) -> None:
    _, log = ask(env)
    assert {model for _, model, _ in log} == {"vlm"}


def test_the_trace_has_each_agents_input_output_pages_and_usage(env: DocumentEnv) -> None:
    prediction, _ = ask(env, text_replies={})
    steps = prediction.trace
    assert [s["step"] for s in steps] == ["retrieve"] * 2 + ["agent"] * 5 + ["result"]
    assert steps[0] == {
        "step": "retrieve",
        "modality": "text",
        "retriever": "words",
        "pages": [1, 2],
    }
    assert steps[1]["pages"] == [2, 3]
    assert steps[1]["retriever"] == "pictures"
    agents = {s["agent"]: s for s in steps if s["step"] == "agent"}
    assert agents["text"]["model"] == "llm"
    assert agents["general"]["model"] == "vlm"
    assert agents["general"]["pages"] == agents["critical"]["pages"] == [1, 2, 3]
    assert agents["text"]["pages"] == [1, 2]
    assert agents["image"]["pages"] == [2, 3]
    assert agents["summarizer"]["pages"] == []
    assert agents["critical"]["clues"] == {"text": "revenue 2020", "image": "revenue chart"}
    for name, step in agents.items():
        assert step["output"] == CLEAN[name]
        assert step["usage"]["calls"] == 1
        assert step["input"].startswith("[user]")
    assert "[image of page 3]" in agents["image"]["input"]
    # each agent's step keeps its call whole: the prompt as sent (page 3 by its image) and reply
    (call,) = agents["image"]["calls"]
    assert {"image": env.pages[2].image} in call["messages"][0]["parts"]
    assert call["reply"] == agents["image"]["output"]
    assert call["finish_reason"] == "stop"
    assert QUESTION.question in agents["text"]["input"]
    assert steps[-1] == {"step": "result", "output": "42 million", "fallbacks": []}


def test_the_trace_renders_as_a_page_with_the_retrieved_thumbnails(
    env: DocumentEnv, tmp_path: Path
) -> None:
    prediction, _ = ask(env, {"critical": "no dict"})
    html = render_trace_html(prediction, QUESTION, env.pages, tmp_path / "q1.html").read_text()
    for agent in ("general", "critical", "text", "image", "summarizer"):
        assert f"agent: {agent}</h2>" in html
    # page 3 is a text page and an image page: pages used, both retrievals, general, critical,
    # text agent, image agent; and an image part of the general, critical and image agents' prompts
    assert html.count('alt="page 3"') == 7 + 3
    assert '<span class="fallback">clue_not_json</span>' in html


def test_configured_model_names_label_the_trace(env: DocumentEnv) -> None:
    prediction, _ = ask(env, text_replies={}, text_model="llama-3.1-8b", vlm_model="qwen2-vl-7b")
    models = {s["agent"]: s["model"] for s in prediction.trace if s["step"] == "agent"}
    assert models["text"] == "llama-3.1-8b"
    assert models["summarizer"] == "qwen2-vl-7b"


# --- fallbacks ------------------------------------------------------------------------------


def fallbacks_of(prediction: Prediction) -> list[str]:
    return prediction.trace[-1]["fallbacks"]


def test_a_clue_that_is_not_json_leaves_both_clues_empty(env: DocumentEnv) -> None:
    prediction, log = ask(env, {"critical": "The text mentions revenue; the image a chart."})
    sent = requests_of(log)
    assert sent["text"].messages[0].text.endswith(QUESTION.question + prompts.CLUE_INTRO)
    assert sent["image"].messages[0].text.endswith(QUESTION.question + prompts.CLUE_INTRO)
    critical = next(s for s in prediction.trace if s.get("agent") == "critical")
    assert critical["fallbacks"] == ["clue_not_json"]
    assert critical["clues"] == {"text": "", "image": ""}
    assert fallbacks_of(prediction) == ["clue_not_json"]
    assert prediction.usage.fallbacks == 1
    assert prediction.answer == "42 million"


def test_the_original_clue_parser_stops_at_the_first_brace_the_lenient_one_does_not(
    env: DocumentEnv,
) -> None:
    reply = 'Here: {"text": "the {2020} row", "image": "bar chart"}'
    strict, log = ask(env, {"critical": reply})
    assert fallbacks_of(strict) == ["clue_not_json"]
    lenient, log = ask(env, {"critical": reply}, clue_parser="lenient")
    assert fallbacks_of(lenient) == []
    assert requests_of(log)["text"].messages[0].text.endswith("the {2020} row")
    assert requests_of(log)["image"].messages[0].text.endswith("bar chart")


def test_a_clue_that_is_not_text_becomes_its_text(env: DocumentEnv) -> None:
    prediction, log = ask(env, {"critical": '{"text": ["2020", "revenue"], "image": null}'})
    assert requests_of(log)["text"].messages[0].text.endswith("['2020', 'revenue']")
    assert requests_of(log)["image"].messages[0].text.endswith(prompts.CLUE_INTRO)
    assert fallbacks_of(prediction) == ["clue_not_text"]


def test_a_summary_that_is_not_the_answer_dict_is_the_answer_as_it_is(env: DocumentEnv) -> None:
    prediction, _ = ask(env, {"summarizer": "The answer is 42 million.\n"})
    assert prediction.answer == "The answer is 42 million."
    assert fallbacks_of(prediction) == ["summary_not_json"]
    assert prediction.usage.fallbacks == 1
    summarizer = next(s for s in prediction.trace if s.get("agent") == "summarizer")
    assert summarizer["fallbacks"] == ["summary_not_json"]


def test_the_unquoted_answer_the_prompt_invites_needs_the_lenient_parser(env: DocumentEnv) -> None:
    strict, _ = ask(env, {"summarizer": '{"Answer": 42 million}'})
    assert strict.answer == '{"Answer": 42 million}'
    lenient, _ = ask(
        env, {"summarizer": '```json\n{"Answer": 42 million}\n```'}, answer_parser="lenient"
    )
    assert lenient.answer == "42 million"
    assert fallbacks_of(lenient) == []


def test_an_empty_answer_stays_empty_or_falls_back_to_the_agents(env: DocumentEnv) -> None:
    kept, _ = ask(env, {"summarizer": '{"Answer": ""}'})
    assert kept.answer == ""
    assert not kept.error
    assert fallbacks_of(kept) == ["empty_answer"]
    assert kept.usage.fallbacks == 1

    agents, _ = ask(env, {"summarizer": '{"Final": "x"}'}, empty_answer="agents")
    assert agents.answer == CLEAN["image"]  # the last agent with an answer
    assert fallbacks_of(agents) == ["summary_no_answer", "empty_answer"]
    assert agents.usage.fallbacks == 2

    nobody, _ = ask(
        env,
        {"summarizer": "", "image": " ", "general": ""},
        text_replies={"text": ""},
        empty_answer="agents",
    )
    assert nobody.answer == ""
    assert fallbacks_of(nobody) == ["summary_not_json", "empty_answer"]


def test_a_failed_call_ends_the_question_with_its_trace_and_usage(env: DocumentEnv) -> None:
    """The method raises, carrying its trace so far; the runner's classification of the error
    (docqa.methods.errors) makes the recorded prediction."""
    log: list[tuple[str, str, Any]] = []
    with pytest.raises(PartialAnswer) as raised:
        ask(env, {"image": RuntimeError("CUDA out of memory")}, log=log)
    assert [agent for agent, _, _ in log] == ["general", "critical", "text", "image"]
    prediction = classify(raised.value).prediction(QUESTION.question_id)
    assert prediction.answer == ""
    assert prediction.error == "RuntimeError: CUDA out of memory"
    assert prediction.error_kind == "input"
    assert prediction.usage.calls == 3
    image = [s for s in prediction.trace if s.get("agent") == "image"]
    assert image
    assert "output" not in image[0]
    assert prediction.trace[-1]["step"] == "result"


# --- ablations and options --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ablation", "agents", "headings"),
    [
        ("without_text", ["general", "critical", "image", "summarizer"], ["General", "Image"]),
        ("without_image", ["general", "critical", "text", "summarizer"], ["General", "Text"]),
        ("without_general_critical", ["text", "image", "summarizer"], ["Text", "Image"]),
    ],
)
def test_each_ablation_runs_its_agents_and_summarizes_their_answers(
    env: DocumentEnv, ablation: str, agents: list[str], headings: list[str]
) -> None:
    prediction, log = ask(env, ablation=ablation)
    assert [agent for agent, _, _ in log] == agents
    summary = requests_of(log)["summarizer"].messages[0].text
    expected = "".join(f"{h} Agent:\n{CLEAN[h.lower()]}\n" for h in headings)
    assert summary == prompts.SUMMARIZER + expected
    assert prediction.answer == "42 million"
    assert prediction.usage.calls == len(agents)


def test_without_general_critical_the_agents_get_the_bare_question(env: DocumentEnv) -> None:
    _, log = ask(env, ablation="without_general_critical")
    sent = requests_of(log)
    assert sent["text"].messages[0].text.endswith(prompts.TEXT + QUESTION.question)
    assert sent["image"].messages[0].text == prompts.IMAGE + QUESTION.question


def test_text_pages_repeat_as_ranked_unless_deduplicated(env: DocumentEnv) -> None:
    env.searchers["words"] = FixedRanking([1, 1, 2, 0], len(PAGE_TEXTS))
    _, log = ask(env)
    assert (
        requests_of(log)["text"].messages[0].text.startswith("".join(t + "\n" for t in texts(1, 1)))
    )
    prediction, log = ask(env, dedupe_text_pages=True)
    assert (
        requests_of(log)["text"].messages[0].text.startswith("".join(t + "\n" for t in texts(1, 2)))
    )
    assert prediction.trace[0]["pages"] == [1, 2]


def test_top_1_and_long_pages(env: DocumentEnv) -> None:
    _, log = ask(env, top_k=1, max_chars_per_page=7)
    sent = requests_of(log)
    assert sent["general"].messages[0].parts[0].text == "Revenue\n"  # page 1, cut to 7 chars
    assert sent["image"].images == [env.pages[2].image]


def test_the_method_names_the_retrievers_it_needs() -> None:
    assert method().retrievers == ("words", "pictures")
    assert create_method({"type": "mdocagent"}).retrievers == ("bm25",)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"ablation": "without_summarizer"}, r"ablation: must be one of .*'without_summarizer'"),
        ({"clue_parser": "loose"}, r"clue_parser: must be one of .* \(got 'loose'\)"),
        ({"answer_parser": "x"}, r"answer_parser: must be one of .* \(got 'x'\)"),
        ({"empty_answer": "guess"}, r"empty_answer: must be one of .* \(got 'guess'\)"),
        ({"top_k": 0}, r"top_k: must be at least 1 \(got 0\)"),
        ({"top_n": 2}, "bad options"),
    ],
)
def test_bad_options_are_clear_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create_method({"type": "mdocagent", **options})


def test_the_config_names_the_top_k_variants_and_the_ablations() -> None:
    config = default_config("methods")
    entries = {n: e for n, e in config["methods"].items() if e["type"] == "mdocagent"}
    built = {name: create_method(entry) for name, entry in entries.items()}
    assert {entry["top_k"] for entry in entries.values()} == {1, 4}
    assert {entry.get("ablation", "none") for entry in entries.values()} == {
        "none",
        "without_text",
        "without_image",
        "without_general_critical",
    }
    for name, entry in entries.items():
        assert built[name].retrievers == tuple(
            dict.fromkeys((entry["text_retriever"], entry["image_retriever"]))
        )
        assert set(built[name].retrievers) <= set(config["retrievers"])
