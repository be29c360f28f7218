"""A real :class:`~docqa.backends.base.Backend` that answers from a script, for tests of the
metrics that call a model (the judge, the answer extractor)."""

from __future__ import annotations

from typing import Any, Callable

from docqa.backends.base import Backend, Completion
from docqa.backends.request import ChatRequest
from docqa.prediction import Usage


class ScriptedBackend(Backend):
    """Replies ``reply(request)``; raises what it raises. Records every request and batch."""

    def __init__(self, reply: Callable[[ChatRequest], str], max_batch_size: int = 8) -> None:
        self.reply = reply
        self.max_batch_size = max_batch_size
        self.requests: list[ChatRequest] = []
        self.batch_sizes: list[int] = []

    @property
    def identity(self) -> dict[str, Any]:
        return {"id": "scripted-judge", "revision": "test"}

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        self.batch_sizes.append(len(requests))
        self.requests.extend(requests)
        return [Completion(self.reply(request), Usage(calls=1)) for request in requests]
