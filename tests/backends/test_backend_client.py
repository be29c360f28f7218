"""The batching client: cache first, then batches of concurrent requests, errors to callers."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from helpers.tiny_models import LM_PROMPTS as PROMPTS
from helpers.tiny_models import build_tiny_lm, greedy

from docqa.backends.base import Completion
from docqa.backends.cache import ResponseCache
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Message, Part
from docqa.backends.transformers_lm import LMSettings, TransformersLM


class CountingLM(TransformersLM):
    """The real backend, remembering the size of every batch it was given."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.batches: list[int] = []

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        self.batches.append(len(requests))
        return super().generate(requests)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_lm(tmp_path_factory.mktemp("tiny-lm"))


def counting(tiny_dir: Path, max_batch_size: int = 4) -> CountingLM:
    return CountingLM(tiny_dir, {"id": "tiny"}, LMSettings(max_batch_size=max_batch_size))


def ten_requests() -> list[ChatRequest]:
    return [greedy(f"{PROMPTS[i % len(PROMPTS)]} {i}", max_new_tokens=6) for i in range(10)]


async def complete_all(client: ModelClient, requests: list[ChatRequest]) -> list[Completion]:
    try:
        return list(await asyncio.gather(*(client.complete(r) for r in requests)))
    finally:
        await client.close()


def test_concurrent_requests_are_batched(tiny_dir: Path) -> None:
    backend = counting(tiny_dir, max_batch_size=4)
    completions = asyncio.run(complete_all(ModelClient(backend), ten_requests()))
    assert backend.batches == [4, 4, 2]
    direct = backend.generate(ten_requests())
    assert [c.text for c in completions] == [c.text for c in direct]


class GatedLM(CountingLM):
    """The real backend, holding each batch until the test opens the gate."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.gate = threading.Event()

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        self.batches.append(len(requests))
        self.gate.wait(timeout=60)
        return TransformersLM.generate(self, requests)


def test_requests_arriving_during_a_batch_form_the_next_one(tiny_dir: Path) -> None:
    backend = GatedLM(tiny_dir, {"id": "tiny"}, LMSettings(max_batch_size=8))
    requests = ten_requests()

    async def staggered(client: ModelClient) -> None:
        first = asyncio.ensure_future(client.complete(requests[0]))
        while not backend.batches:  # the first batch is in the worker thread, held
            await asyncio.sleep(0.01)
        rest = [asyncio.ensure_future(client.complete(r)) for r in requests[1:5]]
        await asyncio.sleep(0.05)  # the event loop runs while the batch is held
        assert backend.batches == [1]
        backend.gate.set()
        await asyncio.gather(first, *rest)
        await client.close()

    asyncio.run(staggered(ModelClient(backend)))
    assert backend.batches == [1, 4]


def test_a_cache_hit_does_not_call_the_model(tiny_dir: Path, tmp_path: Path) -> None:
    backend = counting(tiny_dir)
    path = tmp_path / "responses.sqlite"
    request = greedy(PROMPTS[0])
    first = asyncio.run(complete_all(ModelClient(backend, ResponseCache(path)), [request]))[0]
    again = asyncio.run(complete_all(ModelClient(backend, ResponseCache(path)), [request]))[0]
    assert backend.batches == [1]
    assert again.text == first.text
    assert (again.usage.calls, again.usage.cached_calls, again.usage.seconds) == (1, 1, 0.0)
    assert (again.usage.tokens_in, again.usage.tokens_out) == (
        first.usage.tokens_in,
        first.usage.tokens_out,
    )
    assert first.usage.cached_calls == 0
    assert first.usage.seconds > 0


def test_a_batch_error_reaches_every_caller(tiny_dir: Path) -> None:
    backend = counting(tiny_dir)
    backend.close()

    async def run() -> list[object]:
        client = ModelClient(backend)
        results = await asyncio.gather(
            *(client.complete(r) for r in ten_requests()[:3]), return_exceptions=True
        )
        await client.close()
        return list(results)

    results = asyncio.run(run())
    assert all(isinstance(r, RuntimeError) and "after close" in str(r) for r in results)


def test_an_image_request_fails_alone(tiny_dir: Path, tmp_path: Path) -> None:
    backend = counting(tiny_dir)
    page = tmp_path / "page.png"
    page.write_bytes(b"png")
    bad = ChatRequest((Message.user(Part.of_image(str(page)), "What?"),))

    async def run() -> list[object]:
        client = ModelClient(backend)
        results = await asyncio.gather(
            client.complete(greedy(PROMPTS[0])), client.complete(bad), return_exceptions=True
        )
        await client.close()
        return list(results)

    good, error = asyncio.run(run())
    assert isinstance(good, Completion)
    assert good.text
    assert isinstance(error, ValueError)
    assert "OCR text" in str(error)
    assert backend.batches == [1]


def test_complete_after_close_is_refused(tiny_dir: Path) -> None:
    async def run() -> None:
        client = ModelClient(counting(tiny_dir))
        await client.close()
        await client.complete(greedy("x"))

    with pytest.raises(RuntimeError, match="after close"):
        asyncio.run(run())
