"""The prompts of the baselines (``text_rag``, ``image_rag``, ``vanilla``): a style per model kind
and the papers' own prompts.

Option ``prompt`` of those methods picks one:

* ``auto`` (the default): the style follows the model: ``fewshot`` for a base model (a
  backend whose identity says ``prompt_format: raw``, such as the embedded default), ``chat``
  for every other (instruction-tuned VLMs and LMs, API models);
* ``fewshot``: docqa's few-shot reading prompt (:mod:`docqa.methods.prompts`), ``A:`` left
  open, stopped at the first newline: what a base model needs to give a short answer;
* ``chat``: one instruction, the pages, the question; no stop (the chat template does the rest);
* ``m3docrag``: M3DocRAG's (``examples/run_rag_m3docvqa.py``): the page images first, then
  ``short_answer_template`` (``question: …\\noutput only answer.``); for text pages its
  ``text_rag_template``;
* ``bare``: MMLongBench-Doc's open-model runs (``run_lvlm.py``): the page images, then the
  question as it is, nothing else (the free-form reply is reduced to an answer by the
  benchmark's extraction step at scoring);
* ``bare_question_first``: MMLongBench-Doc's API runs (``run_api.py``): the bare question, then
  the page images.

The papers' templates are data files in ``prompt_files/``, byte for byte, with their source and
commit in ``prompt_files/SOURCES.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from string import Template
from typing import Literal, get_args

from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.methods.prompts import ESCAPE, STOP, format_pages, reading_preamble, reading_prompt

PromptStyle = Literal["auto", "fewshot", "chat", "m3docrag", "bare", "bare_question_first"]
STYLES: tuple[str, ...] = get_args(PromptStyle)
FILES = Path(__file__).with_name("prompt_files")

CHAT_INSTRUCTION = (
    "Answer the question from the document pages. Give a short answer: a number, a name or a "
    "short phrase from the pages."
)


def chat_instruction(not_answerable: bool) -> str:
    """The ``chat`` style's instruction, offering the "Not answerable" escape or not."""
    return CHAT_INSTRUCTION + (ESCAPE if not_answerable else "")


@cache
def template(name: str) -> Template:
    """A paper's prompt template (``prompt_files/<name>.txt``), as its code holds it."""
    return Template((FILES / f"{name}.txt").read_text(encoding="utf-8"))


def resolve_style(style: str, client: ModelClient) -> str:
    """``auto`` made concrete for ``client``'s model: ``fewshot`` for a base model (prompt
    format ``raw``), ``chat`` otherwise."""
    if style != "auto":
        return style
    raw = client.backend.identity.get("prompt_format") == "raw"
    return "fewshot" if raw else "chat"


def generation(
    style: str, max_new_tokens: int, temperature: float, max_pixels: int | None
) -> Generation:
    """Decoding for a style: only the few-shot prompt stops at the end of its answer line."""
    stop = STOP if style == "fewshot" else ()
    return Generation(max_new_tokens, temperature, stop, max_pixels)


def image_request(
    style: str,
    question: str,
    shown: Sequence[tuple[str, Part]],
    gen: Generation,
    not_answerable: bool = True,
) -> ChatRequest:
    """A question about ``shown`` ``(heading, image part)`` pairs in a concrete ``style``;
    ``not_answerable``: docqa's own styles (``fewshot``, ``chat``) offer the "Not answerable"
    escape (the papers' styles have none)."""
    question = question.strip()
    if style == "fewshot":
        parts = [Part.of_text(reading_preamble(not_answerable))]
        for heading, image in shown:
            parts += [Part.of_text(f"{heading}\n"), image]
        parts.append(Part.of_text(f"Q: {question}\nA:"))
    elif style == "chat":
        parts = [Part.of_text(chat_instruction(not_answerable) + "\n\n")]
        for heading, image in shown:
            parts += [Part.of_text(f"{heading}\n"), image]
        parts.append(Part.of_text(f"\nQuestion: {question}"))
    elif style == "m3docrag":  # images first, then the template, no headings
        parts = [image for _, image in shown]
        parts.append(Part.of_text(template("m3docrag_short_answer").substitute(question=question)))
    elif style == "bare":
        parts = [image for _, image in shown]
        parts.append(Part.of_text(question))
    elif style == "bare_question_first":
        parts = [Part.of_text(question), *(image for _, image in shown)]
    else:
        raise ValueError(f"prompt style {style!r} is not one of {STYLES[1:]}")
    return ChatRequest((Message("user", tuple(parts)),), gen)


def text_request(
    style: str,
    question: str,
    pages: list[tuple[str, str]],
    gen: Generation,
    not_answerable: bool = True,
) -> ChatRequest:
    """A question about page texts ``(page label, text)`` in a concrete ``style``
    (``not_answerable`` as in :func:`image_request`)."""
    if style == "fewshot":
        return ChatRequest.prompt(reading_prompt(pages, question, not_answerable), gen)
    if style == "chat":
        instruction = chat_instruction(not_answerable)
        text = f"{instruction}\n\n{format_pages(pages)}\nQuestion: {question.strip()}"
    elif style == "m3docrag":
        documents = "\n".join(page_text.strip() for _, page_text in pages)
        text = template("m3docrag_text_rag").substitute(documents=documents, question=question)
    elif style == "bare":
        text = f"{format_pages(pages)}\n{question.strip()}"
    elif style == "bare_question_first":
        text = f"{question.strip()}\n\n{format_pages(pages)}"
    else:
        raise ValueError(f"prompt style {style!r} is not one of {STYLES[1:]}")
    return ChatRequest.prompt(text, gen)
