"""Thumbnails and numbered overview grids of a document's pages.

An overview grid shows many pages of a document in one image, each with its page number drawn
large, so that a model (or a person) can pick pages to look at closely. The label is 1-based
("p. 1" is the first page) because that is what readers and models expect to read; the page
indices stored in docqa (``Page.index``, the ``pages`` list of an overview row) are 0-based.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

GAP = 8  # pixels between cells and around the grid
BACKGROUND = (200, 200, 200)


def make_thumbnail(page: Image.Image, width: int) -> Image.Image:
    """Scale a page image to ``width`` pixels wide, keeping its aspect ratio."""
    height = max(1, round(page.height * width / page.width))
    return page.convert("RGB").resize((width, height), Image.Resampling.LANCZOS)


def write_overviews(
    doc_id: str, thumbnails: list[Path], out_dir: Path, grid: tuple[int, int]
) -> list[dict[str, Any]]:
    """Write ``out_dir/overview-00.png`` … with ``cols x rows`` numbered thumbnails each.

    ``thumbnails[i]`` is the thumbnail of page ``i`` (0-based). Returns one row per image:
    ``{"doc_id", "image", "pages"}`` with the 0-based indices of the pages shown, in order.
    """
    cols, rows = grid
    if cols < 1 or rows < 1:
        raise ValueError(f"overview grid {grid} must have at least one column and one row")
    per_image = cols * rows
    result = []
    for number, start in enumerate(range(0, len(thumbnails), per_image)):
        pages = list(range(start, min(start + per_image, len(thumbnails))))
        image = out_dir / f"overview-{number:02d}.png"
        _draw_grid([thumbnails[i] for i in pages], pages, cols).save(image)
        result.append({"doc_id": doc_id, "image": str(image), "pages": pages})
    return result


def _draw_grid(thumbnails: list[Path], pages: list[int], cols: int) -> Image.Image:
    """Each cell is a label strip with the page number above the thumbnail, so the label
    never hides the page's own text (a slide title sits exactly where a corner label would)."""
    cells = [Image.open(path).convert("RGB") for path in thumbnails]
    cell_width = max(cell.width for cell in cells)
    font_size = max(12, cell_width // 5)
    font = ImageFont.load_default(size=font_size)
    label_height = round(font_size * 1.25)
    cell_height = label_height + max(cell.height for cell in cells)
    used_rows = -(-len(cells) // cols)
    used_cols = min(cols, len(cells))
    sheet = Image.new(
        "RGB",
        (GAP + used_cols * (cell_width + GAP), GAP + used_rows * (cell_height + GAP)),
        BACKGROUND,
    )
    draw = ImageDraw.Draw(sheet)
    for slot, (cell, page) in enumerate(zip(cells, pages, strict=False)):
        x = GAP + (slot % cols) * (cell_width + GAP)
        y = GAP + (slot // cols) * (cell_height + GAP)
        label = f"p. {page + 1}"
        draw.text((x, y + label_height // 2), label, fill="black", font=font, anchor="lm")
        sheet.paste(cell, (x, y + label_height))
    return sheet
