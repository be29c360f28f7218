"""Vanilla: the whole document to the model, without retrieval.

Two layouts, chosen by the ``mode`` option:

* ``pages``: every page as its own image, in document order, each headed by its page number
  (MMLongBench-Doc's way for API models, which get all pages in one message);
* ``grids``: MMLongBench-Doc's way for open models: the pages concatenated, in order, into at
  most ``max_images`` grid images of ``grid_columns`` pages a row
  (:mod:`docqa.imaging.page_grid`; 5 and 3 in the original), each headed by the pages it shows.

**Page cap.** A document with more than ``max_pages`` pages (120, MMLongBench-Doc's cap) is
cut to its first ``max_pages`` pages, as the original reads ``pdf[:max_pages]``. The prediction
counts the pages left out in ``pages_truncated`` and its ``read`` trace step says so.

**Pixel budget.** ``max_pixels`` caps the pixels of all the images of one request together:
each page (``pages``) or grid (``grids``) gets an equal share and is scaled down to it when it
is larger. ``None`` leaves the images at their rendered size; the backend's own per-image
budget still applies. Scaled pages and grids are written once to ``images_dir``, named by the
content of their pages and the settings, so every question and job reuses them.

**Text-only models** (the embedded default) read each image as the OCR text of its pages,
each headed by its page number; a page without OCR text reads as
:data:`~docqa.methods.mdocagent.requests.NO_OCR_TEXT`.

**Prompt.** Option ``prompt`` (:mod:`docqa.methods.baseline_prompts`): ``auto`` follows the
model (docqa's few-shot reading prompt for a base model, an instruction for a chat model);
``bare`` is MMLongBench-Doc's own, the images then the bare question, its free-form reply
reduced to an answer by the benchmark's GPT-4o extraction at scoring (``max_new_tokens: 1024``
there). ``image_max_pixels`` is each image's own budget, replacing the model's. The original's
retry with fewer grid images when an API call fails is not ported (a failed call is the
question's error).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Part, file_sha256
from docqa.core.document import Page
from docqa.core.prediction import Prediction, Usage
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.imaging.page_grid import GRID_COLUMNS, MAX_GRID_IMAGES, grid_image, grid_runs
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Method, Models
from docqa.methods.baseline_prompts import check_style, generation, image_request, resolve_style
from docqa.methods.mdocagent.requests import NO_OCR_TEXT
from docqa.methods.prompts import format_pages

MODES = ("pages", "grids")

#: MMLongBench-Doc's page cap (``--max_pages``)
MAX_PAGES = 120


def page_text(env: DocumentEnv, page: int, max_chars: int) -> str:
    """The OCR text a text-only model reads for ``page``: cut to ``max_chars`` characters, or
    :data:`NO_OCR_TEXT` when the page has none."""
    text = env.page_texts[page][:max_chars]
    return text if text.strip() else NO_OCR_TEXT


def page_part(env: DocumentEnv, page: int, max_chars: int, image: Path | str | None = None) -> Part:
    """Page ``page`` as an image part (``image``: a scaled copy of it, if given) carrying its
    OCR text for text-only models."""
    return Part.of_image(str(image or env.pages[page].image), page_text(env, page, max_chars))


def reading_request(
    question: str, shown: Sequence[tuple[str, Part]], max_new_tokens: int
) -> ChatRequest:
    """The few-shot reading prompt with images: the instruction and worked examples of
    :mod:`docqa.methods.prompts`, then each ``(heading, image part)``, then the question with
    ``A:`` left open."""
    return image_request(
        "fewshot", question, shown, generation("fewshot", max_new_tokens, 0.0, None)
    )


async def ask(
    client: ModelClient,
    question: str,
    shown: Sequence[tuple[str, Part]],
    max_new_tokens: int,
    prompt: str = "auto",
    temperature: float = 0.0,
    max_pixels: int | None = None,
) -> tuple[str, Usage, str, dict[str, Any]]:
    """Ask ``question`` about the shown images in prompt style ``prompt``; returns (answer,
    usage, raw reply, the settings the trace records)."""
    style = resolve_style(prompt, client)
    gen = generation(style, max_new_tokens, temperature, max_pixels)
    completion = await client.complete(image_request(style, question, shown, gen))
    settings = {
        "prompt": style,
        "max_new_tokens": max_new_tokens,
        "temperature": temperature,
        "image_max_pixels": max_pixels,
    }
    return completion.text.strip(), completion.usage, completion.text, settings


@METHODS.register("vanilla")
class Vanilla(Method):
    def __init__(
        self,
        mode: str = "pages",
        max_pages: int = MAX_PAGES,
        max_images: int = MAX_GRID_IMAGES,
        grid_columns: int = GRID_COLUMNS,
        max_pixels: int | None = None,
        images_dir: str = "results/vanilla_images",
        max_chars_per_page: int = 1500,
        max_new_tokens: int = 24,
        prompt: str = "auto",
        temperature: float = 0.0,
        image_max_pixels: int | None = None,
    ) -> None:
        check_style("vanilla", prompt)
        if mode not in MODES:
            raise ValueError(f"vanilla: mode {mode!r} is not one of {MODES}")
        for name, value in (
            ("max_pages", max_pages),
            ("max_images", max_images),
            ("grid_columns", grid_columns),
            ("max_pixels", 1 if max_pixels is None else max_pixels),
        ):
            if value < 1:
                raise ValueError(f"vanilla: {name} must be at least 1, not {value}")
        self.mode = mode
        self.max_pages = max_pages
        self.max_images = max_images
        self.grid_columns = grid_columns
        self.max_pixels = max_pixels
        self.images_dir = Path(images_dir)
        self.max_chars_per_page = max_chars_per_page
        self.max_new_tokens = max_new_tokens
        self.prompt = prompt
        self.temperature = temperature
        self.image_max_pixels = image_max_pixels

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        readable = env.readable  # the question's page window, or every page
        shown_pages = readable[: self.max_pages]
        truncated = len(readable) - len(shown_pages)
        runs = (
            [[page] for page in shown_pages]
            if self.mode == "pages"
            else [
                [shown_pages[i] for i in run]
                for run in grid_runs(len(shown_pages), self.max_images)
            ]
        )
        budget = self.max_pixels // len(runs) if self.max_pixels and runs else None
        shown = [(self._heading(env, run), self._part(env, run, budget)) for run in runs]
        answer, usage, output, settings = await ask(
            models.main,
            question.question,
            shown,
            self.max_new_tokens,
            self.prompt,
            self.temperature,
            self.image_max_pixels,
        )
        step = {
            "step": "read",
            "mode": self.mode,
            **settings,
            "pages": shown_pages,
            "images": [part.image for _, part in shown],
            "pages_truncated": truncated,
            "output": output,
        }
        return Prediction(
            question.question_id,
            answer,
            shown_pages,
            as_trace([step]),
            usage,
            pages_truncated=truncated,
        )

    @staticmethod
    def _heading(env: DocumentEnv, run: Sequence[int]) -> str:
        first, last = env.page_label(run[0]), env.page_label(run[-1])
        return f"### Page {first}" if first == last else f"### Pages {first}-{last}"

    def _part(self, env: DocumentEnv, run: Sequence[int], budget: int | None) -> Part:
        """One image of the request: a page as rendered, or a page scaled to ``budget``, or a
        grid of pages; for text-only models, the OCR text of its pages."""
        pages = [env.pages[i] for i in run]
        if self.mode == "pages":
            page = pages[0]
            if budget is None or page.width * page.height <= budget:
                return page_part(env, run[0], self.max_chars_per_page)
            return page_part(env, run[0], self.max_chars_per_page, self._image(pages, 1, budget))
        texts = [(env.page_label(i), page_text(env, i, self.max_chars_per_page)) for i in run]
        return Part.of_image(
            str(self._image(pages, self.grid_columns, budget)), format_pages(texts)
        )

    def _image(self, pages: Sequence[Page], columns: int, budget: int | None) -> Path:
        """The grid of ``pages`` (a scaled page when there is one), written once."""
        sources = [str(page.image) for page in pages]
        key = json.dumps([[file_sha256(s) for s in sources], columns, budget])
        path = self.images_dir / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.png"
        if not path.exists():
            image = grid_image(sources, columns, budget)
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f"{path.stem}.{os.getpid()}.partial")
            image.save(partial, format="PNG")
            os.replace(partial, path)  # other jobs never see a half-written image
        return path
