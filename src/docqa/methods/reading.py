"""The read step shared by text methods: given pages, ask the model for a short answer."""

from __future__ import annotations

from typing import Any

from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Generation
from docqa.core.prediction import Usage
from docqa.methods.base import DocumentEnv
from docqa.methods.prompts import STOP, reading_prompt


async def read_pages(
    question: str,
    env: DocumentEnv,
    pages: list[int],
    client: ModelClient,
    max_chars_per_page: int,
    max_new_tokens: int,
) -> tuple[str, dict[str, Any], Usage]:
    """Answer ``question`` from the OCR text of ``pages`` (0-based, in the given order)."""
    texts = [(page, env.page_texts[page][:max_chars_per_page]) for page in pages]
    prompt = reading_prompt(texts, question)
    request = ChatRequest.prompt(prompt, Generation(max_new_tokens=max_new_tokens, stop=STOP))
    completion = await client.complete(request)
    answer = completion.text.strip()
    step = {"step": "read", "pages": pages, "prompt_chars": len(prompt), "output": completion.text}
    return answer, step, completion.usage
