"""A five-slide document for retriever tests: page images drawn here, one page without text."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from docqa.retrievers import IndexedPage

TEXTS = [
    "Quarterly Review\nAgenda",
    "Revenue by Region 2023\nNorth 120 South 95",
    "Revenue by Region 2022\nNorth 101 South 90",
    "Hiring plan\nEngineering 42 Design 9",
    "",  # a chart page whose OCR found no text
]
NO_TEXT_PAGE = 4


def draw_document(folder: Path) -> list[IndexedPage]:
    """The slides as 320x180 images (page 2 portrait, so a batch mixes sizes)."""
    folder.mkdir(parents=True, exist_ok=True)
    pages = []
    for index, text in enumerate(TEXTS):
        size = (180, 320) if index == 2 else (320, 180)
        image = Image.new("RGB", size, "white")
        draw = ImageDraw.Draw(image)
        draw.text((10, 10), text, fill="black")
        if not text:
            draw.rectangle((40, 60, 80, 160), fill="navy")  # a bar chart without labels
        path = folder / f"page-{index:03d}.png"
        image.save(path)
        pages.append(IndexedPage(text, path))
    return pages
