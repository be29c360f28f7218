"""The record of an agent's model calls: one trace step per call with its input, output, pages
and usage, and the fallbacks its replies needed — shared by the knowledge build and the
question-time agents."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from docqa.backends.calls import recorded_calls
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest
from docqa.core.prediction import Usage
from docqa.methods.base import DocumentEnv

#: characters of a request's text kept in a trace step (head and tail)
SHOWN_HEAD, SHOWN_TAIL = 400, 800


@dataclass
class CallLog:
    """The agent calls of one question or build; ``labels`` maps each page image to how the
    trace names it (``[image of page 3]``)."""

    labels: dict[str, str]
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
        with recorded_calls() as calls:
            completion = await client.complete(request)
        self.usage.add(completion.usage)
        step["output"] = completion.text
        step["calls"] = calls
        step["usage"] = completion.usage.to_dict()
        if not completion.usage.images_as_text:
            # the page texts went with the page images, which the model saw instead
            step.pop("text_cut", None)
        return completion.text, step

    def fallback(self, step: dict[str, Any], names: tuple[str, ...]) -> None:
        """Count the fallbacks a reply needed and name them in its step."""
        if names:
            step["fallbacks"] = [*step.get("fallbacks", []), *names]
            self.fallbacks.update(names)
            self.usage.fallbacks += len(names)

    def describe(self, request: ChatRequest) -> str:
        parts = [
            self.labels.get(part.image, "[image]") if part.kind == "image" else part.text
            for message in request.messages
            for part in message.parts
        ]
        return shorten("\n".join(parts))


def image_labels(env: DocumentEnv) -> dict[str, str]:
    """Each page image of ``env`` → ``[image of page <label>]``."""
    return {page.image: f"[image of page {env.page_label(i)}]" for i, page in enumerate(env.pages)}


def shorten(text: str) -> str:
    if len(text) <= SHOWN_HEAD + SHOWN_TAIL + 40:
        return text
    cut = len(text) - SHOWN_HEAD - SHOWN_TAIL
    return f"{text[:SHOWN_HEAD]} … [{cut} characters] … {text[-SHOWN_TAIL:]}"
