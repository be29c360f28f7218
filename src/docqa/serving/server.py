"""An OpenAI-compatible server for one loaded docqa backend.

Routes: ``POST /v1/chat/completions`` (text and inline image parts), ``POST /v1/completions``
(a text prompt, read without the chat template), both with ``stream: true`` as server-sent
events; ``GET /v1/models`` and ``GET /health`` (200 once the model is loaded, with the
engine's counts). Each request is decoded, checked (the backend's ``validate``; for a text
model its prompt and ``max_tokens`` against the context window) so that a bad request fails
alone with a 400, and handed to an engine:

- text models (``TransformersLM``: the embedded default and text-only transformers models) go
  to a ``StepScheduler``: continuous batching a decoding step at a time, a per-request
  wall-clock limit (``timeout_s``), and cancellation of requests whose client has gone;
- vision models go to a ``BatchQueue``: concurrent requests share whole ``generate`` calls.

The handler waits on the request's ``Ticket`` and looks at its socket while it waits: a client
that disconnects cancels its request. ``close`` stops listening, gives the admitted requests
``grace_s`` seconds, ends the rest (503, or an error event in a stream) and returns.

The served model's ``revision`` (in ``/v1/models`` and the printed config entry) is a hash of
the backend's identity: a client entry that names it keeps its cache entries apart from those
of any other model served under the same name.
"""

from __future__ import annotations

import hashlib
import json
import logging
import select
import socket
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from docqa.backends.base import Backend, Completion
from docqa.serving.batching import BatchQueue
from docqa.serving.inline_images import ImageStore
from docqa.serving.openai_api import (
    CHAT,
    APIError,
    APIRequest,
    decode_completion_request,
    decode_request,
    encode_chunk,
    encode_reply,
    encode_usage_chunk,
    reply_id,
)
from docqa.serving.scheduler import ShuttingDown, StepScheduler
from docqa.serving.tickets import Event, Outcome, Ticket

log = logging.getLogger(__name__)

#: the largest request body accepted (a request carries its page images inline)
MAX_BODY_BYTES = 256 * 2**20
#: a request's wall-clock limit from its arrival (``docqa serve --request-timeout``)
DEFAULT_REQUEST_TIMEOUT_S = 300.0
#: how long a stopping server lets admitted requests run (``docqa serve --shutdown-grace``)
DEFAULT_SHUTDOWN_GRACE_S = 30.0
#: how often a waiting handler looks whether its client is still there
POLL_S = 0.2

ROUTES = ("/v1/chat/completions", "/v1/completions")


def identity_revision(identity: dict[str, Any]) -> str:
    """A short, stable name for a backend's identity."""
    canonical = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


class ModelServer(ThreadingHTTPServer):
    """Serves ``backend`` as the model ``name``; ``text_only`` backends read pages as the OCR
    text the client sends instead of images (client entry ``vision: false``). ``timeout_s`` is
    a request's wall-clock limit (text models), ``grace_s`` what ``close`` gives running
    requests."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        name: str,
        backend: Backend,
        *,
        text_only: bool,
        wait_s: float = 0.005,
        timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S,
        grace_s: float = DEFAULT_SHUTDOWN_GRACE_S,
    ) -> None:
        from docqa.backends.transformers_lm import TransformersLM

        try:
            super().__init__(address, _Handler)
        except OSError as error:
            raise RuntimeError(
                f"cannot listen on {address[0]}:{address[1]} ({error.strerror}); pick another "
                "--port (0: any free one) or --host"
            ) from None
        self.name = name
        self.backend = backend
        self.text_only = text_only
        self.grace_s = grace_s
        self.revision = identity_revision(backend.identity)
        self.scheduler: StepScheduler | None = None
        self.queue: BatchQueue | None = None
        self.context: int | None = None
        if isinstance(backend, TransformersLM):
            from docqa.backends.lm_steps import StepDecoder

            decoder = StepDecoder(backend)
            self.context = decoder.context
            self.scheduler = StepScheduler(decoder, backend.max_batch_size, timeout_s)
        else:
            self.queue = BatchQueue(backend.generate, backend.max_batch_size, wait_s)
        self._scratch = tempfile.TemporaryDirectory(prefix="docqa-serve-")
        self.images = ImageStore(Path(self._scratch.name))
        self._in_flight = 0
        self._idle = threading.Condition()

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        if isinstance(host, bytes):
            host = host.decode()
        return f"http://{host}:{port}/v1"

    def client_entry(self) -> dict[str, Any]:
        """The ``models:`` entry with which docqa jobs use this server."""
        return {
            "backend": "openai",
            "base_url": self.base_url,
            "model": self.name,
            "revision": self.revision,
            "vision": not self.text_only,
            "concurrency": 2 * self.backend.max_batch_size,
            # a base model reads raw prompts: the client's methods then write few-shot ones
            **(
                {"prompt_format": "raw"}
                if self.backend.identity.get("prompt_format") == "raw"
                else {}
            ),
        }

    def close(self) -> None:
        """Stop listening; give the admitted requests ``grace_s`` seconds and end the rest;
        wait until their replies are sent; release the images."""
        self.server_close()
        if self.scheduler is not None:
            self.scheduler.close(self.grace_s)
        if self.queue is not None:
            self.queue.close()
        with self._idle:  # the handlers write what the engine gave them
            self._idle.wait_for(lambda: self._in_flight == 0, timeout=10)
        self._scratch.cleanup()

    def start(self, path: str, body: Any) -> tuple[APIRequest, Ticket]:
        """Decode and check a request to ``path`` and queue it; ``APIError`` when it cannot
        be answered."""
        if isinstance(body, dict) and body.get("model") not in (None, self.name):
            raise APIError(
                404,
                f"model {body['model']!r} is not served here (this server has {self.name!r}); "
                f"set the client entry's model: {self.name}",
                "model_not_found",
            )
        if path == "/v1/completions":
            if self.scheduler is None:
                raise APIError(400, f"model {self.name} reads images: use /v1/chat/completions")
            api = decode_completion_request(body)
        else:
            api = decode_request(body, self.images)
        try:
            self.backend.validate(api.request)
            ticket = self._enqueue(api)
        except ValueError as error:
            hint = (
                "; this model reads only text: set vision: false in the client's model entry so "
                "that pages are sent as their OCR text"
                if self.text_only and api.request.images
                else ""
            )
            raise APIError(400, f"{error}{hint}") from None
        except RuntimeError:  # 503 (ShuttingDown): the client retries, against a restarted server
            raise APIError(503, "the server is shutting down", "server_error") from None
        return api, ticket

    def _enqueue(self, api: APIRequest) -> Ticket:
        if self.scheduler is not None:
            return self.scheduler.submit(api.request, raw=api.kind != CHAT, stream=api.stream)
        assert self.queue is not None
        ticket = Ticket()
        future = self.queue.enqueue(api.request)
        limit = api.request.generation.max_new_tokens
        future.add_done_callback(lambda done: _deliver(ticket, done, limit))
        return ticket

    def request_started(self) -> None:
        with self._idle:
            self._in_flight += 1

    def request_ended(self) -> None:
        with self._idle:
            self._in_flight -= 1
            self._idle.notify_all()

    def health(self) -> dict[str, Any]:
        engine = self.scheduler or self.queue
        assert engine is not None
        return {"status": "ok", "model": self.name, **asdict(engine.snapshot())}

    def models(self) -> dict[str, Any]:
        entry = {
            "id": self.name,
            "object": "model",
            "owned_by": "docqa",
            "revision": self.revision,
            "identity": self.backend.identity,
            "max_batch_size": self.backend.max_batch_size,
            "max_model_len": self.context,
            "vision": not self.text_only,
        }
        return {"object": "list", "data": [entry]}


def _deliver(ticket: Ticket, done: Future[Completion], limit: int) -> None:
    """A batch queue's completion as its request's events: the whole text as one delta (for a
    stream), then the outcome; or the batch's error."""
    error = done.exception()
    if error is not None:
        ticket.put(error if isinstance(error, Exception) else RuntimeError(str(error)))
        return
    completion = done.result()
    usage = completion.usage
    reason = "length" if usage.tokens_out >= limit else "stop"
    if completion.text:
        ticket.put(completion.text)
    ticket.put(
        Outcome(
            completion.text, reason, usage.tokens_in, usage.tokens_out, completion.truncated_tokens
        )
    )


def _error(event: Exception, model: str) -> APIError:
    if isinstance(event, ShuttingDown):
        return APIError(503, str(event), "server_error")
    log.error("model %s: a request failed: %s", model, event)
    return APIError(500, f"model {model} failed: {event}", "server_error")


class _Handler(BaseHTTPRequestHandler):
    server: ModelServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        routes = {"/health": self.server.health, "/v1/models": self.server.models}
        route = routes.get(self.path.rstrip("/"))
        if route is None:
            self._reply(404, APIError(404, f"no route {self.path}", "not_found").body())
        else:
            self._reply(200, route())

    def do_POST(self) -> None:
        self.server.request_started()
        try:
            path = self.path.rstrip("/")
            try:
                if path not in ROUTES:
                    raise APIError(
                        404, f"no route {self.path}; POST {' or '.join(ROUTES)}", "not_found"
                    )
                api, ticket = self.server.start(path, self._body())
            except APIError as error:
                self._reply(error.status, error.body())
                return
            try:
                if api.stream:
                    self._stream(api, ticket)
                else:
                    self._whole(api, ticket)
            except (BrokenPipeError, ConnectionResetError):  # the client went while we wrote
                ticket.cancel()
        finally:
            self.server.request_ended()

    def _events(self, ticket: Ticket) -> Iterator[Event]:
        """The ticket's events until its last; cancels it (and stops) if the client goes."""
        while True:
            event = ticket.next_event(POLL_S)
            if event is None:
                if self._client_gone():
                    ticket.cancel()
                    return
                continue
            yield event
            if not isinstance(event, str):
                return

    def _whole(self, api: APIRequest, ticket: Ticket) -> None:
        for event in self._events(ticket):
            if isinstance(event, Outcome):
                self._reply(200, encode_reply(event, self.server.name, api.kind))
            elif isinstance(event, Exception):
                error = _error(event, self.server.name)
                self._reply(error.status, error.body())

    def _stream(self, api: APIRequest, ticket: Ticket) -> None:
        """Server-sent events as OpenAI sends them: a chunk per delta, the finish reason, the
        usage (when asked), ``[DONE]``; an error event if the request fails on the way."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the stream ends when the connection does
        self.close_connection = True
        self.end_headers()
        name, kind, reply = self.server.name, api.kind, reply_id(api.kind)
        first = True
        for event in self._events(ticket):
            if isinstance(event, str):
                self._send_event(encode_chunk(reply, name, kind, event, first=first))
                first = False
            elif isinstance(event, Outcome):
                if first and kind == CHAT:
                    self._send_event(encode_chunk(reply, name, kind, "", first=True))
                self._send_event(encode_chunk(reply, name, kind, "", event.finish_reason))
                if api.include_usage:
                    self._send_event(encode_usage_chunk(reply, name, kind, event))
                self._send_event("[DONE]")
            else:
                self._send_event(_error(event, name).body())

    def _send_event(self, data: dict[str, Any] | str) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        self.wfile.write(f"data: {text}\n\n".encode())
        self.wfile.flush()

    def _client_gone(self) -> bool:
        """Whether the client closed its end (a readable socket with nothing to read)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            raise APIError(413, f"request body of {length} bytes; at most {MAX_BODY_BYTES}")
        try:
            return json.loads(self.rfile.read(length))
        except json.JSONDecodeError as error:
            raise APIError(400, f"the request body is not JSON ({error})") from None

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status >= 400:  # the body may be unread: start the next request afresh
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)
