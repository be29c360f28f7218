"""The OpenAI-compatible backend against a real chat-completions server on 127.0.0.1, started by
the test: inline images, concurrency limit, retries on 429 and 5xx, timeouts, and an API key
that reaches the server and no file."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from helpers.tiny_models import write_page
from PIL import Image

from docqa.backends import create_backend
from docqa.backends.base import Completion
from docqa.backends.cache import ResponseCache
from docqa.backends.client import ModelClient
from docqa.backends.openai import OpenAICompatible, OpenAIOptions
from docqa.backends.preparation import prepare_model
from docqa.backends.request import ChatRequest, Generation, Message, Part

SECRET = "sk-test-4f1c9e0b7a2d4c6e8f00docqa"


@dataclass
class ChatServer:
    """A chat-completions server with a script: each request takes the next step of ``plan``
    (``"ok"``, an HTTP status such as ``429``, or ``("sleep", seconds)``); an empty plan answers
    ``ok``. It records what it received and the most requests it held at once."""

    plan: list[Any] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str | None] = field(default_factory=list)
    in_flight: int = 0
    most_in_flight: int = 0
    hold_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def step(self) -> Any:
        with self.lock:
            return self.plan.pop(0) if self.plan else "ok"


def handler_for(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with server.lock:
                server.bodies.append(body)
                server.auth.append(self.headers.get("Authorization"))
                server.in_flight += 1
                server.most_in_flight = max(server.most_in_flight, server.in_flight)
            try:
                self.answer(body, server.step())
            finally:
                with server.lock:
                    server.in_flight -= 1

        def answer(self, body: dict[str, Any], step: Any) -> None:
            if isinstance(step, tuple):
                time.sleep(step[1])
                step = "ok"
            if step != "ok":
                self.send_json(
                    step, {"error": {"message": f"scripted {step}"}}, {"Retry-After": "0"}
                )
                return
            time.sleep(server.hold_s)
            question = body["messages"][-1]["content"]
            text = question if isinstance(question, str) else question[-1]["text"]
            reply = {
                "choices": [{"message": {"role": "assistant", "content": f"echo: {text}"}}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 3},
            }
            self.send_json(200, reply, {})

        def send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def server() -> Iterator[tuple[ChatServer, str]]:
    state = ChatServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(state))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def backend(url: str, **settings: Any) -> OpenAICompatible:
    defaults = {"backoff_s": 0.01, "timeout_s": 60.0}
    return OpenAICompatible(
        "served", OpenAIOptions(base_url=url, model="tiny", **{**defaults, **settings})
    )


def ask(question: str, pages: list[str] = ()) -> ChatRequest:
    parts = [Part.of_image(page, "Revenue 2021: 120") for page in pages]
    return ChatRequest((Message.user(*parts, question),), Generation(max_new_tokens=8))


def test_pages_go_inline_under_the_pixel_budget(
    server: tuple[ChatServer, str], tmp_path: Path
) -> None:
    state, url = server
    page = str(write_page(tmp_path / "page.png", (1280, 720)))
    completion = backend(url, max_pixels=320 * 180).generate([ask("Revenue?", [page])])[0]
    assert completion.text == "echo: Revenue?"
    assert (completion.usage.tokens_in, completion.usage.tokens_out) == (11, 3)
    content = state.bodies[0]["messages"][0]["content"]
    assert [c["type"] for c in content] == ["image_url", "text"]
    prefix, data = content[0]["image_url"]["url"].split(",", 1)
    assert prefix == "data:image/png;base64"
    image = Image.open(io.BytesIO(base64.b64decode(data)))
    assert image.width * image.height <= 320 * 180
    assert image.width / image.height == pytest.approx(1280 / 720, rel=0.02)
    body = state.bodies[0]
    assert (body["model"], body["max_tokens"], body["temperature"]) == ("tiny", 8, 0.0)


def test_reasoning_tokens_and_a_request_pixel_budget_reach_the_server(
    server: tuple[ChatServer, str], tmp_path: Path
) -> None:
    """A reasoning model's entry adds its thinking room to max_tokens; a request's own pixel
    budget (a method's image_max_pixels) replaces the model's."""
    state, url = server
    page = str(write_page(tmp_path / "page.png", (1280, 720)))
    request = ask("Revenue?", [page])
    request = ChatRequest(request.messages, Generation(max_new_tokens=8, max_pixels=160 * 90))
    served = backend(url, max_pixels=None, reasoning_tokens=4096)
    served.generate([request])
    body = state.bodies[-1]
    assert body["max_tokens"] == 8 + 4096
    assert served.identity["reasoning_tokens"] == 4096
    data = body["messages"][0]["content"][0]["image_url"]["url"].split(",", 1)[1]
    image = Image.open(io.BytesIO(base64.b64decode(data)))
    assert image.width * image.height <= 160 * 90


def test_a_reasoning_api_model_gets_max_completion_tokens_and_no_temperature(
    server: tuple[ChatServer, str],
) -> None:
    """OpenAI's GPT-5 and o-series refuse ``max_tokens`` and a temperature other than their
    default: such an entry sends the budget as ``max_completion_tokens`` and no temperature."""
    state, url = server
    served = backend(url, reasoning_api=True, reasoning_tokens=1024)
    served.generate([ask("Revenue?")])
    assert served.identity["reasoning_api"] is True  # its answers are cached apart
    body = state.bodies[-1]
    assert body["max_completion_tokens"] == 8 + 1024
    assert "max_tokens" not in body
    assert "temperature" not in body


def test_stop_strings_can_be_applied_to_the_reply_instead_of_sent(
    server: tuple[ChatServer, str],
) -> None:
    """A model that refuses ``stop`` (GPT-5) or applies it to its thinking (a thinking model
    behind vLLM) gets none; the reply is cut at the first stop string here."""
    state, url = server
    request = ChatRequest(
        (Message.user("Revenue?"),), Generation(max_new_tokens=8, stop=(" Rev", "\n"))
    )
    plain = backend(url).generate([request])[0]
    assert state.bodies[-1]["stop"] == [" Rev", "\n"]
    assert plain.text == "echo: Revenue?"  # the test server does not stop
    served = backend(url, stop_on_client=True)
    cut = served.generate([request])[0]
    assert "stop" not in state.bodies[-1]
    assert cut.text == "echo:"
    assert served.identity["stop_on_client"] is True


def test_text_only_server_reads_pages_as_marked_ocr_text(
    server: tuple[ChatServer, str], tmp_path: Path
) -> None:
    state, url = server
    page = str(write_page(tmp_path / "page.png"))
    completion = backend(url, vision=False).generate([ask("Revenue?", [page])])[0]
    content = state.bodies[0]["messages"][0]["content"]
    assert isinstance(content, str)
    assert "[image shown as its OCR text]" in content
    assert "Revenue 2021: 120" in content
    assert completion.usage.images_as_text == 1


def test_429_and_500_are_retried_with_backoff(server: tuple[ChatServer, str]) -> None:
    state, url = server
    state.plan = [429, 500, 503]
    completion = backend(url, max_retries=3).generate([ask("Retry?")])[0]
    assert completion.text == "echo: Retry?"
    assert len(state.bodies) == 4


def test_too_many_failures_name_the_model_and_the_fix(server: tuple[ChatServer, str]) -> None:
    state, url = server
    state.plan = [500, 500, 500]
    with pytest.raises(
        RuntimeError, match=r"model served: no answer from .* after 3 tries.*max_retries"
    ):
        backend(url, max_retries=2).generate([ask("Down?")])
    assert len(state.bodies) == 3


def test_client_errors_fail_at_once(server: tuple[ChatServer, str]) -> None:
    state, url = server
    state.plan = [400]
    with pytest.raises(RuntimeError, match=r"model served: HTTP 400 .*scripted 400"):
        backend(url).generate([ask("Bad?")])
    assert len(state.bodies) == 1


def test_a_request_that_times_out_is_retried(server: tuple[ChatServer, str]) -> None:
    state, url = server
    state.plan = [("sleep", 6.0)]
    started = time.perf_counter()
    completion = backend(url, timeout_s=0.5, max_retries=1).generate([ask("Slow?")])[0]
    assert completion.text == "echo: Slow?"
    assert len(state.bodies) == 2
    assert time.perf_counter() - started < 5.0  # did not wait for the slow answer
    state.plan = [("sleep", 6.0), ("sleep", 6.0)]
    with pytest.raises(RuntimeError, match=r"timed out after 0.5 s"):
        backend(url, timeout_s=0.5, max_retries=1).generate([ask("Slower?")])


def test_no_more_than_concurrency_requests_in_flight(server: tuple[ChatServer, str]) -> None:
    state, url = server
    state.hold_s = 0.2
    # The default timeout is generous: a retry after a client-side timeout on a loaded machine
    # would leave the abandoned request held by the server and count it twice.
    answers = backend(url, concurrency=3).generate([ask(f"q{i}") for i in range(9)])
    assert [a.text for a in answers] == [f"echo: q{i}" for i in range(9)]  # in order
    assert len(state.bodies) == 9  # no retries
    assert state.most_in_flight == 3


def test_the_key_reaches_the_server_and_no_written_file(
    server: tuple[ChatServer, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = server
    monkeypatch.setenv("DOCQA_TEST_KEY", SECRET)
    log_file = tmp_path / "job.log"
    handler = logging.FileHandler(log_file)
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.DEBUG)
    state.plan = [429, 401]
    entry = {
        "backend": "openai",
        "base_url": url,
        "model": "tiny",
        "api_key_env": "DOCQA_TEST_KEY",
        "backoff_s": 0.01,
        "max_retries": 2,
    }
    prepare_model("hosted", entry, tmp_path / "models" / "hosted")
    hosted = create_backend(entry, tmp_path / "models" / "hosted")

    async def run() -> tuple[Completion, BaseException]:
        client = ModelClient(hosted, ResponseCache(tmp_path / "cache.sqlite"))
        try:
            refused = await asyncio.gather(client.complete(ask("Key?")), return_exceptions=True)
            return await client.complete(ask("Key again?")), refused[0]
        finally:
            await client.close()

    try:
        completion, refused = asyncio.run(run())
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()
    assert isinstance(refused, RuntimeError)
    assert "DOCQA_TEST_KEY" in str(refused)
    assert SECRET not in str(refused)
    (tmp_path / "results.json").write_text(
        json.dumps({"text": completion.text, "identity": hosted.identity, "error": str(refused)})
    )
    assert state.auth == [f"Bearer {SECRET}"] * 3
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) >= 4  # card, cache (+ WAL), log, results
    for path in written:
        assert SECRET.encode() not in path.read_bytes(), path


def test_a_missing_key_variable_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCQA_ABSENT_KEY", raising=False)
    with pytest.raises(
        RuntimeError, match=r"model served: the environment variable DOCQA_ABSENT_KEY"
    ):
        backend("http://127.0.0.1:9/v1", api_key_env="DOCQA_ABSENT_KEY")
