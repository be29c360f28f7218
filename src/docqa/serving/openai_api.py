"""OpenAI chat-completions and completions bodies as docqa ``ChatRequest``s, and finished
requests as replies or streamed chunks.

Message content is a string or a list of ``text`` and ``image_url`` parts; images must be
inline (``data:`` URLs). A text completion's ``prompt`` is one string, read as it is (no chat
template). ``max_tokens`` (or ``max_completion_tokens``), ``temperature`` and ``stop`` become
the request's ``Generation``; a missing temperature means greedy decoding (0, where OpenAI's
default is 1), because docqa's runs are greedy. Parameters the backends cannot honour (``n``,
``top_p``, penalties, tools, ``echo``…) are refused when set to anything but their default, so
that no request is answered differently from what it asked. ``stream: true`` replies with
server-sent events as OpenAI sends them: ``data: {chunk}`` lines, then ``data: [DONE]``.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.serving.inline_images import ImageStore
from docqa.serving.tickets import Outcome

#: generated tokens when a chat request does not say
DEFAULT_MAX_TOKENS = 512
#: ... and a text completion (OpenAI's default)
DEFAULT_COMPLETION_TOKENS = 16

CHAT = "chat.completion"
TEXT = "text_completion"

ROLES = ("system", "user", "assistant")

#: parameter → the values this server answers correctly (the OpenAI defaults)
ONLY_DEFAULTS: dict[str, tuple[Any, ...]] = {
    "n": (1,),
    "best_of": (1,),
    "echo": (False,),
    "suffix": (None, ""),
    "top_p": (1,),
    "logprobs": (False, None),
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


@dataclass(frozen=True)
class APIRequest:
    """A decoded body: the model's request, its API (``CHAT`` or ``TEXT``, whose prompt is
    read without the chat template) and how to reply."""

    request: ChatRequest
    kind: str = CHAT
    stream: bool = False
    include_usage: bool = False


def decode_request(body: Any, images: ImageStore) -> APIRequest:
    """The request a chat-completions body asks for; ``APIError`` (400) naming the field when
    the body is not one this server can answer."""
    _check_defaults(body)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise APIError(400, "messages must be a non-empty list of {role, content} objects")
    decoded = tuple(_message(m, f"messages[{i}]", images) for i, m in enumerate(messages))
    request = ChatRequest(decoded, _generation(body, DEFAULT_MAX_TOKENS))
    return APIRequest(request, CHAT, *_streaming(body))


def decode_completion_request(body: Any) -> APIRequest:
    """The request a (text) completions body asks for: its ``prompt`` read as it is."""
    _check_defaults(body)
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1:
        prompt = prompt[0]
    if not isinstance(prompt, str):
        raise APIError(
            400, "prompt must be a string (one prompt a request; token ids are not read)"
        )
    request = ChatRequest.prompt(prompt, _generation(body, DEFAULT_COMPLETION_TOKENS))
    return APIRequest(request, TEXT, *_streaming(body))


def _check_defaults(body: Any) -> None:
    if not isinstance(body, dict):
        raise APIError(400, "the request body must be a JSON object")
    for key, allowed in ONLY_DEFAULTS.items():
        if key in body and body[key] not in allowed:
            raise APIError(
                400, f"{key}={body[key]!r} is not supported by docqa serve; leave it out"
            )


def _streaming(body: dict[str, Any]) -> tuple[bool, bool]:
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise APIError(400, f"stream must be true or false, not {stream!r}")
    options = body.get("stream_options") or {}
    if not isinstance(options, dict) or (options and not stream):
        raise APIError(400, "stream_options is an object, and only for stream: true")
    return stream, bool(options.get("include_usage"))


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


def _generation(body: dict[str, Any], default_tokens: int) -> Generation:
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens", default_tokens))
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


def reply_id(kind: str) -> str:
    return f"{'chatcmpl' if kind == CHAT else 'cmpl'}-{uuid.uuid4().hex}"


def encode_reply(outcome: Outcome, model: str, kind: str) -> dict[str, Any]:
    """The whole reply to a finished request, with the model's token counts."""
    choice: dict[str, Any] = {"index": 0, "finish_reason": outcome.finish_reason}
    if kind == CHAT:
        choice["message"] = {"role": "assistant", "content": outcome.text}
    else:
        choice.update(text=outcome.text, logprobs=None)
    return {
        **_head(reply_id(kind), model, kind, stream=False),
        "choices": [choice],
        "usage": usage(outcome),
    }


def encode_chunk(
    reply: str,
    model: str,
    kind: str,
    text: str,
    finish_reason: str | None = None,
    *,
    first: bool = False,
) -> dict[str, Any]:
    """One streamed chunk of reply ``reply``: a text delta (the ``first`` one of a chat reply
    names the role), or the last one, with the finish reason and no text."""
    choice: dict[str, Any] = {"index": 0, "finish_reason": finish_reason}
    if kind == CHAT:
        delta: dict[str, Any] = {} if finish_reason else {"content": text}
        choice["delta"] = {"role": "assistant", **delta} if first else delta
    else:
        choice.update(text=text, logprobs=None)
    return {**_head(reply, model, kind, stream=True), "choices": [choice]}


def encode_usage_chunk(reply: str, model: str, kind: str, outcome: Outcome) -> dict[str, Any]:
    """The last chunk of a stream with ``stream_options.include_usage``: no choices, the usage."""
    return {**_head(reply, model, kind, stream=True), "choices": [], "usage": usage(outcome)}


def usage(outcome: Outcome) -> dict[str, int]:
    return {
        "prompt_tokens": outcome.prompt_tokens,
        "completion_tokens": outcome.completion_tokens,
        "total_tokens": outcome.prompt_tokens + outcome.completion_tokens,
    }


def _head(reply: str, model: str, kind: str, *, stream: bool) -> dict[str, Any]:
    obj = (CHAT + ".chunk" if stream else CHAT) if kind == CHAT else TEXT
    return {"id": reply, "object": obj, "created": int(time.time()), "model": model}
