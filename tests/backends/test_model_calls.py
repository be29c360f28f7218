"""Model calls as the trace keeps them: recorded by the client into the step that made them,
the prompt as sent, the reply and the finish reason."""

from __future__ import annotations

import asyncio
from pathlib import Path

from helpers.scripted_backend import ScriptedBackend
from PIL import Image

from docqa.backends.base import Completion
from docqa.backends.cache import ResponseCache
from docqa.backends.calls import call_record, recorded_calls
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.core.prediction import Usage
from docqa.core.trace import ModelCall


def request(text: str, max_new_tokens: int = 4, *parts: Part) -> ChatRequest:
    return ChatRequest((Message.user(text, *parts),), Generation(max_new_tokens=max_new_tokens))


def test_calls_are_recorded_in_the_block_that_made_them_cached_or_not(tmp_path: Path) -> None:
    backend = ScriptedBackend(lambda r: f"re: {r.messages[0].text}", tokens=(10, 4))
    cache = ResponseCache(tmp_path / "cache.sqlite")

    async def step(client: ModelClient, text: str, max_new_tokens: int) -> list[ModelCall]:
        with recorded_calls() as calls:
            await client.complete(request(text, max_new_tokens))
        return list(calls)

    async def main() -> tuple[list[list[ModelCall]], list[ModelCall]]:
        client = ModelClient(backend, cache)
        try:
            await client.complete(request("unrecorded"))  # no block open: kept nowhere
            # concurrent questions each keep only their own calls
            first = await asyncio.gather(step(client, "a", 4), step(client, "b", 8))
            again = await step(client, "a", 4)  # answered by the cache
        finally:
            await client.close()
        return list(first), again

    (a, b), again = asyncio.run(main())
    assert (
        a
        == again
        == [
            {
                "messages": [{"role": "user", "parts": [{"text": "a"}]}],
                "max_new_tokens": 4,
                "reply": "re: a",
                "finish_reason": "length",  # 4 tokens out of 4
            }
        ]
    )
    assert b[0]["finish_reason"] == "stop"
    assert b[0]["reply"] == "re: b"


def test_images_are_kept_by_path_with_the_text_a_text_only_model_read(tmp_path: Path) -> None:
    image = tmp_path / "page-1.png"
    Image.new("RGB", (4, 4)).save(image)
    asked = request("Read:", 16, Part.of_image(str(image), "Revenue 42"))
    seen = call_record(asked, Completion("42", Usage(calls=1, tokens_out=2)))
    assert seen["messages"][0]["parts"] == [{"text": "Read:"}, {"image": str(image)}]
    read = call_record(
        asked, Completion("42", Usage(calls=1, tokens_out=2, images_as_text=1), truncated_tokens=7)
    )
    assert read["messages"][0]["parts"][1] == {
        "image": str(image),
        "text": "[image shown as its OCR text]\nRevenue 42\n[end of image text]\n",
    }
    assert read["truncated_tokens"] == 7
    assert "truncated_tokens" not in seen
