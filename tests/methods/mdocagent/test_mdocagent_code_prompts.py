"""``prompts: code``: MDocAgent's agents send the released code's prompts byte for byte, laid
out as its agents and model wrappers lay them out (aiming-lab/MDocAgent df34e4c)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from helpers.scripted_backend import ScriptedBackend
from helpers.text_env import FixedRanking, answer
from PIL import Image

from docqa.backends.request import ChatRequest, Message, Part
from docqa.core.document import Document, Page
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv
from docqa.methods.mdocagent.prompts import FILES, PAPER, prompt_set

# sha256 of each prompt as the original holds it: config/agent/<file>.yaml at
# df34e4c25fcba74b7bbb93dd5d4c9ef3c521d341 loaded with PyYAML (Hydra's loader), the value's
# UTF-8 bytes; computed from the original files, not from the stored copies.
ORIGINAL_SHA256 = {
    # general_agent.yaml system_prompt
    "general": "6fd1c87470b0ee374abc4b2cb420f133fbebfef4eaf93a18872c0e745a064eaa",
    # general_agent.yaml critical_prompt
    "critical": "7219e15f246f0cc3d39ef20e11be083ed6e7c5f26210deaaccc70bf045347203",
    # text_agent.yaml system_prompt
    "text": "c43f93432f14d4af46448e24ec2dd9ab430e48621721dac06205ae5edbaefe71",
    # image_agent.yaml system_prompt
    "image": "38582d45b418294298c8eff045523d021db1e78c59c6fac7daccf5065fab4294",
    # sum_agent.yaml system_prompt
    "summarizer": "750892cd3b06faa0d8a31d78da54be3f4f197dbc67842acd0b80e846a669a9e4",
}

PAGE_TEXTS = ["Acme Corp\nAnnual review", "Revenue\n2020: 42 million"]
QUESTION = Question(
    "q1", "deck", "What was the revenue in 2020?", "42 million", "Str", [("deck", 1)]
)
REPLIES = {
    "general": "The revenue in 2020 was 42 million.",
    "critical": '{"text": "revenue 2020", "image": "revenue chart"}',
    "text": "42 million",
    "image": "The chart shows 42 million.",
    "summarizer": '{"Answer": "42 million"}',
}


def stored(agent: str) -> str:
    return (FILES / f"mdocagent_{agent}.txt").read_bytes().decode("utf-8")


@pytest.mark.parametrize("agent", sorted(ORIGINAL_SHA256))
def test_stored_prompts_are_the_originals(agent: str) -> None:
    data = (FILES / f"mdocagent_{agent}.txt").read_bytes()
    assert hashlib.sha256(data).hexdigest() == ORIGINAL_SHA256[agent]
    assert getattr(prompt_set("code"), agent) == data.decode("utf-8")


def test_the_code_prompts_differ_from_the_paper_where_the_audit_says() -> None:
    code = prompt_set("code")
    assert "extract it using OCR, and consider" in code.general
    assert code.general.endswith(
        "than agents with single-source data.\nQuestion: \n"
    )  # the question starts on the next line
    assert code.critical.startswith("Provide a Python dictionary of 2 keypoints")
    assert "One is for text, the other is for image." in code.critical
    assert "Here are the steps to follow:" in code.text
    assert code.text.endswith("help you with the image information.\nQuestion: ")
    assert "Your primary tasks include:" in code.image
    assert code.image.endswith("help you with the text information.\nQuestion: ")
    assert code.summarizer.endswith(
        '{"Answer": <Your final answer here>}. Don\'t give other information.'
    )
    assert (code.page_text_end, PAPER.page_text_end) == ("", "\n")
    assert prompt_set("paper") is PAPER


@pytest.fixture
def env(tmp_path: Path) -> DocumentEnv:
    pages = []
    for index in range(len(PAGE_TEXTS)):
        image = tmp_path / f"page-{index}.png"
        Image.new("RGB", (40, 30), "white").save(image)
        pages.append(Page("deck", index, str(image), 40, 30, 72))
    searchers = {"words": FixedRanking([1, 0], 2), "pictures": FixedRanking([0, 1], 2)}
    return DocumentEnv(Document("deck", "deck.pdf", 2), pages, PAGE_TEXTS, searchers)


def run(env: DocumentEnv, **options: object) -> tuple[Prediction, list[ChatRequest]]:
    """The method under ``prompts: code`` with one scripted model answering the five agents in
    the original's order; the prediction and the requests in the order they were sent."""
    replies = iter(REPLIES.values())
    backend = ScriptedBackend(lambda request: next(replies))
    config = {"type": "mdocagent", "text_retriever": "words", "image_retriever": "pictures"}
    method = create_method({**config, "top_k": 2, "prompts": "code", **options})
    return answer(method, env, backend, QUESTION), backend.requests


def test_each_agent_sends_the_codes_text(env: DocumentEnv) -> None:
    prediction, sent = run(env)
    assert prediction.answer == "42 million"
    assert not prediction.error
    general, critical, text, image, summarizer = sent
    question = "What was the revenue in 2020?"
    images = (
        Part.of_image(env.pages[0].image, PAGE_TEXTS[0]),
        Part.of_image(env.pages[1].image, PAGE_TEXTS[1]),
    )

    # general: a text turn of bare page texts (no line break after each), then an image turn,
    # each ending with the prompt and the question on the line after "Question: "
    ask = Part.of_text(stored("general") + question)
    assert ask.text.endswith("Question: \nWhat was the revenue in 2020?")
    assert general.messages == (
        Message(
            "user",
            (
                Part.of_text("Revenue 2020: 42 million"),
                Part.of_text("Acme Corp Annual review"),
                ask,
            ),
        ),
        Message("user", (*images, ask)),
    )

    # critical: the general conversation, its reply, then the critical prompt alone
    assert critical.messages == (
        *general.messages,
        Message("assistant", (Part.of_text(REPLIES["general"]),)),
        Message("user", (Part.of_text(stored("critical")),)),
    )

    # text (Llama's layout): each page and a line break, a blank line, prompt, question, clue
    assert [m.role for m in text.messages] == ["user"]
    assert text.messages[0].text == (
        "Revenue 2020: 42 million\nAcme Corp Annual review\n\n"
        + stored("text")
        + "What was the revenue in 2020?\nYou may use the given clue:\nrevenue 2020"
    )

    # image (Qwen2-VL's layout): the images, then prompt, question, clue
    assert image.messages == (
        Message(
            "user",
            (
                *images,
                Part.of_text(
                    stored("image")
                    + "What was the revenue in 2020?\nYou may use the given clue:\nrevenue chart"
                ),
            ),
        ),
    )

    # summarizer: the prompt runs straight into "General Agent:" (no line break between)
    assert summarizer.messages == (
        Message.user(
            stored("summarizer")
            + (
                "General Agent:\nThe revenue in 2020 was 42 million.\n"
                "Text Agent:\n42 million\n"
                "Image Agent:\nThe chart shows 42 million.\n"
            )
        ),
    )
    assert "Don't give other information.General Agent:\n" in summarizer.messages[0].text


def test_a_shown_question_gets_its_own_line_after_the_codes_summarizer_prompt(
    env: DocumentEnv,
) -> None:
    _, sent = run(env, summarizer_sees_question=True)
    assert (
        sent[-1]
        .messages[0]
        .text.startswith(
            stored("summarizer") + "\nQuestion: What was the revenue in 2020?\nGeneral Agent:\n"
        )
    )


def test_an_unknown_prompt_style_names_the_choices() -> None:
    with pytest.raises(
        ValueError, match=r"mdocagent\.prompts: must be one of 'paper' or 'code' \(got 'appendix'\)"
    ):
        create_method({"type": "mdocagent", "prompts": "appendix"})
