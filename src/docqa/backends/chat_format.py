"""A ``ChatRequest`` as OpenAI-style chat messages, the format of hosted APIs, ``vllm serve`` and
``vllm.LLM.chat``.

A vision model gets every page inline (a PNG ``data:`` URL under the pixel budget); a text-only
model gets the request's text-only form, each page replaced by its marked OCR text.
"""

from __future__ import annotations

from typing import Any

from docqa.backends.pixels import open_page, png_data_url, shrink
from docqa.backends.request import ChatRequest, Part


def openai_messages(
    request: ChatRequest,
    *,
    vision: bool,
    max_pixels: int | None,
    image_detail: str | None = None,
) -> list[dict[str, Any]]:
    if not vision:
        return [{"role": m.role, "content": m.text} for m in request.as_text_only().messages]
    return [
        {"role": m.role, "content": [_content(part, max_pixels, image_detail) for part in m.parts]}
        for m in request.messages
    ]


def _content(part: Part, max_pixels: int | None, image_detail: str | None) -> dict[str, Any]:
    if part.kind == "text":
        return {"type": "text", "text": part.text}
    image = open_page(part.image)
    if max_pixels is not None:
        image = shrink(image, max_pixels)
    url: dict[str, Any] = {"url": png_data_url(image)}
    if image_detail is not None:
        url["detail"] = image_detail
    return {"type": "image_url", "image_url": url}
