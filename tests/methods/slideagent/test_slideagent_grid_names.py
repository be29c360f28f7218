"""SlideAgent's single-image grids are cached by name; the name must tell apart pages of
documents that share an id (two datasets, two render resolutions), or one dataset's question
would be shown another's pages."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from docqa.core.document import Page
from docqa.methods.slideagent.requests import page_grid


def page(folder: Path, tag: str, index: int, colour: str) -> Page:
    path = folder / f"{tag}-{index}.png"
    Image.new("RGB", (30, 40), colour).save(path)
    return Page("report", index, str(path), 30, 40, 72)


def test_same_document_id_with_other_pages_gets_its_own_grid(tmp_path: Path) -> None:
    grids = tmp_path / "grids"
    red = page_grid([page(tmp_path, "ds1", i, "red") for i in (0, 1)], grids)
    blue = page_grid([page(tmp_path, "ds2", i, "blue") for i in (0, 1)], grids)
    assert red != blue
    with Image.open(blue) as image:
        assert image.getpixel((5, 5)) == (0, 0, 255)
    # the same pages again reuse their grid
    assert page_grid([page(tmp_path, "ds1", i, "red") for i in (0, 1)], grids) == red
    assert red.name.startswith("report-p1-2-")
