"""The acme document of the method tests: a real six-page PDF taken through docqa's real
render and OCR stages (tests/conftest.py builds it once per session as the ``acme`` fixture).

Page 4 holds a chart whose value label is printed too small for the page-level OCR at the
render dpi (60); only a crop rendered from the PDF at a higher dpi can read it, which is what
Focus does for a text-only model.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from docqa.core.document import Document, Page
from docqa.core.question import Question
from docqa.methods.base import DocumentEnv
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
    "q-orders", "acme", "How many orders were there in Q3?", "77", "Int", [("acme", CHART_PAGE)]
)


def text_page(lines: list[tuple[str, int]]) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A white 8 x 4.5 inch page at DRAW_DPI with ``lines`` (text, font size) drawn top down."""
    image = Image.new("RGB", (8 * DRAW_DPI, 9 * DRAW_DPI // 2), "white")
    draw = ImageDraw.Draw(image)
    y = 60
    for text, size in lines:
        draw.text((80, y), text, fill="black", font=ImageFont.load_default(size=size))
        y += size + 40
    return image, draw


def draw_pdf(path: Path) -> Path:
    images = []
    for number, lines in enumerate(PAGES):
        image, draw = text_page(lines)
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
    return env_of_pdf(Document("acme", str(draw_pdf(folder / "acme.pdf")), len(PAGES)), folder)


def env_of_pdf(document: Document, folder: Path) -> DocumentEnv:
    """``document`` rendered into ``folder`` (pages, thumbnails, 2x2 overview grids) and OCRed
    by docqa's own stages, as a method's environment."""
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
