"""A backend for any OpenAI-compatible chat completions server: hosted models (GPT-4o), a local
``vllm serve``, or anything else that speaks ``POST {base_url}/chat/completions``.

Pages are sent inline (PNG ``data:`` URLs under the pixel budget); ``vision: false`` sends their
marked OCR text instead. A batch from the client is answered by up to ``concurrency`` requests
in flight at once. A request that gets HTTP 429 or 5xx, times out or cannot connect is retried up
to ``max_retries`` times, waiting ``backoff_s * 2**attempt`` seconds (or the server's
``Retry-After``), at most ``max_backoff_s``; other HTTP errors fail at once. A server that
stays unreachable and a refused key (HTTP 401/403) raise ``InfrastructureError``: the infer job
fails and its rerun asks those questions again (docqa.backends.errors).

The API key is read from the environment variable that ``api_key_env`` names, when the backend
is created, and goes only into the ``Authorization`` header: never into the identity, the cache,
logs, traces or error messages (a server's error text is scrubbed of it).

The identity is the served ``model`` name (pin a dated snapshot such as ``gpt-4o-2024-08-06``)
and the optional ``revision`` of the weights behind a self-hosted server, not the URL: the same
model behind another address shares its cache entries. Token counts are the server's ``usage``;
servers do not report image tokens separately, so ``image_tokens`` stays 0.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from docqa.backends import BACKENDS
from docqa.backends.base import Backend, Completion
from docqa.backends.chat_format import openai_messages
from docqa.backends.errors import InfrastructureError
from docqa.backends.pixels import DEFAULT_MAX_PIXELS, check_pages
from docqa.backends.preparation import read_model_card
from docqa.backends.request import ChatRequest
from docqa.core.prediction import Usage

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class HTTPSettings:
    """A model's config entry for ``backend: openai``.

    ``reasoning_tokens`` is added to every request's ``max_new_tokens`` before it is sent as
    ``max_tokens``: a reasoning model (Gemini 2.5 Pro, o-series) counts its hidden thinking
    against ``max_tokens`` and returns an empty reply when a method's small budget is spent
    on thinking; 0 (the default) sends the budget as it is.
    """

    base_url: str
    model: str
    api_key_env: str | None = None
    revision: str | None = None
    vision: bool = True
    max_pixels: int | None = DEFAULT_MAX_PIXELS
    image_detail: str | None = None
    concurrency: int = 8
    timeout_s: float = 120.0
    max_retries: int = 5
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0
    seed: int | None = None
    reasoning_tokens: int = 0
    #: how the served model reads prompts, where the server says so (``docqa serve`` of a base
    #: model: ``raw``): the methods then send it few-shot prompts, as they would directly
    prompt_format: str | None = None

    @classmethod
    def from_config(cls, model_cfg: dict[str, Any]) -> HTTPSettings:
        names = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in model_cfg.items() if key in names})


class RetryableError(Exception):
    """A failure worth another try: HTTP 429/5xx, a timeout, a refused connection;
    ``retry_after`` is the server's ``Retry-After`` in seconds, when it sent a number."""

    def __init__(self, message: str, retry_after: str | None = None) -> None:
        super().__init__(message)
        try:
            self.retry_after = float(retry_after) if retry_after is not None else None
        except ValueError:
            self.retry_after = None


class OpenAICompatible(Backend):
    def __init__(self, name: str, settings: HTTPSettings) -> None:
        self.name = name
        self.settings = settings
        self.max_batch_size = settings.concurrency
        self._url = settings.base_url.rstrip("/") + "/chat/completions"
        self._key = self._read_key()
        self._pool = ThreadPoolExecutor(settings.concurrency, thread_name_prefix=f"http-{name}")
        self._identity = {
            "engine": "openai-http",
            "model": settings.model,
            "revision": settings.revision,
            "vision": settings.vision,
            "max_pixels": settings.max_pixels if settings.vision else None,
            "image_detail": settings.image_detail,
            "seed": settings.seed,
        }
        if settings.reasoning_tokens:  # older cache keys stay valid without it
            self._identity["reasoning_tokens"] = settings.reasoning_tokens
        if settings.prompt_format:
            self._identity["prompt_format"] = settings.prompt_format

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    def validate(self, request: ChatRequest) -> None:
        if self.settings.vision:
            check_pages(request.images)
        else:
            request.as_text_only()

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        return list(self._pool.map(self._complete, requests))

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def _read_key(self) -> str | None:
        variable = self.settings.api_key_env
        if variable is None:
            return None
        key = os.environ.get(variable, "")
        if not key:
            raise RuntimeError(
                f"model {self.name}: the environment variable {variable} (models.{self.name}."
                f"api_key_env) is not set; export it with the API key before running the job"
            )
        return key

    def _complete(self, request: ChatRequest) -> Completion:
        settings = self.settings
        body: dict[str, Any] = {
            "model": settings.model,
            "messages": openai_messages(
                request,
                vision=settings.vision,
                max_pixels=(
                    settings.max_pixels
                    if request.generation.max_pixels is None
                    else request.generation.max_pixels
                ),
                image_detail=settings.image_detail,
            ),
            "max_tokens": request.generation.max_new_tokens + settings.reasoning_tokens,
            "temperature": request.generation.temperature,
        }
        if request.generation.stop:
            body["stop"] = list(request.generation.stop)
        if settings.seed is not None:
            body["seed"] = settings.seed
        started = time.perf_counter()
        reply = self._post(json.dumps(body).encode())
        seconds = time.perf_counter() - started
        usage = reply.get("usage") or {}
        text = reply["choices"][0]["message"].get("content") or ""
        return Completion(
            text,
            Usage(
                calls=1,
                tokens_in=int(usage.get("prompt_tokens", 0)),
                tokens_out=int(usage.get("completion_tokens", 0)),
                images_as_text=0 if settings.vision else len(request.images),
                seconds=seconds,
            ),
        )

    def _post(self, data: bytes) -> dict[str, Any]:
        settings = self.settings
        headers = {"Content-Type": "application/json"}
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key}"
        attempt = 0
        while True:
            request = urllib.request.Request(self._url, data=data, headers=headers, method="POST")
            try:
                return self._send(request)
            except RetryableError as error:
                if attempt == settings.max_retries:
                    raise InfrastructureError(
                        f"model {self.name}: no answer from {settings.base_url} after "
                        f"{attempt + 1} tries (last: {error}); check the server: start it, or "
                        f"correct models.{self.name}.base_url, or see its log for why it fails; "
                        f"a server that is only slow needs a higher models.{self.name}."
                        "max_retries / timeout_s"
                    ) from None
                wait = min(
                    settings.max_backoff_s, error.retry_after or settings.backoff_s * 2**attempt
                )
                attempt += 1
                log.warning(
                    "model %s: %s; retry %d of %d in %.1f s",
                    self.name,
                    error,
                    attempt,
                    settings.max_retries,
                    wait,
                )
                time.sleep(wait)

    def _send(self, request: urllib.request.Request) -> dict[str, Any]:
        try:
            with urllib.request.urlopen(request, timeout=self.settings.timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            detail = self._scrub(error.read().decode("utf-8", "replace")[:500])
            if error.code in RETRY_STATUSES:
                raise RetryableError(
                    f"HTTP {error.code} from {self.settings.base_url}",
                    error.headers.get("Retry-After"),
                ) from None
            if error.code in (401, 403):
                variable = self.settings.api_key_env
                fix = (
                    f"check the key in ${variable} and its access to {self.settings.model}"
                    if variable
                    else f"the request carried no API key: set models.{self.name}.api_key_env "
                    "to the environment variable that holds one"
                )
                raise InfrastructureError(
                    f"model {self.name}: {self.settings.base_url} refused the request (HTTP "
                    f"{error.code}); {fix}"
                ) from None
            raise RuntimeError(
                f"model {self.name}: HTTP {error.code} from {self.settings.base_url}: {detail}"
            ) from None
        except TimeoutError:
            raise RetryableError(f"timed out after {self.settings.timeout_s} s") from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, (TimeoutError, socket.timeout)):
                raise RetryableError(f"timed out after {self.settings.timeout_s} s") from None
            if isinstance(error.reason, ConnectionError):
                raise RetryableError(f"cannot connect to {self.settings.base_url}") from None
            raise InfrastructureError(
                f"model {self.name}: cannot reach {self.settings.base_url} ({error.reason}); "
                f"check models.{self.name}.base_url and the network"
            ) from None

    def _scrub(self, text: str) -> str:
        return text.replace(self._key, "[API key]") if self._key else text


@BACKENDS.register("openai")
def create_openai(model_cfg: dict[str, Any], model_dir: Path) -> OpenAICompatible:
    name = read_model_card(model_dir)["name"]
    missing = [key for key in ("base_url", "model") if key not in model_cfg]
    if missing:
        raise ValueError(
            f"model {name}: backend openai needs models.{name}.{missing[0]} (base_url: the "
            "server's /v1 address; model: the served model name)"
        )
    return OpenAICompatible(name, HTTPSettings.from_config(model_cfg))
