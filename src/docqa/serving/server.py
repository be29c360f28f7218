"""An OpenAI-compatible chat-completions server for one loaded docqa backend.

Routes: ``POST /v1/chat/completions`` (text and inline image parts), ``GET /v1/models`` and
``GET /health`` (200 once the model is loaded, with the request and batch counts). Each request
is decoded into a ``ChatRequest``, checked by the backend's ``validate`` (so a bad request
fails alone, with a 400), and answered through a ``BatchQueue`` that groups concurrent requests
into one ``generate`` call of up to the backend's ``max_batch_size``.

The served model's ``revision`` (in ``/v1/models`` and the printed config entry) is a hash of
the backend's identity: a client entry that names it keeps its cache entries apart from those
of any other model served under the same name.
"""

from __future__ import annotations

import hashlib
import json
import logging
import tempfile
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from docqa.backends.base import Backend
from docqa.serving.batching import BatchQueue
from docqa.serving.inline_images import ImageStore
from docqa.serving.openai_api import APIError, decode_request, encode_completion

log = logging.getLogger(__name__)

#: the largest request body accepted (a request carries its page images inline)
MAX_BODY_BYTES = 256 * 2**20


def identity_revision(identity: dict[str, Any]) -> str:
    """A short, stable name for a backend's identity."""
    canonical = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


class ModelServer(ThreadingHTTPServer):
    """Serves ``backend`` as the model ``name``; ``text_only`` backends read pages as the OCR
    text the client sends instead of images (client entry ``vision: false``)."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        name: str,
        backend: Backend,
        *,
        text_only: bool,
        wait_s: float = 0.005,
    ) -> None:
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
        self.revision = identity_revision(backend.identity)
        self.queue = BatchQueue(backend.generate, backend.max_batch_size, wait_s)
        self._scratch = tempfile.TemporaryDirectory(prefix="docqa-serve-")
        self.images = ImageStore(Path(self._scratch.name))

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
        """Stop listening, finish the queued requests, release the images."""
        self.server_close()
        self.queue.close()
        self._scratch.cleanup()

    def answer(self, body: Any) -> dict[str, Any]:
        """The reply to one chat-completions body; ``APIError`` when it cannot be answered."""
        if isinstance(body, dict) and body.get("model") not in (None, self.name):
            raise APIError(
                404,
                f"model {body['model']!r} is not served here (this server has {self.name!r}); "
                f"set the client entry's model: {self.name}",
                "model_not_found",
            )
        request = decode_request(body, self.images)
        try:
            self.backend.validate(request)
        except ValueError as error:
            hint = (
                "; this model reads only text: set vision: false in the client's model entry so "
                "that pages are sent as their OCR text"
                if self.text_only and request.images
                else ""
            )
            raise APIError(400, f"{error}{hint}") from None
        try:
            completion = self.queue.submit(request)
        except Exception as error:
            if self.queue.closed:  # 503: the client retries, against a restarted server
                raise APIError(503, "the server is shutting down", "server_error") from None
            log.exception("model %s: a batch failed", self.name)
            raise APIError(500, f"model {self.name} failed: {error}", "server_error") from None
        return encode_completion(completion, self.name, request)

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "model": self.name, **asdict(self.queue.snapshot())}

    def models(self) -> dict[str, Any]:
        entry = {
            "id": self.name,
            "object": "model",
            "owned_by": "docqa",
            "revision": self.revision,
            "identity": self.backend.identity,
            "max_batch_size": self.backend.max_batch_size,
            "vision": not self.text_only,
        }
        return {"object": "list", "data": [entry]}


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
        try:
            if self.path.rstrip("/") != "/v1/chat/completions":
                raise APIError(404, f"no route {self.path}; POST /v1/chat/completions", "not_found")
            self._reply(200, self.server.answer(self._body()))
        except APIError as error:
            self._reply(error.status, error.body())

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
