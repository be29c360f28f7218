"""Page images concatenated into grid images, for models that take few images.

MMLongBench-Doc runs open models on a whole document by concatenating its page images into at
most five images (``run_lvlm.py``: ``concat_num=5``, ``column_num=3``): the pages are cut, in
order, into runs of ``ceil(pages / 5)`` consecutive pages, and each run is pasted row by row,
three pages a row, on a white canvas whose cell is the first page's size. :func:`grid_images`
does the same; :func:`grid_image` makes one such image (SlideAgent also uses it to show its
top retrieved pages as one image).

Two documented differences from the original: a page of another size than the first is scaled
to fit its cell (keeping its aspect ratio) rather than pasted at its own size, where it would
overlap its neighbours or be cut; and a canvas is only as wide as the columns it uses (the
original always makes it three cells wide, leaving blank columns when a run has fewer pages),
so that an optional pixel budget is spent on pages, not on blank space.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

#: MMLongBench-Doc's settings for open models: at most five images, three pages a row
MAX_GRID_IMAGES = 5
GRID_COLUMNS = 3

BACKGROUND = "white"


def grid_image(
    pages: Sequence[Path | str], columns: int | None = None, max_pixels: int | None = None
) -> Image.Image:
    """One RGB image of ``pages`` pasted row by row, ``columns`` a row (default: the fewest
    rows for a near-square grid, ``ceil(sqrt(len(pages)))`` columns).

    Every cell has the first page's size. With ``max_pixels``, an image with more pixels than
    that is scaled down, keeping its aspect ratio, to at most ``max_pixels``.
    """
    if not pages:
        raise ValueError("grid_image needs at least one page image")
    if columns is None:
        columns = math.ceil(math.sqrt(len(pages)))
    if columns < 1:
        raise ValueError(f"a page grid needs at least one column, not {columns}")
    if max_pixels is not None and max_pixels < 1:
        raise ValueError(f"max_pixels must be positive, not {max_pixels}")
    images = [_open(page) for page in pages]
    cell_width, cell_height = images[0].size
    used_columns = min(columns, len(images))
    rows = math.ceil(len(images) / columns)
    canvas = Image.new("RGB", (cell_width * used_columns, cell_height * rows), BACKGROUND)
    for slot, image in enumerate(images):
        fitted = _fit(image, cell_width, cell_height)
        canvas.paste(fitted, ((slot % columns) * cell_width, (slot // columns) * cell_height))
    return _within(canvas, max_pixels) if max_pixels else canvas


def grid_runs(page_count: int, max_images: int = MAX_GRID_IMAGES) -> list[range]:
    """The runs of consecutive pages (0-based) that go into each of at most ``max_images``
    grid images: ``ceil(page_count / max_images)`` pages each, the last run possibly shorter,
    so there may be fewer than ``max_images`` runs (7 pages → runs of 2: 4 images)."""
    if max_images < 1:
        raise ValueError(f"max_images must be at least 1, not {max_images}")
    per_image = max(math.ceil(page_count / max_images), 1)
    return [
        range(start, min(start + per_image, page_count))
        for start in range(0, page_count, per_image)
    ]


def grid_images(
    pages: Sequence[Path | str],
    max_images: int = MAX_GRID_IMAGES,
    columns: int = GRID_COLUMNS,
    max_pixels: int | None = None,
) -> list[tuple[range, Image.Image]]:
    """``pages`` concatenated into at most ``max_images`` grid images, MMLongBench-Doc's way:
    (the 0-based pages of each image, the image), in document order. ``max_pixels`` caps
    each image."""
    return [
        (run, grid_image([pages[i] for i in run], columns, max_pixels))
        for run in grid_runs(len(pages), max_images)
    ]


def _open(page: Path | str) -> Image.Image:
    try:
        with Image.open(page) as image:
            return image.convert("RGB")
    except (OSError, ValueError) as error:
        raise ValueError(
            f"page image {page} cannot be read ({error}); re-render its document"
        ) from None


def _fit(image: Image.Image, width: int, height: int) -> Image.Image:
    """``image`` scaled to fit a ``width`` x ``height`` cell, unchanged when it already has
    that size."""
    if image.size == (width, height):
        return image
    scale = min(width / image.width, height / image.height)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.LANCZOS)


def _within(image: Image.Image, max_pixels: int) -> Image.Image:
    pixels = image.width * image.height
    if pixels <= max_pixels:
        return image
    scale = math.sqrt(max_pixels / pixels)
    # floor both sides so the product never exceeds the budget
    size = (max(1, math.floor(image.width * scale)), max(1, math.floor(image.height * scale)))
    return image.resize(size, Image.Resampling.LANCZOS)
