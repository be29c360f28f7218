"""OpenAI chat-completions bodies as docqa ``ChatRequest``s, and ``Completion``s as replies.

Message content is a string or a list of ``text`` and ``image_url`` parts; images must be
inline (``data:`` URLs). ``max_tokens`` (or ``max_completion_tokens``), ``temperature`` and
``stop`` become the request's ``Generation``; a missing temperature means greedy decoding (0,
where OpenAI's default is 1), because docqa's runs are greedy. Parameters the backends cannot
honour (``n``, ``stream``, ``top_p``, penalties, tools…) are refused when set to anything but
their default, so that no request is answered differently from what it asked.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from docqa.backends.base import Completion
from docqa.backends.calls import finish_reason
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.serving.inline_images import ImageStore

#: generated tokens when a request does not say
DEFAULT_MAX_TOKENS = 512

ROLES = ("system", "user", "assistant")

#: parameter → the values this server answers correctly (the OpenAI defaults)
ONLY_DEFAULTS: dict[str, tuple[Any, ...]] = {
    "n": (1,),
    "stream": (False,),
    "top_p": (1,),
    "logprobs": (False,),
    "presence_penalty": (0,),
    "frequency_penalty": (0,),
    "tools": (None, []),
    "response_format": (None, {"type": "text"}),
}


class APIError(Exception):
    """A request the server refuses: ``status`` is the HTTP status, the message says why."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind

    def body(self) -> dict[str, Any]:
        return {"error": {"message": str(self), "type": self.kind, "code": self.status}}


def decode_request(body: Any, images: ImageStore) -> ChatRequest:
    """The ``ChatRequest`` a chat-completions body asks for; ``APIError`` (400) naming the
    field when the body is not one this server can answer."""
    if not isinstance(body, dict):
        raise APIError(400, "the request body must be a JSON object")
    for key, allowed in ONLY_DEFAULTS.items():
        if key in body and body[key] not in allowed:
            raise APIError(
                400, f"{key}={body[key]!r} is not supported by docqa serve; leave it out"
            )
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise APIError(400, "messages must be a non-empty list of {role, content} objects")
    decoded = tuple(_message(m, f"messages[{i}]", images) for i, m in enumerate(messages))
    return ChatRequest(decoded, _generation(body))


def _message(message: Any, where: str, images: ImageStore) -> Message:
    if not isinstance(message, dict) or message.get("role") not in ROLES:
        raise APIError(400, f"{where}: needs a role, one of {', '.join(ROLES)}")
    content = message.get("content")
    if isinstance(content, str):
        return Message(message["role"], (Part.of_text(content),))
    if not isinstance(content, list):
        raise APIError(400, f"{where}.content must be a string or a list of parts")
    parts = tuple(_part(part, f"{where}.content[{i}]", images) for i, part in enumerate(content))
    return Message(message["role"], parts)


def _part(part: Any, where: str, images: ImageStore) -> Part:
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text" and isinstance(part.get("text"), str):
        return Part.of_text(part["text"])
    if kind == "image_url":
        url = part.get("image_url")
        url = url.get("url") if isinstance(url, dict) else url
        if not isinstance(url, str):
            raise APIError(400, f"{where}: image_url needs a url")
        try:
            return Part.of_image(str(images.save(url, where)))
        except ValueError as error:
            raise APIError(400, str(error)) from None
    raise APIError(400, f"{where}: a part is {{type: text, text}} or {{type: image_url, ...}}")


def _generation(body: dict[str, Any]) -> Generation:
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens", DEFAULT_MAX_TOKENS))
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise APIError(400, f"max_tokens must be a positive integer, not {max_tokens!r}")
    temperature = body.get("temperature", 0)
    if not isinstance(temperature, (int, float)) or not 0 <= temperature <= 2:
        raise APIError(400, f"temperature must be a number in [0, 2], not {temperature!r}")
    stop = body.get("stop") or ()
    stop = (stop,) if isinstance(stop, str) else stop
    if not isinstance(stop, (list, tuple)) or not all(isinstance(s, str) for s in stop):
        raise APIError(400, "stop must be a string or a list of strings")
    return Generation(max_tokens, float(temperature), tuple(stop))


def encode_completion(completion: Completion, model: str, request: ChatRequest) -> dict[str, Any]:
    """The chat-completions reply for ``completion``, with the backend's token counts."""
    usage = completion.usage
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": completion.text},
                "finish_reason": finish_reason(completion, request.generation),
            }
        ],
        "usage": {
            "prompt_tokens": usage.tokens_in,
            "completion_tokens": usage.tokens_out,
            "total_tokens": usage.tokens_in + usage.tokens_out,
        },
    }
