"""Page images under a pixel budget.

A page rendered at 150 dpi is 1-9 megapixels; a VLM turns pixels into image tokens (Qwen2.5-VL:
one token per 28x28 pixels), so a 20-page document at full resolution does not fit in memory. A
model's ``max_pixels`` caps every page image: it is scaled down, aspect ratio kept, until its
area fits. How the cap reaches the model depends on the family (see ``model_families``).
"""

from __future__ import annotations

import base64
import io
import math
import os

from PIL import Image


def open_page(path: str) -> Image.Image:
    """The image at ``path`` as RGB; an error naming the file when it cannot be read."""
    try:
        with Image.open(path) as image:
            return image.convert("RGB")
    except (OSError, ValueError) as error:
        raise ValueError(
            f"page image {path} cannot be read ({error}); render the page again"
        ) from error


def check_pages(request_images: list[str]) -> None:
    """An error naming the first page image that is not a file (before the request joins a
    batch, so that it fails alone)."""
    for path in request_images:
        if not os.path.isfile(path):
            raise ValueError(f"page image {path} does not exist; render the document's pages again")


def fit_area(width: int, height: int, max_pixels: int) -> tuple[int, int]:
    """``(width, height)`` scaled down (never up), aspect ratio kept, to at most ``max_pixels``."""
    if width * height <= max_pixels:
        return width, height
    scale = math.sqrt(max_pixels / (width * height))
    return max(1, math.floor(width * scale)), max(1, math.floor(height * scale))


def shrink(image: Image.Image, max_pixels: int) -> Image.Image:
    """``image`` scaled down to at most ``max_pixels`` (unchanged when it already fits)."""
    size = fit_area(*image.size, max_pixels)
    return image if size == image.size else image.resize(size, Image.Resampling.BICUBIC)


def scale_longest_edge(image: Image.Image, longest_edge: int, max_pixels: int) -> Image.Image:
    """``image`` with its longest edge at ``longest_edge`` (up or down, as Idefics3's processor
    does), then scaled down to at most ``max_pixels``."""
    width, height = image.size
    scale = longest_edge / max(width, height)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    size = fit_area(*size, max_pixels)
    return image if size == image.size else image.resize(size, Image.Resampling.BICUBIC)


def png_data_url(image: Image.Image) -> str:
    """``image`` inline, as an OpenAI-style ``data:`` URL (PNG: lossless for text on pages)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
