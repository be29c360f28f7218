"""The baselines' prompt styles: the style follows the model (few-shot only for a base model),
the papers' prompts are their code's text byte for byte, and a method's token and pixel budgets
reach the request and its trace."""

from __future__ import annotations

import pytest
from helpers.docpilot_script import run
from helpers.scripted_backend import ScriptedBackend
from helpers.text_env import text_env

from docqa.backends.request import ChatRequest
from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv
from docqa.methods.baseline_prompts import FILES, template

# The originals, as bloomberg/m3docrag 29e6ac2 src/m3docrag/utils/prompts.py writes them:
# short_answer_template = """\nquestion: $question\noutput only answer.\n""".strip()
M3DOCRAG_SHORT = """
question: $question
output only answer.
""".strip()
# text_rag_template = """ ... """ (not stripped: it starts and ends with a newline)
M3DOCRAG_TEXT = """
DOCUMENTS:
$documents

QUESTION:
$question

INSTRUCTIONS:
Answer the QUESTION using the DOCUMENTS text above. Simply output the answer only.

Answer:
"""
TEXTS = ["Revenue 2020: 42 million", "Costs 2020: 17 million"]
QUESTION = Question("q1", "doc", "What was the revenue in 2020?", "42 million", "Str", [("doc", 0)])


def test_prompt_files_are_the_originals_byte_for_byte() -> None:
    assert (FILES / "m3docrag_short_answer.txt").read_bytes() == M3DOCRAG_SHORT.encode()
    assert (FILES / "m3docrag_text_rag.txt").read_bytes() == M3DOCRAG_TEXT.encode()
    assert template("m3docrag_short_answer").substitute(question="Q?") == (
        "question: Q?\noutput only answer."
    )


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> DocumentEnv:
    return text_env(tmp_path_factory.mktemp("doc"), "doc", TEXTS, shade=90)


def _backend(prompt_format: str | None) -> ScriptedBackend:
    identity = {"id": "scripted"}
    if prompt_format:
        identity["prompt_format"] = prompt_format
    return ScriptedBackend(lambda request: "42 million", identity=identity)


def _only(backend: ScriptedBackend) -> ChatRequest:
    assert len(backend.requests) == 1
    return backend.requests[0]


def test_auto_gives_a_base_model_the_few_shot_prompt_and_a_chat_model_an_instruction(
    env: DocumentEnv,
) -> None:
    method = create_method({"type": "text_rag", "retriever": "bm25", "top_k": 1})
    base = _backend("raw")
    run(method, env, base, QUESTION)
    assert _only(base).messages[0].text.endswith("Q: What was the revenue in 2020?\nA:")
    assert _only(base).generation.stop == ("\n",)
    chat = _backend("chat")
    prediction = run(method, env, chat, QUESTION)
    text = _only(chat).messages[0].text
    assert "Q: " not in text
    assert text.endswith("Question: What was the revenue in 2020?")
    assert _only(chat).generation.stop == ()
    assert prediction.trace[1]["prompt"] == "chat"


def test_m3docrag_prompt_puts_the_images_first_with_its_budget(env: DocumentEnv) -> None:
    method = create_method(
        {
            "type": "image_rag",
            "retriever": "bm25",
            "top_k": 2,
            "prompt": "m3docrag",
            "max_new_tokens": 128,
            "image_max_pixels": 2048 * 28 * 28,
        }
    )
    backend = _backend(None)
    prediction = run(method, env, backend, QUESTION)
    parts = _only(backend).messages[0].parts
    assert [p.kind for p in parts] == ["image", "image", "text"]
    assert parts[-1].text == "question: What was the revenue in 2020?\noutput only answer."
    generation = _only(backend).generation
    assert (generation.max_new_tokens, generation.max_pixels, generation.stop) == (
        128,
        2048 * 28 * 28,
        (),
    )
    read = prediction.trace[1]
    assert (read["prompt"], read["max_new_tokens"], read["image_max_pixels"]) == (
        "m3docrag",
        128,
        2048 * 28 * 28,
    )
    assert _only(backend).canonical()["generation"]["max_pixels"] == 2048 * 28 * 28


def test_bare_prompt_is_the_question_alone_after_the_images(env: DocumentEnv) -> None:
    method = create_method(
        {"type": "vanilla", "mode": "pages", "prompt": "bare", "max_new_tokens": 1024}
    )
    backend = _backend("chat")
    run(method, env, backend, QUESTION)
    parts = _only(backend).messages[0].parts
    assert [p.kind for p in parts] == ["image", "image", "text"]
    assert parts[-1].text == QUESTION.question
    assert _only(backend).generation.max_new_tokens == 1024


def test_whole_page_text_reaches_the_text_model_when_the_cap_is_lifted(env: DocumentEnv) -> None:
    long_env = DocumentEnv(env.document, env.pages, ["x" * 5000 + " end", TEXTS[1]], env.searchers)
    capped = _backend("chat")
    run(create_method({"type": "oracle_pages"}), long_env, capped, QUESTION)
    assert " end" not in _only(capped).messages[0].text
    whole = _backend("chat")
    run(
        create_method({"type": "oracle_pages", "max_chars_per_page": 100_000}),
        long_env,
        whole,
        QUESTION,
    )
    assert "x" * 5000 + " end" in _only(whole).messages[0].text


def test_an_unknown_style_is_an_error_naming_the_styles() -> None:
    with pytest.raises(ValueError, match="fewshot"):
        create_method({"type": "image_rag", "prompt": "verbose"})
