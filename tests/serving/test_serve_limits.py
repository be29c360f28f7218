"""``docqa serve`` against hostile and careless clients, through the official ``openai`` client,
on a tiny random text model with a long context (4096 positions): a request that asks for
everything holds one batch slot while 20 short ones are answered beside it and ends at the
wall-clock limit (or the context window) with its finish reason; a client that disconnects has
its request cancelled; streams (chat and text completions) read by the client's iterator equal
the whole replies; SIGTERM during generation ends ``docqa serve`` within its grace period, with
exit status 0."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import openai
import pytest
from helpers.serving import free_port, get
from helpers.tiny_models import tiny_embedded

from docqa.backends import create_backend
from docqa.serving.health import start_server_process, stop_process
from docqa.serving.server import ModelServer

CONTEXT = 4096
#: the served model's per-request wall-clock limit in these tests
TIMEOUT_S = 12.0
HOSTILE = [{"role": "user", "content": "Tell me everything."}]


def wait_for(condition: Callable[[], bool], what: str, timeout_s: float = 60.0) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def long_lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_embedded(tmp_path_factory.mktemp("tiny-long"), max_position_embeddings=CONTEXT)


@pytest.fixture(scope="module")
def server(long_lm: Path) -> Iterator[ModelServer]:
    backend = create_backend({"backend": "embedded", "max_batch_size": 4}, long_lm)
    served = ModelServer(
        ("127.0.0.1", 0), "tiny", backend, text_only=True, timeout_s=TIMEOUT_S, grace_s=5
    )
    thread = threading.Thread(target=served.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.shutdown()
        served.close()
        backend.close()


def client(server: ModelServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0, timeout=120)


def stats(server: ModelServer) -> dict[str, Any]:
    return get(server.base_url.removesuffix("/v1") + "/health")


def test_a_hostile_request_does_not_stop_short_ones_being_answered(server: ModelServer) -> None:
    api = client(server)
    with pytest.raises(openai.BadRequestError, match=f"context window of {CONTEXT} tokens"):
        api.chat.completions.create(model="tiny", messages=HOSTILE, max_tokens=10**9)

    before = stats(server)
    hostile: dict[str, Any] = {}

    def ask_for_everything() -> None:
        reply = api.chat.completions.create(model="tiny", messages=HOSTILE, max_tokens=CONTEXT - 1)
        hostile.update(reply=reply, at=time.monotonic())

    runner = threading.Thread(target=ask_for_everything)
    runner.start()
    wait_for(lambda: stats(server)["running"] == 1, "the hostile request runs")

    def ask_briefly(index: int) -> tuple[str | None, str, float]:
        reply = api.chat.completions.create(
            model="tiny",
            messages=[{"role": "user", "content": f"Q: What is {index}?\nA:"}],
            max_tokens=4,
        )
        choice = reply.choices[0]
        return choice.message.content, choice.finish_reason, time.monotonic()

    with ThreadPoolExecutor(5) as pool:
        short = list(pool.map(ask_briefly, range(20)))
    runner.join(120)

    assert len(short) == 20
    assert all(isinstance(text, str) for text, _, _ in short)
    assert {reason for _, reason, _ in short} <= {"stop", "length"}
    # all 20 were answered while the hostile request still ran beside them
    assert max(at for _, _, at in short) < hostile["at"]
    choice = hostile["reply"].choices[0]
    assert choice.finish_reason in ("time_limit", "length")
    assert hostile["reply"].usage.completion_tokens > 4
    after = stats(server)
    assert after["requests"] - before["requests"] == 21
    assert after["timed_out"] - before["timed_out"] == (choice.finish_reason == "time_limit")
    assert after["largest_batch"] > 1


def test_a_disconnected_client_has_its_request_cancelled(server: ModelServer) -> None:
    before = stats(server)
    host, port = server.server_address[:2]
    body = json.dumps({"model": "tiny", "messages": HOSTILE, "max_tokens": CONTEXT - 1}).encode()
    with socket.create_connection((str(host), port)) as connection:
        head = (
            f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: "
            f"application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        connection.sendall(head.encode() + body)
        wait_for(lambda: stats(server)["running"] == 1, "the request runs")
    # gone long before its wall-clock limit: cancelled between two steps, its slot freed
    wait_for(lambda: stats(server)["cancelled"] == before["cancelled"] + 1, "it is cancelled", 30)
    after = stats(server)
    assert after["running"] == 0
    assert after["timed_out"] == before["timed_out"]
    steps = after["steps"]
    time.sleep(0.5)
    assert stats(server)["steps"] == steps  # nothing decodes for nobody


def test_streams_read_by_the_openai_client_equal_the_whole_replies(server: ModelServer) -> None:
    api = client(server)
    messages = [{"role": "user", "content": "Q: What is the capital of France?\nA:"}]
    whole = api.chat.completions.create(model="tiny", messages=messages, max_tokens=12)
    chunks = list(
        api.chat.completions.create(
            model="tiny",
            messages=messages,
            max_tokens=12,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert all(chunk.object == "chat.completion.chunk" for chunk in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    reasons = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert reasons[-1] == whole.choices[0].finish_reason
    assert all(reason is None for reason in reasons[:-1])
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == whole.usage.completion_tokens


def test_text_completions_whole_and_streamed(server: ModelServer) -> None:
    api = client(server)
    prompt = "The quarterly report shows revenue of"
    whole = api.completions.create(model="tiny", prompt=prompt, max_tokens=10, stop=["million"])
    assert whole.object == "text_completion"
    assert "million" not in whole.choices[0].text
    assert whole.usage.prompt_tokens > 0
    streamed = api.completions.create(
        model="tiny", prompt=prompt, max_tokens=10, stop=["million"], stream=True
    )
    chunks = list(streamed)
    assert "".join(c.choices[0].text for c in chunks) == whole.choices[0].text
    assert chunks[-1].choices[0].finish_reason == whole.choices[0].finish_reason


def test_sigterm_during_generation_exits_0_within_the_grace_period(
    long_lm: Path, tmp_path: Path
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(json.dumps({"models": {"tiny": {"backend": "embedded", "threads": 2}}}))
    port = free_port()
    command = [sys.executable, "-m", "docqa.cli", "serve", "tiny", "--configfile", str(config)]
    command += ["--model-dir", str(long_lm), "--port", str(port)]
    command += ["--request-timeout", "600", "--shutdown-grace", "2"]
    base_url = f"http://127.0.0.1:{port}/v1"
    log = tmp_path / "serve.log"
    grace_s, slack_s = 2.0, 20.0
    with log.open("w") as output:
        process = start_server_process(command, base_url, timeout_s=180, output=output)
        try:
            api = openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0, timeout=120)
            ended: dict[str, Any] = {}

            def stream_everything() -> None:
                try:
                    for _ in api.chat.completions.create(
                        model="tiny", messages=HOSTILE, max_tokens=CONTEXT - 1, stream=True
                    ):
                        pass
                except openai.APIError as error:
                    ended["error"] = error

            runner = threading.Thread(target=stream_everything)
            runner.start()
            root = base_url.removesuffix("/v1")
            wait_for(lambda: get(root + "/health")["steps"] > 0, "the request generates")
            signalled = time.monotonic()
            os.kill(process.pid, signal.SIGTERM)
            process.wait(grace_s + slack_s)  # TimeoutExpired: it did not stop
            took = time.monotonic() - signalled
            runner.join(30)
        finally:
            stop_process(process, grace_s=1)
    assert process.returncode == 0, log.read_text()[-2000:]
    assert took < grace_s + slack_s
    # the stream ended with the error event that says why, not by a broken connection
    assert "shutting down" in str(ended.get("error")) or "stopped" in str(ended.get("error"))
    with pytest.raises(ConnectionRefusedError):  # nobody listens any more
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
