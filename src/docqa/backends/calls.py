"""Each model call as the trace keeps it: the messages as sent, the reply and why it ended.

A method opens :func:`recorded_calls` around the calls of one trace step and stores the list it
gets as the step's ``calls``; :class:`docqa.backends.client.ModelClient` notes every call it
answers (from the backend or the response cache) into the innermost list open in the calling
task. Calls made with no list open (the metrics' judge and extraction steps) are not kept.

A call keeps the messages as the method handed them to the backend, before any chat template:
text parts verbatim, image parts by the path of the image (a page image of ``results/pages``, a
scaled copy or a crop), never the image itself. Where a text-only model read an image as its OCR
text, the part also holds that text as the model read it. The record holds no time or cache
hit, so a rerun writes it byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from docqa.backends.base import Completion
from docqa.backends.request import ChatRequest, Generation
from docqa.core.trace import CallMessage, CallPart, ModelCall

#: a reply that ended because it reached ``max_new_tokens``; any other end is ``STOP``
LENGTH, STOP = "length", "stop"

_OPEN: ContextVar[list[ModelCall] | None] = ContextVar("docqa_recorded_calls", default=None)


def finish_reason(completion: Completion, generation: Generation) -> str:
    """``"length"`` when the reply used every new token it was allowed (it was cut there),
    else ``"stop"`` (an end-of-sequence token or a stop string), as OpenAI's API says it."""
    return LENGTH if completion.usage.tokens_out >= generation.max_new_tokens else STOP


def call_record(request: ChatRequest, completion: Completion) -> ModelCall:
    """The trace's record of one call."""
    read_as_text = completion.usage.images_as_text > 0
    messages: list[CallMessage] = []
    for message in request.messages:
        parts: list[CallPart] = []
        for part in message.parts:
            if part.kind == "text":
                parts.append({"text": part.text})
            elif read_as_text:
                parts.append({"image": part.image, "text": part.as_text().text})
            else:
                parts.append({"image": part.image})
        messages.append({"role": message.role, "parts": parts})
    record: ModelCall = {
        "messages": messages,
        "max_new_tokens": request.generation.max_new_tokens,
        "reply": completion.text,
        "finish_reason": finish_reason(completion, request.generation),
    }
    if completion.truncated_tokens:
        record["truncated_tokens"] = completion.truncated_tokens
    return record


@contextmanager
def recorded_calls() -> Iterator[list[ModelCall]]:
    """The list the model calls made inside the block are recorded into, in order."""
    calls: list[ModelCall] = []
    token = _OPEN.set(calls)
    try:
        yield calls
    finally:
        _OPEN.reset(token)


def note_call(request: ChatRequest, completion: Completion) -> None:
    """Record one answered call into the list open in this task, if any."""
    calls = _OPEN.get()
    if calls is not None:
        calls.append(call_record(request, completion))
