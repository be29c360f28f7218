"""Oracle pages: the gold pages read as OCR text (``read: text``) or as images (``read:
images``, SlideAgent's oracle baseline). A scripted backend records what the model is asked."""

from __future__ import annotations

import pytest
from helpers.docpilot_script import ScriptedReplies, run
from helpers.scripted_backend import text_of
from PIL import Image

from docqa.core.document import Document, Page
from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv

TEXTS = ["Acme Corp annual review", "Revenue 2020: 42 million", "Costs 2020: 17 million"]
QUESTION = Question("q1", "deck", "What was the revenue in 2020?", "42", "Str", [("deck", 2)])


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> DocumentEnv:
    folder = tmp_path_factory.mktemp("deck")
    pages = []
    for index in range(len(TEXTS)):
        path = folder / f"page-{index}.png"
        Image.new("RGB", (64, 48), (40 * index, 90, 200)).save(path)
        pages.append(Page("deck", index, str(path), 64, 48, 72))
    return DocumentEnv(Document("deck", "deck.pdf", len(TEXTS)), pages, TEXTS)


def test_images_sends_the_gold_pages_images(deck: DocumentEnv) -> None:
    backend = ScriptedReplies(["17 million"], sees_images=True)
    method = create_method({"type": "oracle_pages", "read": "images", "image_max_pixels": 1000})
    prediction = run(method, deck, backend, QUESTION)
    request = backend.requests[0]
    assert request.images == [deck.pages[2].image]
    assert request.generation.max_pixels == 1000
    said = "".join(p.text for m in request.messages for p in m.parts if p.kind == "text")
    assert "### Page 3" in said
    assert "Costs 2020" not in said  # the image, its OCR text only for a text-only model
    assert prediction.pages == [2]
    assert prediction.trace[0]["read"] == "images"
    assert prediction.trace[0]["image_max_pixels"] == 1000


def test_text_sends_the_gold_pages_ocr_text(deck: DocumentEnv) -> None:
    backend = ScriptedReplies(["17 million"], sees_images=True)
    prediction = run(create_method({"type": "oracle_pages"}), deck, backend, QUESTION)
    request = backend.requests[0]
    assert request.images == []
    assert "Costs 2020: 17 million" in text_of(request)
    assert prediction.trace[0]["read"] == "text"


def test_read_takes_only_text_or_images() -> None:
    with pytest.raises(ValueError, match="read: must be one of 'text' or 'images'"):
        create_method({"type": "oracle_pages", "read": "slides"})
