"""``docqa serve``'s server in this process, on tiny random models: the OpenAI-compatible client
backend gets what the model answers directly, concurrent requests share batches, images arrive
inline, and bad requests fail alone with a message that says what to change."""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers.serving import get
from helpers.tiny_models import (
    build_tiny_vlm,
    tiny_embedded,
    tiny_model_entry,
    write_page,
)

from docqa.backends import create_backend
from docqa.backends.base import Backend
from docqa.backends.openai import OpenAICompatible, OpenAIOptions
from docqa.backends.preparation import prepare_model
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.serving.server import ModelServer

PROMPTS = [
    "Q: What is the revenue in 2021?\nA:",
    "Which page shows the chart? Page",
    "The quarterly report compares regions A, B and C by margin and growth.\nQ: Regions?\nA:",
    "Answer with a number.",
]


def post(url: str, body: Any) -> tuple[int, dict[str, Any]]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(
        url + "/chat/completions", data, {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@contextmanager
def serving(name: str, backend: Backend, text_only: bool) -> Iterator[tuple[ModelServer, str]]:
    server = ModelServer(("127.0.0.1", 0), name, backend, text_only=text_only, wait_s=0.2)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server, server.base_url
    finally:
        server.shutdown()
        server.close()


def client(url: str, model: str, **settings: Any) -> OpenAICompatible:
    return OpenAICompatible("served", OpenAIOptions(base_url=url, model=model, **settings))


@pytest.fixture(scope="module")
def lm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    folder = tiny_embedded(tmp_path_factory.mktemp("tiny-embedded"))
    backend = create_backend({"backend": "embedded", "max_batch_size": 4}, folder)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def served_lm(lm: Backend) -> Iterator[tuple[ModelServer, str]]:
    with serving("tiny", lm, text_only=True) as served:
        yield served


def test_served_answers_equal_direct_answers_and_share_batches(
    lm: Backend, served_lm: tuple[ModelServer, str]
) -> None:
    server, url = served_lm
    assert server.scheduler is not None  # a text model is served a decoding step at a time
    before = server.scheduler.snapshot()
    requests = [ChatRequest.prompt(p, Generation(max_new_tokens=6, stop=("\n",))) for p in PROMPTS]
    direct = [lm.generate([request])[0] for request in requests]
    remote = client(url, "tiny", vision=False, concurrency=4).generate(requests)
    assert [c.text for c in remote] == [c.text for c in direct]
    assert [c.usage.tokens_in for c in remote] == [c.usage.tokens_in for c in direct]
    assert [c.usage.tokens_out for c in remote] == [c.usage.tokens_out for c in direct]
    after = server.scheduler.snapshot()
    assert after.requests - before.requests == len(PROMPTS)
    # four requests in flight at once: they shared decoding steps
    assert after.steps - before.steps < sum(c.usage.tokens_out for c in direct)
    assert after.largest_batch > 1


def test_health_and_models_describe_the_served_model(served_lm: tuple[ModelServer, str]) -> None:
    server, url = served_lm
    health = get(url.removesuffix("/v1") + "/health")
    assert health["status"] == "ok"
    assert health["model"] == "tiny"
    assert {"requests", "steps", "largest_batch", "timed_out", "cancelled", "failed"} <= set(health)
    (model,) = get(url + "/models")["data"]
    assert model["id"] == "tiny"
    assert model["identity"]["id"] == "tiny-gemma"
    assert model["revision"] == server.revision
    assert len(server.revision) == 16
    entry = server.client_entry()
    assert entry["vision"] is False
    assert entry["base_url"] == url
    assert entry["model"] == "tiny"


def test_a_reply_has_openai_fields_and_token_usage(served_lm: tuple[ModelServer, str]) -> None:
    _, url = served_lm
    body = {"model": "tiny", "messages": [{"role": "user", "content": PROMPTS[0]}]}
    status, reply = post(url, {**body, "max_tokens": 3, "temperature": 0})
    assert status == 200, reply
    assert reply["object"] == "chat.completion"
    assert reply["model"] == "tiny"
    choice = reply["choices"][0]
    assert choice["message"]["role"] == "assistant"
    usage = reply["usage"]
    assert usage["prompt_tokens"] > 0
    assert 1 <= usage["completion_tokens"] <= 3
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    expected = "length" if usage["completion_tokens"] == 3 else "stop"
    assert choice["finish_reason"] == expected


def image_body(url: str) -> dict[str, Any]:
    """A request whose one part is an image at ``url``."""
    part = {"type": "image_url", "image_url": {"url": url}}
    return {"messages": [{"role": "user", "content": [part]}]}


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"{not json", 400, "not JSON"),
        ({"model": "other", "messages": []}, 404, "model 'other' is not served here"),
        ({"messages": []}, 400, "messages must be a non-empty list"),
        ({"messages": [{"role": "robot", "content": "x"}]}, 400, r"messages\[0\]: needs a role"),
        ({"messages": [{"role": "user", "content": "x"}], "n": 2}, 400, "n=2 is not supported"),
        ({"messages": [{"role": "user", "content": "x"}], "stream": 1}, 400, "stream must be"),
        (
            {"messages": [{"role": "user", "content": "x"}], "max_tokens": 10**9},
            400,
            "max_tokens=1000000000 does not fit the model's context window of 128 tokens .*"
            "ask for at most max_tokens=127",
        ),
        ({"messages": [{"role": "user", "content": "x"}], "max_tokens": 0}, 400, "max_tokens"),
        (
            image_body("http://x/p.png"),
            400,
            r"content\[0\]: image_url 'http://x/p.png' is not an inline image.*fetches nothing",
        ),
        (image_body("data:image/png;base64,AAAA"), 400, "not a readable image"),
        (image_body("data:image/png;base64,%%%"), 400, "base64 data is broken"),
    ],
)
def test_a_bad_request_fails_alone_and_says_why(
    served_lm: tuple[ModelServer, str], body: Any, status: int, message: str
) -> None:
    server, url = served_lm
    got, reply = post(url, body)
    assert got == status
    assert re.search(message, reply["error"]["message"]), reply
    # the server goes on answering
    ok, _ = post(url, {"messages": [{"role": "user", "content": "Q:"}], "max_tokens": 1})
    assert ok == 200


def test_a_page_image_for_a_text_only_model_says_to_send_its_ocr_text(
    served_lm: tuple[ModelServer, str], tmp_path: Path
) -> None:
    _, url = served_lm
    page = str(write_page(tmp_path / "page.png", (64, 48)))
    request = ChatRequest((Message.user(Part.of_image(page, "Revenue 42"), "Revenue?"),))
    with pytest.raises(RuntimeError, match="HTTP 400.*set vision: false in the client's model"):
        client(url, "tiny", vision=True, max_retries=0).generate([request])
    # with vision: false the page reaches the model as its marked OCR text
    (completion,) = client(url, "tiny", vision=False).generate([request])
    assert completion.usage.tokens_in > 0


def test_a_vlm_reads_inline_pages_as_it_reads_them_directly(tmp_path: Path) -> None:
    entry = tiny_model_entry(build_tiny_vlm("llava", tmp_path / "vlm"))
    prepare_model("tiny-llava", entry, tmp_path / "prepared")
    vlm = create_backend(entry, tmp_path / "prepared")
    pages = [str(write_page(tmp_path / f"p{i}.png", (96, 64), seed=i)) for i in range(2)]
    requests = [
        ChatRequest((Message.user(Part.of_image(page), "What is the revenue?"),), Generation(4))
        for page in pages
    ]
    try:
        direct = [vlm.generate([request])[0] for request in requests]
        with serving("tiny-llava", vlm, text_only=False) as (server, url):
            remote = client(url, "tiny-llava").generate(requests)
            stored = sorted(p.name for p in server.images.folder.iterdir())
    finally:
        vlm.close()
    assert [c.text for c in remote] == [c.text for c in direct]
    assert [c.usage.tokens_in for c in remote] == [c.usage.tokens_in for c in direct]
    assert len(stored) == 2
    assert all(name.endswith(".png") for name in stored)


def test_a_port_in_use_says_to_pick_another(
    lm: Backend, served_lm: tuple[ModelServer, str]
) -> None:
    server, _ = served_lm
    with pytest.raises(RuntimeError, match=r"cannot listen on 127\.0\.0\.1:\d+ .*another --port"):
        ModelServer(server.server_address, "tiny", lm, text_only=True)
