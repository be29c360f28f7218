"""MDocAgent on real models: a tiny random causal LM, the embedded Gemma 3 270M (slow) and a tiny
random VLM. Real models rarely give the clue dict or the answer dict, so these runs go through
the fallbacks, which must keep the question answered and counted."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from helpers.tiny_models import build_tiny_lm
from PIL import Image, ImageDraw

from docqa.backends import BACKENDS, create_backend
from docqa.backends.base import Backend
from docqa.backends.client import ModelClient
from docqa.backends.preparation import prepare_model
from docqa.backends.transformers_lm import LMSettings, TransformersLM
from docqa.core.document import Document, Page
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv, Models
from docqa.retrievers import IndexedPage
from docqa.retrievers.bm25 import BM25Options, BM25Retriever

SLIDES = [
    "Acme Corp\nAnnual review 2021",
    "Revenue by year\n2020: 42 million\n2021: 50 million",
    "Costs by year\n2020: 17 million\n2021: 19 million",
]
QUESTION = Question(
    "q1", "deck", "What was the revenue in 2020?", "42 million", "Str", [("deck", 1)]
)
AGENTS = ["general", "critical", "text", "image", "summarizer"]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> DocumentEnv:
    """Three drawn slides, their text, and a real BM25 index over it."""
    folder = tmp_path_factory.mktemp("deck")
    pages, indexed = [], []
    for index, text in enumerate(SLIDES):
        image = Image.new("RGB", (224, 168), "white")
        ImageDraw.Draw(image).text((8, 8), text, fill="black")
        path = folder / f"page-{index}.png"
        image.save(path)
        pages.append(Page("deck", index, str(path), 224, 168, 72))
        indexed.append(IndexedPage(text, path))
    retriever = BM25Retriever(BM25Options())
    retriever.build(indexed, folder / "bm25")
    searchers = {"bm25": retriever.load(folder / "bm25")}
    return DocumentEnv(Document("deck", "deck.pdf", len(SLIDES)), pages, SLIDES, searchers)


def run(env: DocumentEnv, vlm: Backend, text: Backend | None = None, **options: Any) -> Prediction:
    method = create_method({"type": "mdocagent", **options})

    async def answer() -> Prediction:
        models = Models(ModelClient(vlm), {"text": ModelClient(text)} if text else {})
        try:
            return await method.answer(QUESTION, env, models)
        finally:
            for client in (models.main, *models.roles.values()):
                await client.close()

    return asyncio.run(answer())


def check_answered(prediction: Prediction, agents: list[str] = AGENTS) -> None:
    """The chain ran to its end: every agent called once, its usage counted, an answer given
    or the empty answer counted as a fallback."""
    assert not prediction.error, prediction.error
    steps = [s for s in prediction.trace if s["step"] == "agent"]
    assert [s["agent"] for s in steps] == agents
    assert prediction.usage.calls == len(agents)
    assert prediction.usage.tokens_in > 0
    assert prediction.usage.tokens_out > 0
    assert all(s["usage"]["calls"] == 1 for s in steps)
    result = prediction.trace[-1]
    assert result["step"] == "result"
    assert result["output"] == prediction.answer
    assert prediction.usage.fallbacks == len(result["fallbacks"])
    assert prediction.answer or "empty_answer" in result["fallbacks"]


def test_mdocagent_runs_on_a_tiny_random_language_model(env: DocumentEnv, tmp_path: Path) -> None:
    lm = TransformersLM(build_tiny_lm(tmp_path / "lm"), {"id": "tiny-lm"}, LMSettings())
    prediction = run(env, lm, top_k=2, max_new_tokens=6)
    check_answered(prediction)
    # the random model writes no dicts: both parsers fell back, and said so
    assert {"clue_not_json", "summary_not_json"} <= set(prediction.trace[-1]["fallbacks"])
    # the general and image agents' page images reached the text-only model as OCR text
    assert prediction.usage.images_as_text == 2 + 2 + 2  # general, critical (same turns), image


@pytest.fixture(scope="session")
def gemma(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Gemma 3 270M prepared once for the session (about two minutes)."""
    folder = tmp_path_factory.mktemp("models") / "gemma3-270m"
    prepare_model("gemma3-270m", {"backend": "embedded"}, folder)
    return folder


@pytest.mark.slow
def test_mdocagent_runs_on_the_embedded_default(env: DocumentEnv, gemma: Path) -> None:
    """Five calls of Gemma 3 270M on CPU: about a minute with 12 new tokens a call."""
    backend = create_backend({"backend": "embedded", "threads": 2}, gemma)
    try:
        prediction = run(env, backend, top_k=1, max_new_tokens=12)
    finally:
        backend.close()
    check_answered(prediction)
    assert prediction.trace[0]["pages"] == [1]  # BM25 finds the revenue slide
    assert prediction.usage.images_as_text == 3  # general, critical, image agent


def test_mdocagent_runs_on_a_tiny_random_vlm(env: DocumentEnv, tmp_path: Path) -> None:
    BACKENDS.load_all()
    if "transformers" not in BACKENDS.names():
        pytest.skip("the transformers VLM backend is not registered yet")
    from helpers.tiny_models import build_tiny_vlm, tiny_model_entry

    entry = tiny_model_entry(build_tiny_vlm("qwen2_5_vl", tmp_path / "vlm"))
    prepare_model("tiny-qwen2.5-vl", entry, tmp_path / "prepared")
    vlm = create_backend(entry, tmp_path / "prepared")
    try:
        prediction = run(env, vlm, top_k=2, max_new_tokens=6)
    finally:
        vlm.close()
    check_answered(prediction)
    assert prediction.usage.images_as_text == 0  # the VLM saw the page images
    assert prediction.usage.image_tokens > 0
