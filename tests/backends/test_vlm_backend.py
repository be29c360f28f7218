"""The transformers backend on tiny random models of every family: prepared from a local folder,
loaded back through the Auto classes, answering requests with 1-3 page images."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tiny_models import build_tiny_vlm, tiny_model_entry, write_page

from docqa.backends import create_backend
from docqa.backends.base import Backend
from docqa.backends.preparation import prepare_model
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.backends.transformers_lm import TransformersLM
from docqa.backends.vlm import TransformersVLM

VLM_FAMILIES = ["qwen2_vl", "qwen2_5_vl", "llava", "llava_next", "llava_onevision", "idefics3"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("pages")
    sizes = [(1280, 720), (720, 1280), (1280, 720)]
    return [str(write_page(folder / f"p{i}.png", size, seed=i)) for i, size in enumerate(sizes)]


def backend_for(
    family: str, root: Path, **settings: object
) -> TransformersVLM | TransformersLM | Backend:
    folder = root / "weights" / family
    if not folder.exists():
        build_tiny_vlm(family, folder)
    entry = tiny_model_entry(folder, **settings)
    name = f"tiny-{family}-" + "-".join(f"{k}{v}" for k, v in sorted(settings.items()))
    prepare_model(name, entry, root / "models" / name)
    return create_backend(entry, root / "models" / name)


def ask(pages: list[str], question: str, tokens: int = 4) -> ChatRequest:
    parts = [Part.of_image(page, f"OCR of {Path(page).stem}") for page in pages]
    return ChatRequest((Message.user(*parts, question),), Generation(max_new_tokens=tokens))


def requests_with_1_to_3_pages(pages: list[str]) -> list[ChatRequest]:
    return [
        ask(pages[:1], "What is the revenue in 2021?"),
        ask(pages, "Which page shows the chart?"),
        ask(pages[1:], "Answer with a number."),
    ]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("vlm")


@pytest.mark.parametrize("family", VLM_FAMILIES)
def test_every_family_answers_requests_with_one_to_three_pages(
    family: str, root: Path, pages: list[str]
) -> None:
    backend = backend_for(family, root)
    assert isinstance(backend, TransformersVLM)
    requests = requests_with_1_to_3_pages(pages)
    completions = backend.generate(requests)
    assert len(completions) == 3
    for _request, completion in zip(requests, completions, strict=True):
        usage = completion.usage
        assert usage.calls == 1
        assert 1 <= usage.tokens_out <= 4
        assert 0 < usage.image_tokens < usage.tokens_in
        assert usage.images_as_text == 0
        assert usage.seconds > 0
        assert usage.peak_memory_mb > 0
    # three pages cost more image tokens than two (LLaVA-OneVision tiles a lone page, so the
    # one-page request is no lower bound)
    assert completions[1].usage.image_tokens > completions[2].usage.image_tokens
    assert backend.identity["family"] == family
    assert backend.identity["engine"] == "transformers"


def test_batched_greedy_output_equals_one_at_a_time(root: Path, pages: list[str]) -> None:
    """Left padding with Qwen's multimodal rotary positions: a request's answer must not depend
    on the requests it is batched with (one of them text-only)."""
    backend = backend_for("qwen2_5_vl", root)
    requests = requests_with_1_to_3_pages(pages) + [
        ChatRequest.prompt("A text-only question.", Generation(max_new_tokens=4))
    ]
    batched = backend.generate(requests)
    alone = [backend.generate([request])[0] for request in requests]
    assert [c.text for c in batched] == [c.text for c in alone]
    assert [c.usage.tokens_in for c in batched] == [c.usage.tokens_in for c in alone]
    assert [c.usage.tokens_out for c in batched] == [c.usage.tokens_out for c in alone]


@pytest.mark.slow
@pytest.mark.parametrize("family", VLM_FAMILIES)
@pytest.mark.parametrize("precision", ["fp32", "nf4"])
def test_batched_equals_unbatched_for_every_family(
    family: str, precision: str, root: Path, pages: list[str]
) -> None:
    backend = backend_for(family, root, precision=precision)
    requests = requests_with_1_to_3_pages(pages)
    batched = backend.generate(requests)
    alone = [backend.generate([request])[0] for request in requests]
    assert [c.text for c in batched] == [c.text for c in alone]


@pytest.mark.parametrize("precision", ["nf4", "int8"])
def test_quantized_vlm_loads_and_generates_on_cpu(
    precision: str, root: Path, pages: list[str]
) -> None:
    import bitsandbytes as bnb

    backend = backend_for("qwen2_5_vl", root, precision=precision)
    layer_type = bnb.nn.Linear4bit if precision == "nf4" else bnb.nn.Linear8bitLt
    assert any(isinstance(m, layer_type) for m in backend.model.modules())
    completion = backend.generate([ask(pages[:1], "What is the revenue?", tokens=2)])[0]
    assert completion.usage.tokens_out >= 1
    assert completion.usage.image_tokens > 0
    assert backend.identity["precision"] == precision
    assert backend.identity["quantization"]["method"] == "bitsandbytes"


def test_text_model_reads_pages_as_marked_ocr_text(root: Path, pages: list[str]) -> None:
    """A Llama-shaped text model through the same backend name: image parts become the pages'
    OCR text, marked as such, and are counted."""
    backend = backend_for("llama", root, precision="nf4")
    assert isinstance(backend, TransformersLM)
    request = ask(pages[:2], "Which page?", tokens=3)
    completion = backend.generate([request])[0]
    assert completion.usage.images_as_text == 2
    assert completion.usage.image_tokens == 0
    assert backend.identity["prompt_format"] == "chat"
    assert backend.identity["precision"] == "nf4"
    prompt = backend.tokenizer.decode(backend.prompt_ids(request)[0])
    assert "[image shown as its OCR text]" in prompt
    assert "OCR of p1" in prompt


def test_pixel_budget_sets_how_many_image_tokens_a_page_costs(root: Path, pages: list[str]) -> None:
    request = ask(pages[:1], "How many image tokens?", tokens=1)
    tokens = {}
    for family in ("qwen2_5_vl", "idefics3", "llava_next"):
        for budget in (56 * 56, 112 * 112 * 4):
            backend = backend_for(family, root, max_pixels=budget)
            tokens[family, budget] = backend.generate([request])[0].usage.image_tokens
            assert backend.identity["max_pixels"] == budget
        assert tokens[family, 56 * 56] < tokens[family, 112 * 112 * 4], family
