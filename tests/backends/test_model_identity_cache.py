"""One response cache for every backend: a hit answers without the model, and the identity keeps
quantizations and engines apart."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from helpers.tiny_models import build_tiny_vlm, tiny_model_entry, write_page

from docqa.backends import create_backend
from docqa.backends.base import Backend, Completion
from docqa.backends.cache import ResponseCache, cache_key
from docqa.backends.client import ModelClient
from docqa.backends.preparation import prepare_model, read_model_card
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.backends.vllm import VLLMOptions, vllm_identity


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, Path]]:
    root = tmp_path_factory.mktemp("cache")
    weights = build_tiny_vlm("qwen2_5_vl", root / "weights")
    out = {}
    for precision in ("fp32", "nf4"):
        entry = tiny_model_entry(weights, precision=precision)
        prepare_model(f"tiny-{precision}", entry, root / "models" / f"tiny-{precision}")
        out[precision] = (entry, root / "models" / f"tiny-{precision}")
    return out


def requests(folder: Path) -> list[ChatRequest]:
    pages = [str(write_page(folder / f"page{i}.png", seed=i)) for i in range(2)]
    return [
        ChatRequest(
            (Message.user(Part.of_image(pages[0], "ocr"), "Revenue?"),),
            Generation(max_new_tokens=3),
        ),
        ChatRequest(
            (Message.user(*(Part.of_image(p) for p in pages), "Which page?"),),
            Generation(max_new_tokens=3),
        ),
    ]


def answer_all(
    backend: Backend, cache: ResponseCache, batch: list[ChatRequest]
) -> list[Completion]:
    async def run() -> list[Completion]:
        client = ModelClient(backend, cache)
        try:
            return list(await asyncio.gather(*(client.complete(r) for r in batch)))
        finally:
            await client.close()

    return asyncio.run(run())


def test_cache_answers_without_the_model_and_keeps_quantizations_apart(
    prepared: dict[str, tuple[dict, Path]], tmp_path: Path
) -> None:
    batch = requests(tmp_path)
    db = tmp_path / "responses.sqlite"
    fresh = {}
    for precision, (entry, model_dir) in prepared.items():
        backend = create_backend(entry, model_dir)
        fresh[precision] = answer_all(backend, ResponseCache(db), batch)
        backend.close()
    assert len(ResponseCache(db)) == 4  # two requests x two precisions, no entry shared

    for precision, (entry, model_dir) in prepared.items():
        backend = create_backend(entry, model_dir)
        backend.close()  # a closed model raises if it is called at all
        again = answer_all(backend, ResponseCache(db), batch)
        assert [c.text for c in again] == [c.text for c in fresh[precision]]
        assert all(c.usage.cached_calls == 1 for c in again)
        for old, new in zip(fresh[precision], again, strict=True):
            assert (new.usage.tokens_in, new.usage.tokens_out, new.usage.image_tokens) == (
                old.usage.tokens_in,
                old.usage.tokens_out,
                old.usage.image_tokens,
            )


def test_vllm_outputs_are_another_model_identity_than_transformers(
    prepared: dict[str, tuple[dict, Path]], tmp_path: Path
) -> None:
    entry, model_dir = prepared["nf4"]
    card = read_model_card(model_dir)
    backend = create_backend(entry, model_dir)
    vllm = vllm_identity(
        card["identity"], VLLMOptions(path=str(model_dir), quantization="bitsandbytes"), "0.33.0"
    )
    request = requests(tmp_path)[0]
    assert backend.identity["engine"] == "transformers"
    assert vllm["engine"] == "vllm"
    assert cache_key(backend.identity, request) != cache_key(vllm, request)
    assert vllm["sha256"] == backend.identity["sha256"]  # the same weights, another engine
