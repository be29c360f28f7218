"""Real :class:`~docqa.backends.base.Backend`s that answer from a script, for tests of code that
calls a model: the metrics that ask a judge or an answer extractor, and the methods' agents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docqa.backends.base import Backend, Completion
from docqa.backends.request import ChatRequest
from docqa.core.prediction import Usage


class ScriptedBackend(Backend):
    """Replies ``reply(request)``; raises what it raises. Reads images unless ``sees_images`` is
    false: then it is a text-only model, and an image part needs its OCR text. Each completion
    counts ``tokens`` (in, out). Records every request and batch size."""

    def __init__(
        self,
        reply: Callable[[ChatRequest], str],
        max_batch_size: int = 8,
        sees_images: bool = True,
        identity: dict[str, Any] | None = None,
        tokens: tuple[int, int] = (0, 0),
    ) -> None:
        self.reply = reply
        self.max_batch_size = max_batch_size
        self.sees_images = sees_images
        self._identity = identity or {"id": "scripted-judge", "revision": "test"}
        self.tokens = tokens
        self.requests: list[ChatRequest] = []
        self.batch_sizes: list[int] = []

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    def validate(self, request: ChatRequest) -> None:
        if not self.sees_images:
            request.as_text_only()

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        self.batch_sizes.append(len(requests))
        completions = []
        for request in requests:
            self.validate(request)
            self.requests.append(request)
            tokens_in, tokens_out = self.tokens
            usage = Usage(calls=1, tokens_in=tokens_in, tokens_out=tokens_out)
            if not self.sees_images:  # as the text-only backends count it
                usage.images_as_text = len(request.images)
            completions.append(Completion(self.reply(request), usage))
        return completions


def text_of(request: ChatRequest) -> str:
    """A request as a text-only model reads it (images as their OCR text), or as it is when an
    image has no OCR text."""
    readable = (
        request.as_text_only()
        if all(p.text for m in request.messages for p in m.parts if p.kind == "image")
        else request
    )
    return "".join(part.text for message in readable.messages for part in message.parts)
