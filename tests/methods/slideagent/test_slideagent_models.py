"""SlideAgent on real models: the embedded default (Gemma 3 270M, a small base model) and a tiny
random VLM. Neither can be expected to answer well; what must hold is that the knowledge build
and the method run to the end on them — every reply, however bad, parsed or replaced by its
counted fallback — and give a prediction with its trace.

The deck is the first three pages of the acme PDF, so that the build stays within seconds.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest
from helpers.slideagent_script import QUESTION, ask, step, with_bm25

from docqa.backends import create_backend
from docqa.backends.base import Backend
from docqa.backends.client import ModelClient
from docqa.backends.preparation import prepare_model
from docqa.methods.base import DocumentEnv
from docqa.methods.slideagent import SlideAgent, SlideAgentOptions
from docqa.methods.slideagent.build import KnowledgeSettings, build_knowledge
from docqa.methods.slideagent.knowledge import read_knowledge, write_knowledge

PAGES = 3
SMALL = KnowledgeSettings(global_pages=2, knowledge_tokens=24, element_tokens=32)
ASKED = replace(
    QUESTION, question="What was the revenue of the North region?", evidence=[(QUESTION.doc_id, 1)]
)


def short_deck(acme: DocumentEnv, folder: Path) -> DocumentEnv:
    deck = replace(
        acme,
        pages=acme.pages[:PAGES],
        page_texts=acme.page_texts[:PAGES],
        elements=[e for e in acme.elements if e.page < PAGES],
    )
    return with_bm25(deck, folder / "bm25")


def build_and_answer(deck: DocumentEnv, backend: Backend, folder: Path) -> None:
    """Build the knowledge into ``folder``, answer in both settings from it, and check that
    every step ran and the prediction is whole."""

    async def build() -> None:
        client = ModelClient(backend)
        try:
            write_knowledge(folder, await build_knowledge(deck, client, "real", SMALL))
        finally:
            await client.close()

    asyncio.run(build())
    knowledge = read_knowledge(folder, "acme")
    assert len(knowledge.pages) == PAGES
    assert all(knowledge.pages)
    assert knowledge.elements
    assert all(e.description for e in knowledge.elements)
    assert knowledge.usage.calls == 2 + 2 * PAGES
    for setting in ("retrieval", "oracle"):
        method = SlideAgent(
            SlideAgentOptions(knowledge_dir=str(folder), setting=setting, top_k=2, answer_tokens=12)
        )
        prediction = ask(method, deck, backend, ASKED)
        assert prediction.error == ""
        assert step(prediction, "classifier")["query_type"]
        assert step(prediction, "synthesizer")["output"] is not None
        assert prediction.trace[-1]["step"] == "result"
        assert prediction.usage.fallbacks == len(prediction.trace[-1]["fallbacks"])
        if setting == "oracle":
            assert step(prediction, "retrieve")["pages"] == [1]
        json.dumps(prediction.to_dict())


@pytest.mark.slow
def test_slideagent_runs_on_the_embedded_default(acme: DocumentEnv, tmp_path: Path) -> None:
    prepare_model("gemma3-270m", {"backend": "embedded"}, tmp_path / "gemma3-270m")
    entry = {"backend": "embedded", "threads": 2, "prompt_format": "raw"}
    backend = create_backend(entry, tmp_path / "gemma3-270m")
    try:
        build_and_answer(short_deck(acme, tmp_path), backend, tmp_path / "knowledge")
    finally:
        backend.close()


@pytest.mark.slow
def test_slideagent_runs_on_a_tiny_random_vlm(acme: DocumentEnv, tmp_path: Path) -> None:
    from helpers.tiny_models import build_tiny_vlm, tiny_model_entry

    entry = tiny_model_entry(build_tiny_vlm("qwen2_vl", tmp_path / "weights"))
    prepare_model("tiny-qwen2-vl", entry, tmp_path / "model")
    backend = create_backend(entry, tmp_path / "model")
    try:
        deck = short_deck(acme, tmp_path)
        build_and_answer(deck, backend, tmp_path / "knowledge")
        # the VLM saw the page images themselves, not their OCR text
        single = SlideAgent(
            SlideAgentOptions(
                knowledge_dir=str(tmp_path / "knowledge"),
                single_image=True,
                grids_dir=str(tmp_path / "grids"),
                answer_tokens=8,
            )
        )
        prediction = ask(single, deck, backend, ASKED)
        assert prediction.error == ""
        assert prediction.usage.images_as_text == 0
        for page_step in (s for s in prediction.trace if s.get("agent") == "read_page"):
            assert len(page_step["images"]) == 1  # the top pages as one grid image
    finally:
        backend.close()
