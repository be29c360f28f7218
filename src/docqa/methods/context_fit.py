"""Fitting the images of one request into the model's context window.

A request that holds more tokens than the model's context fails (vLLM refuses it; a hosted API
answers 400), and the question scores 0. Before a method sends a whole document it estimates the
request's tokens: each image is ``ceil(pixels / 784) + 2`` tokens (Qwen2-VL and Qwen2.5-VL: one
visual token per 28 x 28 pixels, and the two markers around them), under the pixel budget the
model applies to it; the text is one token per :data:`CHARS_PER_TOKEN` characters; the answer's
new tokens are reserved. When the estimate exceeds the context, every image is **downscaled** to
one equal pixel budget that fits, so the model still sees every page, smaller (MMLongBench-Doc's
own remedy for a request that is too large is fewer, more crowded images: smaller pages, not
fewer). Only when that budget would fall under ``min_pixels`` (too small to read) are the last
images **dropped** until the rest get ``min_pixels`` each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Message, Part

#: pixels of one visual token (a 28 x 28 patch after Qwen2-VL's 2 x 2 merge)
PIXELS_PER_TOKEN = 28 * 28
#: the tokens around each image (vision start and end markers)
IMAGE_MARKER_TOKENS = 2
#: characters of prompt text per token, a low (so safe) estimate for English OCR text
CHARS_PER_TOKEN = 3


def reads_images(client: ModelClient, image: str) -> bool:
    """Whether the model sees images: a text-only backend refuses an image part that has no
    OCR text (``Backend.validate``), a VLM takes it."""
    try:
        client.backend.validate(ChatRequest((Message.user(Part.of_image(image)),)))
    except ValueError:
        return False
    return True


def image_tokens(pixels: int) -> int:
    """The tokens of an image of ``pixels`` pixels."""
    return math.ceil(pixels / PIXELS_PER_TOKEN) + IMAGE_MARKER_TOKENS


@dataclass(frozen=True)
class Fit:
    """How a request was fitted: the first ``kept`` images are sent, each under ``max_pixels``
    (``None``: as the model's own budget leaves them); ``downscaled`` lists those (0-based)
    that are smaller than the model's budget would have left them."""

    context_tokens: int | None
    estimated_tokens: int
    fitted_tokens: int
    kept: int
    dropped: int
    downscaled: tuple[int, ...]
    max_pixels: int | None

    def trace(self) -> dict[str, Any]:
        return {
            "context_tokens": self.context_tokens,
            "estimated_tokens": self.estimated_tokens,
            "fitted_tokens": self.fitted_tokens,
            "images_dropped": self.dropped,
            "images_downscaled": len(self.downscaled),
            "fitted_max_pixels": self.max_pixels,
        }


def fit_images(
    pixels: Sequence[int],
    budget: int | None,
    text_chars: int,
    new_tokens: int,
    context_tokens: int | None,
    min_pixels: int,
) -> Fit:
    """Fit images of ``pixels`` pixels each, which the model scales down to ``budget`` pixels
    (``None``: no cap), and ``text_chars`` characters of text, with ``new_tokens`` of answer,
    into ``context_tokens`` (``None``: unknown, nothing is changed)."""
    sizes = [min(size, budget) if budget else size for size in pixels]
    text = math.ceil(text_chars / CHARS_PER_TOKEN) + new_tokens
    needed = text + sum(image_tokens(size) for size in sizes)
    if context_tokens is None or needed <= context_tokens:
        return Fit(context_tokens, needed, needed, len(sizes), 0, (), None)
    room = max(context_tokens - text, 0)
    kept, share = len(sizes), 0
    while kept:
        share = (room // kept - IMAGE_MARKER_TOKENS) * PIXELS_PER_TOKEN
        if share >= min_pixels:
            break
        kept -= 1
    shown = [min(size, share) for size in sizes[:kept]]
    fitted = text + sum(image_tokens(size) for size in shown)
    downscaled = tuple(i for i, size in enumerate(sizes[:kept]) if size > share)
    return Fit(
        context_tokens, needed, fitted, kept, len(sizes) - kept, downscaled, share if kept else None
    )
