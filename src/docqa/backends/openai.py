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
from pathlib import Path
from typing import Any, Literal

from docqa.backends import BACKENDS
from docqa.backends.base import DEFAULT_MAX_PIXELS, Backend, Completion, ModelOptions
from docqa.backends.chat_format import openai_messages
from docqa.backends.errors import InfrastructureError
from docqa.backends.pixels import check_pages
from docqa.backends.preparation import read_model_card
from docqa.backends.request import ChatRequest, cut_at_stop
from docqa.core.prediction import Usage
from docqa.runtime.spec import Field

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class OpenAIOptions(ModelOptions):
    """A model's config entry for ``backend: openai``.

    ``reasoning_tokens`` is added to every request's ``max_new_tokens`` before it is sent as
    ``max_tokens``: a reasoning model (Gemini 2.5 Pro, o-series) counts its hidden thinking
    against ``max_tokens`` and returns an empty reply when a method's small budget is spent
    on thinking; 0 (the default) sends the budget as it is.
    """

    threads: int | None = Field(
        1,
        ge=1,
        description="CPU threads of the job: one, as the model runs elsewhere and the job only "
        "sends requests (a SLURM job then asks one CPU)",
    )
    base_url: str = Field(
        pattern=r"^https?://", description="the server's OpenAI-compatible /v1 address"
    )
    model: str = Field(description="the served model name (pin a dated snapshot for hosted models)")
    api_key_env: str | None = Field(
        None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="the environment variable holding the API key (null: no key)",
    )
    revision: str | None = Field(
        None, description="what the server runs (for the cache identity of a self-hosted model)"
    )
    vision: bool = Field(True, description="false: pages are sent as their marked OCR text")
    max_pixels: int | None = Field(
        DEFAULT_MAX_PIXELS, ge=784, description="pixel budget per page image (null: no cap)"
    )
    image_detail: Literal["low", "high", "auto"] | None = Field(
        None, description="the image_url detail sent with each page (null: the server's)"
    )
    concurrency: int = Field(8, ge=1, description="requests in flight at once")
    timeout_s: float = Field(120.0, gt=0, description="seconds a request may take")
    max_retries: int = Field(5, ge=0, description="retries after HTTP 429/5xx or a timeout")
    backoff_s: float = Field(1.0, ge=0, description="first wait between retries, doubled each")
    max_backoff_s: float = Field(60.0, ge=0, description="longest wait between retries")
    seed: int | None = Field(None, description="sent with every request (null: none)")
    reasoning_tokens: int = Field(
        0, ge=0, description="added to every request's max_new_tokens (thinking room)"
    )
    reasoning_api: bool = Field(
        False,
        description="true: the budget goes as max_completion_tokens and no temperature is sent "
        "(OpenAI's reasoning models, GPT-5 and o-series, refuse max_tokens and any "
        "temperature but their default)",
    )
    stop_on_client: bool = Field(
        False,
        description="true: a request's stop strings are not sent but cut from the reply here "
        "(OpenAI's GPT-5 reasoning models refuse stop; vLLM applies it to a thinking model's "
        "thinking)",
    )
    prompt_format: Literal["raw", "chat"] | None = Field(
        None,
        description="how the served model reads prompts (docqa serve of a base model: raw); "
        "the methods' prompt style follows it",
    )


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
    def __init__(self, name: str, options: OpenAIOptions) -> None:
        self.name = name
        self.options = options
        self.max_batch_size = options.concurrency
        self._url = options.base_url.rstrip("/") + "/chat/completions"
        self._key = self._read_key()
        self._pool = ThreadPoolExecutor(options.concurrency, thread_name_prefix=f"http-{name}")
        self._identity = {
            "engine": "openai-http",
            "model": options.model,
            "revision": options.revision,
            "vision": options.vision,
            "max_pixels": options.max_pixels if options.vision else None,
            "image_detail": options.image_detail,
            "seed": options.seed,
        }
        if options.reasoning_tokens:  # older cache keys stay valid without it
            self._identity["reasoning_tokens"] = options.reasoning_tokens
        if options.reasoning_api:  # the request's temperature is not sent: another sampling
            self._identity["reasoning_api"] = True
        if options.stop_on_client:  # the model writes past a stop string, which is cut here
            self._identity["stop_on_client"] = True
        if options.prompt_format:
            self._identity["prompt_format"] = options.prompt_format

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    def validate(self, request: ChatRequest) -> None:
        if self.options.vision:
            check_pages(request.images)
        else:
            request.as_text_only()

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        return list(self._pool.map(self._complete, requests))

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def _read_key(self) -> str | None:
        variable = self.options.api_key_env
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
        options = self.options
        body: dict[str, Any] = {
            "model": options.model,
            "messages": openai_messages(
                request,
                vision=options.vision,
                max_pixels=(
                    options.max_pixels
                    if request.generation.max_pixels is None
                    else request.generation.max_pixels
                ),
                image_detail=options.image_detail,
            ),
        }
        budget = request.generation.max_new_tokens + options.reasoning_tokens
        if options.reasoning_api:
            body["max_completion_tokens"] = budget
        else:
            body["max_tokens"] = budget
            body["temperature"] = request.generation.temperature
        if request.generation.stop and not options.stop_on_client:
            body["stop"] = list(request.generation.stop)
        if options.seed is not None:
            body["seed"] = options.seed
        started = time.perf_counter()
        reply = self._post(json.dumps(body).encode())
        seconds = time.perf_counter() - started
        usage = reply.get("usage") or {}
        text = reply["choices"][0]["message"].get("content") or ""
        if options.stop_on_client:
            text = cut_at_stop(text, request.generation.stop)
        return Completion(
            text,
            Usage(
                calls=1,
                tokens_in=int(usage.get("prompt_tokens", 0)),
                tokens_out=int(usage.get("completion_tokens", 0)),
                images_as_text=0 if options.vision else len(request.images),
                seconds=seconds,
            ),
        )

    def _post(self, data: bytes) -> dict[str, Any]:
        options = self.options
        headers = {"Content-Type": "application/json"}
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key}"
        attempt = 0
        while True:
            request = urllib.request.Request(self._url, data=data, headers=headers, method="POST")
            try:
                return self._send(request)
            except RetryableError as error:
                if attempt == options.max_retries:
                    raise InfrastructureError(
                        f"model {self.name}: no answer from {options.base_url} after "
                        f"{attempt + 1} tries (last: {error}); check the server: start it, or "
                        f"correct models.{self.name}.base_url, or see its log for why it fails; "
                        f"a server that is only slow needs a higher models.{self.name}."
                        "max_retries / timeout_s"
                    ) from None
                wait = min(
                    options.max_backoff_s, error.retry_after or options.backoff_s * 2**attempt
                )
                attempt += 1
                log.warning(
                    "model %s: %s; retry %d of %d in %.1f s",
                    self.name,
                    error,
                    attempt,
                    options.max_retries,
                    wait,
                )
                time.sleep(wait)

    def _send(self, request: urllib.request.Request) -> dict[str, Any]:
        try:
            with urllib.request.urlopen(request, timeout=self.options.timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            detail = self._scrub(error.read().decode("utf-8", "replace")[:500])
            if error.code in RETRY_STATUSES:
                raise RetryableError(
                    f"HTTP {error.code} from {self.options.base_url}",
                    error.headers.get("Retry-After"),
                ) from None
            if error.code in (401, 403):
                variable = self.options.api_key_env
                fix = (
                    f"check the key in ${variable} and its access to {self.options.model}"
                    if variable
                    else f"the request carried no API key: set models.{self.name}.api_key_env "
                    "to the environment variable that holds one"
                )
                raise InfrastructureError(
                    f"model {self.name}: {self.options.base_url} refused the request (HTTP "
                    f"{error.code}); {fix}"
                ) from None
            raise RuntimeError(
                f"model {self.name}: HTTP {error.code} from {self.options.base_url}: {detail}"
            ) from None
        except TimeoutError:
            raise RetryableError(f"timed out after {self.options.timeout_s} s") from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, (TimeoutError, socket.timeout)):
                raise RetryableError(f"timed out after {self.options.timeout_s} s") from None
            if isinstance(error.reason, ConnectionError):
                raise RetryableError(f"cannot connect to {self.options.base_url}") from None
            raise InfrastructureError(
                f"model {self.name}: cannot reach {self.options.base_url} ({error.reason}); "
                f"check models.{self.name}.base_url and the network"
            ) from None

    def _scrub(self, text: str) -> str:
        return text.replace(self._key, "[API key]") if self._key else text


@BACKENDS.register("openai", options=OpenAIOptions)
def create_openai(options: OpenAIOptions, model_dir: Path) -> OpenAICompatible:
    return OpenAICompatible(read_model_card(model_dir)["name"], options)
