"""The record of an agent's model calls: one trace step per call with its input, output, pages
and usage, and the fallbacks its replies needed — shared by the knowledge build and the
question-time agents."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest
from docqa.core.document import Page
from docqa.core.prediction import Usage

#: characters of a request's text kept in a trace step (head and tail)
SHOWN_HEAD, SHOWN_TAIL = 400, 800


@dataclass
class CallLog:
    pages: list[Page]
    trace: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    fallbacks: Counter[str] = field(default_factory=Counter)

    async def call(
        self,
        agent: str,
        client: ModelClient,
        request: ChatRequest,
        pages: list[int],
        **details: Any,
    ) -> tuple[str, dict[str, Any]]:
        """The reply to ``request``, and the trace step recorded for it."""
        step: dict[str, Any] = {
            "step": "agent",
            "agent": agent,
            "pages": list(dict.fromkeys(pages)),
            **details,
            "input": self.describe(request),
        }
        self.trace.append(step)
        completion = await client.complete(request)
        self.usage.add(completion.usage)
        step["output"] = completion.text
        step["usage"] = completion.usage.to_dict()
        return completion.text, step

    def fallback(self, step: dict[str, Any], names: tuple[str, ...]) -> None:
        """Count the fallbacks a reply needed and name them in its step."""
        if names:
            step["fallbacks"] = [*step.get("fallbacks", []), *names]
            self.fallbacks.update(names)
            self.usage.fallbacks += len(names)

    def describe(self, request: ChatRequest) -> str:
        labels = {page.image: f"[image of page {page.index + 1}]" for page in self.pages}
        parts = [
            labels.get(part.image, "[image]") if part.kind == "image" else part.text
            for message in request.messages
            for part in message.parts
        ]
        return shorten("\n".join(parts))


def shorten(text: str) -> str:
    if len(text) <= SHOWN_HEAD + SHOWN_TAIL + 40:
        return text
    cut = len(text) - SHOWN_HEAD - SHOWN_TAIL
    return f"{text[:SHOWN_HEAD]} … [{cut} characters] … {text[-SHOWN_TAIL:]}"
