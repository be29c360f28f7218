"""The read step shared by text methods: given pages, ask the model for a short answer."""

from __future__ import annotations

from typing import Any

from docqa.backends.calls import recorded_calls
from docqa.backends.client import ModelClient
from docqa.core.prediction import Usage
from docqa.methods.base import DocumentEnv, ReadingOptions
from docqa.methods.baseline_prompts import generation, resolve_style, text_request
from docqa.methods.page_passages import PageTexts


async def read_pages(
    question: str,
    env: DocumentEnv,
    pages: list[int],
    client: ModelClient,
    options: ReadingOptions,
) -> tuple[str, dict[str, Any], Usage]:
    """Answer ``question`` from the OCR text of ``pages`` (0-based, in the given order; a page
    given twice is read twice), as ``options`` say: the page text read (a page longer than
    ``max_chars_per_page``: its passages that bear on the question,
    :mod:`docqa.methods.page_passages`; the step's ``text_cut`` names what was left out), new
    tokens, prompt style (:mod:`docqa.methods.baseline_prompts`), its "Not answerable" escape
    and temperature."""
    read = PageTexts(question, options.max_chars_per_page)
    texts = [(env.page_label(page), read.read(page, env.page_texts[page])) for page in pages]
    style = resolve_style(options.prompt, client)
    max_new_tokens, temperature = options.max_new_tokens, options.temperature
    gen = generation(style, max_new_tokens, temperature, None)
    request = text_request(style, question, texts, gen, options.not_answerable)
    with recorded_calls() as calls:
        completion = await client.complete(request)
    answer = completion.text.strip()
    step = {
        "step": "read",
        "pages": pages,
        "prompt": style,
        "max_new_tokens": max_new_tokens,
        "temperature": temperature,
        "not_answerable": options.not_answerable,
        "prompt_chars": len(request.messages[0].text),
        **read.trace(),
        "output": completion.text,
        "calls": calls,
    }
    return answer, step, completion.usage
