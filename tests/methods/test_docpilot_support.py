"""What the DocPilot tests share: a real six-page PDF taken through the real render and OCR
stages, and a scripted backend (a real ``Backend`` that answers from a list, in order).

Page 4 holds a chart whose value label is printed too small for the page-level OCR at the
render dpi (60); only a crop rendered from the PDF at a higher dpi can read it, which is what
Focus does for a text-only model.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import scripted_backend
from PIL import Image, ImageDraw, ImageFont
from scripted_backend import text_of

from docqa.backends.base import Backend
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest
from docqa.core.document import Document, Page
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods.base import DocumentEnv, Method, Models
from docqa.stages.render import render_document
from docqa.text.ocr import ocr_page

RENDER_DPI = 60
DRAW_DPI = 200  # the PDF's pages are 8 x 4.5 inches drawn at this resolution
PAGES = [
    [("Acme Annual Report", 90), ("Fiscal year 2023", 60)],
    [("Revenue by Region", 80), ("North 120", 60), ("South 95", 60)],
    [("Staff by Team", 80), ("Engineering 42", 60), ("Design 9", 60)],
    [("Quarterly Orders", 80)],  # a bar chart with a tiny label, drawn below
    [("Outlook", 80), ("Growth expected", 60)],
    [("Contact", 80), ("Investor relations", 60)],
]
CHART_PAGE = 3
TINY_LABEL = "Q3 orders 77"
QUESTION = Question(
    "q-orders", "acme", "How many orders were there in Q3?", "77", "Int", [CHART_PAGE]
)


def draw_pdf(path: Path) -> Path:
    images = []
    for number, lines in enumerate(PAGES):
        image = Image.new("RGB", (8 * DRAW_DPI, 9 * DRAW_DPI // 2), "white")
        draw = ImageDraw.Draw(image)
        y = 60
        for text, size in lines:
            draw.text((80, y), text, fill="black", font=ImageFont.load_default(size=size))
            y += size + 40
        if number == CHART_PAGE:
            for bar, height in enumerate((200, 320, 420, 260)):
                draw.rectangle((300 + bar * 220, 800 - height, 420 + bar * 220, 800), fill="navy")
            draw.text((1100, 830), TINY_LABEL, fill="black", font=ImageFont.load_default(size=18))
        images.append(image)
    images[0].save(path, save_all=True, append_images=images[1:], resolution=DRAW_DPI)
    return path


def build_document(folder: Path) -> DocumentEnv:
    """The PDF, rendered (pages, thumbnails, 2x2 overview grids) and OCRed by docqa itself."""
    folder.mkdir(parents=True, exist_ok=True)
    document = Document("acme", str(draw_pdf(folder / "acme.pdf")), len(PAGES))
    row = render_document(document, folder / "pages", RENDER_DPI, 160, (2, 2))
    pages = [Page.from_dict(page) for page in row["pages"]]
    elements = [e for p in pages for e in ocr_page(p.image, p.doc_id, p.index, p.dpi)]
    texts = [
        "\n".join(
            e.text
            for e in sorted(elements, key=lambda e: e.order)
            if e.page == p.index and e.kind == "line"
        )
        for p in pages
    ]
    return DocumentEnv(document, pages, texts, {}, elements, row["overviews"])


_BUILT: dict[Path, DocumentEnv] = {}


@pytest.fixture(scope="session", name="acme")
def acme_document(tmp_path_factory: pytest.TempPathFactory) -> DocumentEnv:
    """The document, built once per test session."""
    base = tmp_path_factory.getbasetemp()
    if base not in _BUILT:
        _BUILT[base] = build_document(tmp_path_factory.mktemp("acme"))
    return _BUILT[base]


class ScriptedBackend(scripted_backend.ScriptedBackend):
    """Answers each request with the next reply of ``replies``; text-only unless
    ``sees_images`` (then image parts need no OCR text). Records every request."""

    def __init__(self, replies: list[str], sees_images: bool = False) -> None:
        super().__init__(
            self._next_reply,
            sees_images=sees_images,
            identity={"id": "scripted-docpilot"},
            tokens=(10, 2),
        )
        self.replies = list(replies)

    def _next_reply(self, request: ChatRequest) -> str:
        if not self.replies:
            raise AssertionError("the script has no reply left for:\n" + text_of(request)[-600:])
        return self.replies.pop(0)


def run(
    method: Method, env: DocumentEnv, backend: Backend, question: Question = QUESTION
) -> Prediction:
    async def go() -> Prediction:
        client = ModelClient(backend)
        try:
            return await method.answer(question, env, Models(client))
        finally:
            await client.close()

    return asyncio.run(go())


def decision(action: str, arguments: dict[str, Any] | str, thought: str = "next") -> str:
    """An orchestrator reply (the prompt ends with ``Thought:``)."""
    import json

    written = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return f" {thought}\nAction: {action}\nArguments: {written}"


def summary_of(prediction: Prediction) -> dict[str, Any]:
    last = prediction.trace[-1]
    assert last["step"] == "summary"
    return last


def test_the_page_ocr_reads_the_titles_but_not_the_tiny_chart_label(acme: DocumentEnv) -> None:
    assert "Quarterly Orders" in acme.page_texts[CHART_PAGE]
    assert "77" not in acme.page_texts[CHART_PAGE]
    assert "North 120" in acme.page_texts[1]
    assert [o["pages"] for o in acme.overviews] == [[0, 1, 2, 3], [4, 5]]
