"""The scripted side of the DocPilot tests (and of vanilla's and image_rag's): a real
``Backend`` that answers from a list of replies, in order, and the orchestrator's reply format."""

from __future__ import annotations

import asyncio
from typing import Any

from docqa.backends.base import Backend
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods.base import DocumentEnv, Method, Models
from helpers.acme import QUESTION
from helpers.scripted_backend import ScriptedBackend, text_of


class ScriptedReplies(ScriptedBackend):
    """Answers each request with the next reply of ``replies``; text-only unless
    ``sees_images`` (then image parts need no OCR text). Records every request."""

    def __init__(self, replies: list[str], sees_images: bool = False) -> None:
        super().__init__(
            self._next_reply,
            sees_images=sees_images,
            identity={"id": "scripted-docpilot"},
            tokens=(10, 2),
        )
        self.replies = list(replies)

    def _next_reply(self, request: ChatRequest) -> str:
        if not self.replies:
            raise AssertionError("the script has no reply left for:\n" + text_of(request)[-600:])
        return self.replies.pop(0)


def run(
    method: Method, env: DocumentEnv, backend: Backend, question: Question = QUESTION
) -> Prediction:
    async def go() -> Prediction:
        client = ModelClient(backend)
        try:
            return await method.answer(question, env, Models(client))
        finally:
            await client.close()

    return asyncio.run(go())


def decision(action: str, arguments: dict[str, Any] | str, thought: str = "next") -> str:
    """An orchestrator reply (the prompt ends with ``Thought:``)."""
    import json

    written = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return f" {thought}\nAction: {action}\nArguments: {written}"


def summary_of(prediction: Prediction) -> dict[str, Any]:
    last = prediction.trace[-1]
    assert last["step"] == "summary"
    return last
