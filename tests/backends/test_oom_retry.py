"""A request that runs out of memory is retried once with a smaller pixel budget, and recorded.

The out-of-memory is real: a page so large that the tiny Qwen2.5-VL's full-attention vision
layer asks the CPU allocator for more than twice this machine's memory, which Linux refuses
under its default overcommit policy. The page is sized from the machine's memory, so the test
needs a few seconds of CPU and about 2 GB of memory wherever it runs.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
from pathlib import Path

import pytest
from helpers.tiny_models import build_tiny_vlm, write_page

from docqa.backends.cache import ResponseCache
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.backends.transformers import TransformersOptions
from docqa.backends.vlm import TransformersVLM

HEADS, BYTES = 4, 4  # the tiny vision tower's heads; float32 attention weights
PATCH = 14


def refusing_overcommit() -> bool:
    try:
        return Path("/proc/sys/vm/overcommit_memory").read_text().strip() in ("0", "2")
    except OSError:
        return False


def page_side_beyond_memory() -> int:
    """A square page whose vision attention matrix (patches^2 x heads x 4 bytes) is more than
    twice the machine's physical memory."""
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    patches = math.sqrt(2 * memory / (HEADS * BYTES))
    return int(math.sqrt(patches) * PATCH) + 2 * 28


@pytest.mark.slow
@pytest.mark.skipif(not refusing_overcommit(), reason="needs Linux refusing huge allocations")
def test_out_of_memory_retries_that_request_once_with_a_smaller_budget(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    side = page_side_beyond_memory()
    if side * side > 60_000_000:
        pytest.skip(f"this machine's memory needs a {side}x{side} page")
    weights = build_tiny_vlm("qwen2_5_vl", tmp_path / "weights")
    huge = str(write_page(tmp_path / "huge.png", (side, side)))
    small = str(write_page(tmp_path / "small.png", (320, 180)))
    settings = TransformersOptions(
        path=str(weights),
        precision="fp32",
        device="cpu",
        attn_implementation="eager",
        max_pixels=side * side + 28 * 28,
        oom_retry_max_pixels=112 * 112,
    )
    backend = TransformersVLM("tiny-oom", weights, {"id": "tiny"}, settings)
    requests = [
        ChatRequest((Message.user(Part.of_image(p), "Q?"),), Generation(max_new_tokens=2))
        for p in (huge, small)
    ]
    cache = ResponseCache(tmp_path / "responses.sqlite")

    async def through_the_client() -> list:
        client = ModelClient(backend, cache)
        try:
            return list(await asyncio.gather(*(client.complete(r) for r in requests)))
        finally:
            await client.close()

    with caplog.at_level(logging.WARNING, logger="docqa.backends.vlm"):
        completions = asyncio.run(through_the_client())

    # the batch was split; only the huge page was retried, at the smaller budget, and recorded
    assert [c.retried_max_pixels for c in completions] == [112 * 112, None]
    assert [c.usage.budget_retries for c in completions] == [1, 0]
    assert completions[0].usage.image_tokens <= 112 * 112 // (28 * 28)
    # the answer made at the smaller budget is not cached under the model's full identity
    reopened = ResponseCache(tmp_path / "responses.sqlite")
    assert reopened.get(backend.identity, requests[0]) is None
    assert reopened.get(backend.identity, requests[1]) is not None
    assert completions[1].usage.tokens_out >= 1
    assert "model tiny-oom: out of memory" in caplog.text
    assert "retrying it once with max_pixels=12544" in caplog.text

    # a budget that is still too large fails with the model's name and the fix
    still_huge = settings.model_copy(update={"oom_retry_max_pixels": side * side})
    stubborn = TransformersVLM("tiny-oom", weights, {"id": "tiny"}, still_huge)
    with pytest.raises(RuntimeError, match=r"model tiny-oom: out of memory .* lower models"):
        stubborn.generate(requests[:1])
