"""Vanilla: every page (or MMLongBench-Doc's grids of pages) to the model, a page cap that
truncates by a documented rule and says so, a pixel budget, and text-only models reading OCR
text. A scripted backend records what the model is asked."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.docpilot_script import ScriptedReplies, run
from helpers.scripted_backend import text_of
from PIL import Image, ImageDraw

from docqa.core.document import Document, Page
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv
from docqa.methods.mdocagent.requests import NO_OCR_TEXT

TEXTS = [
    "Acme Corp annual review",
    "Revenue 2020: 42 million",
    "Costs 2020: 17 million",
    "",  # a chart without text
    "Outlook: growth",
    "Staff: 120 people",
    "Contact: investor relations",
]
NO_TEXT_PAGE = 3
SIZE = (64, 48)
QUESTION = Question(
    "q1", "deck", "What was the revenue in 2020?", "42 million", "Str", [("deck", 1)]
)


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> DocumentEnv:
    """Seven pages, each a different shade so a grid's cells can be told apart."""
    folder = tmp_path_factory.mktemp("deck")
    pages = []
    for index, text in enumerate(TEXTS):
        image = Image.new("RGB", SIZE, (30 * index, 100, 200))
        ImageDraw.Draw(image).text((2, 2), text[:10], fill="white")
        path = folder / f"page-{index}.png"
        image.save(path)
        pages.append(Page("deck", index, str(path), *SIZE, 72))
    return DocumentEnv(Document("deck", "deck.pdf", len(TEXTS)), pages, TEXTS)


def answer(deck: DocumentEnv, backend: ScriptedReplies, **options) -> Prediction:
    return run(create_method({"type": "vanilla", **options}), deck, backend, QUESTION)


def test_every_page_goes_to_the_model_in_order_as_its_ocr_text(deck: DocumentEnv) -> None:
    backend = ScriptedReplies([" 42 million\n"])
    prediction = answer(deck, backend)
    assert prediction.answer == "42 million"
    assert prediction.error == ""
    assert prediction.pages == list(range(7))
    assert prediction.pages_truncated == 0
    request = backend.requests[0]
    assert request.images == [page.image for page in deck.pages]
    text = text_of(request)
    positions = [text.index(f"### Page {n}\n[image shown as its OCR text]") for n in range(1, 8)]
    assert positions == sorted(positions)
    assert "Revenue 2020: 42 million" in text
    assert NO_OCR_TEXT in text
    # a chat model (no raw prompt format) gets the instruction prompt, not the few-shot one
    assert text.endswith("\nQuestion: What was the revenue in 2020?")
    assert request.generation.stop == ()
    assert prediction.usage.calls == 1


def test_a_document_over_the_page_cap_keeps_its_first_pages_and_says_so(
    deck: DocumentEnv,
) -> None:
    backend = ScriptedReplies(["42"], sees_images=True)
    prediction = answer(deck, backend, max_pages=5)
    assert prediction.pages == [0, 1, 2, 3, 4]
    assert prediction.pages_truncated == 2
    assert prediction.trace[0]["pages_truncated"] == 2
    assert backend.requests[0].images == [page.image for page in deck.pages[:5]]
    assert "Contact" not in text_of(backend.requests[0].as_text_only())
    assert Prediction.from_dict(prediction.to_dict()).pages_truncated == 2  # it is serialised


def test_grids_follow_mmlongbench_doc(deck: DocumentEnv, tmp_path: Path) -> None:
    """Seven pages in at most five images: runs of two pages, three a row, so four images."""
    backend = ScriptedReplies(["42"], sees_images=True)
    prediction = answer(deck, backend, mode="grids", images_dir=str(tmp_path))
    images = backend.requests[0].images
    assert len(images) == 4
    assert prediction.trace[0]["images"] == images
    first = Image.open(images[0])
    assert first.size == (2 * SIZE[0], SIZE[1])  # two pages side by side
    for cell, page in enumerate((0, 1)):
        colour = first.getpixel((cell * SIZE[0] + SIZE[0] - 2, SIZE[1] - 2))
        assert colour == Image.open(deck.pages[page].image).getpixel((SIZE[0] - 2, SIZE[1] - 2))
    assert Image.open(images[-1]).size == SIZE  # the seventh page alone
    text = text_of(backend.requests[0].as_text_only())
    assert "### Pages 1-2\n[image shown as its OCR text]\n### Page 1\nAcme" in text
    assert "### Pages 3-4" in text
    assert "### Page 7\n[image shown" in text
    assert prediction.pages == list(range(7))


def test_the_pixel_budget_is_shared_by_the_images_and_written_once(
    deck: DocumentEnv, tmp_path: Path
) -> None:
    budget = 7 * 1000  # each page gets 1000 pixels, under its 64 x 48
    backend = ScriptedReplies(["42", "42"], sees_images=True)
    answer(deck, backend, max_pixels=budget, images_dir=str(tmp_path))
    images = backend.requests[0].images
    assert len(images) == 7
    assert all(Path(image).parent == tmp_path for image in images)
    assert all(0 < Image.open(image).width * Image.open(image).height <= 1000 for image in images)
    written = {path: path.stat().st_mtime_ns for path in tmp_path.iterdir()}
    answer(deck, backend, max_pixels=budget, images_dir=str(tmp_path))
    assert backend.requests[1].images == images
    assert {path: path.stat().st_mtime_ns for path in tmp_path.iterdir()} == written
    # a budget the pages fit in leaves them as rendered
    answer(deck, ScriptedReplies(["42"]), max_pixels=10**7, images_dir=str(tmp_path / "none"))
    assert not (tmp_path / "none").exists()


def test_a_broken_page_image_fails_its_question_with_the_page_named(
    deck: DocumentEnv, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not an image")
    pages = [Page("deck", 0, str(broken), *SIZE, 72), *deck.pages[1:]]
    env = DocumentEnv(deck.document, pages, TEXTS)
    method = create_method({"type": "vanilla", "mode": "grids", "images_dir": str(tmp_path)})
    with pytest.raises(ValueError, match="broken.png cannot be read"):
        run(method, env, ScriptedReplies(["x"]))
    assert [path.name for path in tmp_path.iterdir()] == ["broken.png"]  # nothing half-written


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mode": "all"}, r"mode: must be one of 'pages' or 'grids' \(got 'all'\)"),
        ({"max_pages": 0}, r"max_pages: must be at least 1 \(got 0\)"),
        ({"max_pixels": 0}, r"max_pixels: must be at least 1 \(got 0\)"),
        ({"columns": 3}, "bad options"),
    ],
)
def test_bad_options_name_the_option(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create_method({"type": "vanilla", **options})


def fitted(deck: DocumentEnv, context: int | None, **options) -> tuple[Prediction, ScriptedReplies]:
    """Vanilla on a VLM whose context window is ``context`` tokens."""
    backend = ScriptedReplies(["42"], sees_images=True)
    backend.context_tokens = context
    return answer(deck, backend, **options), backend


def test_a_request_within_the_context_goes_unchanged(deck: DocumentEnv) -> None:
    prediction, backend = fitted(deck, 100_000)
    fit = prediction.trace[0]["context_fit"]
    assert fit["estimated_tokens"] == fit["fitted_tokens"] < 100_000
    assert (fit["images_dropped"], fit["images_downscaled"]) == (0, 0)
    assert fit["fitted_max_pixels"] is None
    assert backend.requests[0].generation.max_pixels is None
    assert (prediction.pages_truncated, prediction.pages_downscaled) == (0, 0)


def test_a_request_over_the_context_is_downscaled_to_fit(deck: DocumentEnv) -> None:
    """Seven 64x48 pages are 6 tokens each (4 visual, 2 markers); 14 tokens too few: every
    page is sent at 2 visual tokens."""
    estimated = fitted(deck, None)[0].trace[0]["context_fit"]["estimated_tokens"]
    prediction, backend = fitted(deck, estimated - 14, min_page_pixels=784)
    fit = prediction.trace[0]["context_fit"]
    assert fit["fitted_tokens"] <= fit["context_tokens"] == estimated - 14
    assert fit["fitted_max_pixels"] == 2 * 784 < SIZE[0] * SIZE[1]
    assert backend.requests[0].generation.max_pixels == 2 * 784  # the model scales them
    assert backend.requests[0].images == [page.image for page in deck.pages]
    assert (prediction.pages_truncated, prediction.pages_downscaled) == (0, 7)
    assert fit["pages_downscaled"] == 7
    assert Prediction.from_dict(prediction.to_dict()).pages_downscaled == 7


def test_pages_too_small_to_read_are_dropped_from_the_end(deck: DocumentEnv) -> None:
    """Pages may not go under their own size here: two pages' tokens too many drop the last
    two pages, counted with the pages the page cap leaves out."""
    estimated = fitted(deck, None)[0].trace[0]["context_fit"]["estimated_tokens"]
    prediction, backend = fitted(deck, estimated - 12, min_page_pixels=SIZE[0] * SIZE[1])
    assert prediction.pages == [0, 1, 2, 3, 4]
    assert backend.requests[0].images == [page.image for page in deck.pages[:5]]
    assert prediction.pages_truncated == 2
    fit = prediction.trace[0]["context_fit"]
    assert (fit["images_dropped"], fit["images_downscaled"]) == (2, 0)
    capped, _ = fitted(deck, estimated - 12, min_page_pixels=SIZE[0] * SIZE[1], max_pages=6)
    assert capped.pages_truncated == 2  # one page over the cap, one dropped to fit


def test_grids_over_the_context_are_downscaled_and_count_their_pages(
    deck: DocumentEnv, tmp_path: Path
) -> None:
    options = {"mode": "grids", "max_images": 2, "images_dir": str(tmp_path)}
    estimated = fitted(deck, None, **options)[0].trace[0]["context_fit"]["estimated_tokens"]
    prediction, _ = fitted(deck, estimated - 20, min_page_pixels=784, **options)
    assert prediction.pages_downscaled == 7  # both grids, all their pages
    assert prediction.trace[0]["context_fit"]["images_downscaled"] == 2
