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
each headed by its page number (a page longer than ``max_chars_per_page``: its passages that
bear on the question, :mod:`docqa.methods.page_passages`, listed in the step's ``text_cut``);
a page without OCR text reads as :data:`~docqa.methods.mdocagent.requests.NO_OCR_TEXT`.

**Prompt.** Option ``prompt`` (:mod:`docqa.methods.baseline_prompts`): ``auto`` follows the
model (docqa's few-shot reading prompt for a base model, an instruction for a chat model);
``bare`` is MMLongBench-Doc's own, the images then the bare question, its free-form reply
reduced to an answer by the benchmark's GPT-4o extraction at scoring (``max_new_tokens: 1024``
there). ``image_max_pixels`` is each image's own budget, replacing the model's. The original's
retry with fewer grid images when an API call fails is not ported (a failed call is the
question's error).

**Context.** A request never holds more tokens than the model's context window (the model
entry's ``context_tokens``, or what its backend reads from the loaded model): before the call
the request's tokens are estimated (:mod:`docqa.methods.context_fit`: each image by its pixels
under the budget the model applies, the text, the answer's new tokens), and when they do not
fit, every image is downscaled to one equal budget that fits; only when that budget would be
under ``min_page_pixels`` are the last images dropped (their pages are added to
``pages_truncated``). The ``read`` step records the estimate and the fit (``context_fit``), and
the prediction counts the pages sent smaller in ``pages_downscaled``; the score file sums both.
A text-only model reads OCR text, which its backend fits (``max_input_tokens``).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from PIL import Image

from docqa.backends.calls import recorded_calls
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Part, file_sha256
from docqa.core.document import Page
from docqa.core.prediction import Prediction, Usage
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.imaging.page_grid import GRID_COLUMNS, MAX_GRID_IMAGES, grid_image, grid_runs
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, ImageReadingOptions, Method, Models
from docqa.methods.baseline_prompts import generation, image_request, resolve_style
from docqa.methods.context_fit import PIXELS_PER_TOKEN, Fit, fit_images, reads_images
from docqa.methods.mdocagent.requests import NO_OCR_TEXT
from docqa.methods.page_passages import PageTexts
from docqa.methods.prompts import format_pages
from docqa.runtime.spec import Field

#: MMLongBench-Doc's page cap (``--max_pages``)
MAX_PAGES = 120


def page_text(env: DocumentEnv, page: int, texts: PageTexts) -> str:
    """The OCR text a text-only model reads for ``page`` (within ``texts``' budget, which
    records a cut), or :data:`NO_OCR_TEXT` when the page has none."""
    text = texts.read(page, env.page_texts[page])
    return text if text.strip() else NO_OCR_TEXT


def page_part(
    env: DocumentEnv, page: int, texts: PageTexts, image: Path | str | None = None
) -> Part:
    """Page ``page`` as an image part (``image``: a scaled copy of it, if given) carrying its
    OCR text for text-only models."""
    return Part.of_image(str(image or env.pages[page].image), page_text(env, page, texts))


def ask_request(
    client: ModelClient,
    question: str,
    shown: Sequence[tuple[str, Part]],
    options: ImageReadingOptions,
    max_pixels: int | None = None,
) -> ChatRequest:
    """The request :func:`ask` sends; ``max_pixels`` replaces ``image_max_pixels``."""
    style = resolve_style(options.prompt, client)
    budget = max_pixels or options.image_max_pixels
    gen = generation(style, options.max_new_tokens, options.temperature, budget)
    return image_request(style, question, shown, gen, options.not_answerable)


async def ask(
    client: ModelClient,
    question: str,
    shown: Sequence[tuple[str, Part]],
    options: ImageReadingOptions,
    max_pixels: int | None = None,
) -> tuple[str, Usage, str, dict[str, Any]]:
    """Ask ``question`` about the shown images as ``options`` say (prompt style, new tokens,
    temperature, each image's pixel budget, or ``max_pixels`` in its place); returns (answer,
    usage, raw reply, the settings the trace records)."""
    style = resolve_style(options.prompt, client)
    request = ask_request(client, question, shown, options, max_pixels)
    max_pixels = request.generation.max_pixels
    with recorded_calls() as calls:
        completion = await client.complete(request)
    settings = {
        "prompt": style,
        "max_new_tokens": options.max_new_tokens,
        "temperature": options.temperature,
        "not_answerable": options.not_answerable,
        "image_max_pixels": max_pixels,
        "calls": calls,
    }
    return completion.text.strip(), completion.usage, completion.text, settings


class VanillaOptions(ImageReadingOptions):
    """``vanilla``: the reading options, and how the whole document is shown."""

    mode: Literal["pages", "grids"] = Field(
        "pages", description="every page its own image, or the pages in grid images"
    )
    max_pages: int = Field(
        MAX_PAGES, ge=1, description="pages read; a longer document is cut to its first ones"
    )
    max_images: int = Field(MAX_GRID_IMAGES, ge=1, description="grid images at most (mode grids)")
    grid_columns: int = Field(GRID_COLUMNS, ge=1, description="pages a grid row (mode grids)")
    max_pixels: int | None = Field(
        None, ge=1, description="pixels of all images of a request together (null: no cap)"
    )
    images_dir: str = Field(
        "results/vanilla_images", description="where scaled pages and grids are written once"
    )
    min_page_pixels: int = Field(
        256 * PIXELS_PER_TOKEN,
        ge=PIXELS_PER_TOKEN,
        description="fitting the model's context: images are downscaled to no fewer pixels "
        "(256 visual tokens), the last ones dropped instead",
    )


@METHODS.register("vanilla", options=VanillaOptions)
class Vanilla(Method):
    options: VanillaOptions

    def __init__(self, options: VanillaOptions) -> None:
        super().__init__(options)
        self.images_dir = Path(options.images_dir)

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        readable = env.readable  # the question's page window, or every page
        options = self.options
        shown_pages = readable[: options.max_pages]
        runs = (
            [[page] for page in shown_pages]
            if options.mode == "pages"
            else [
                [shown_pages[i] for i in run]
                for run in grid_runs(len(shown_pages), options.max_images)
            ]
        )
        budget = options.max_pixels // len(runs) if options.max_pixels and runs else None
        texts = PageTexts(question.question, options.max_chars_per_page)
        shown = [(self._heading(env, run), self._part(env, run, budget, texts)) for run in runs]
        client = models.main
        fit = self._fit(client, question.question, shown)
        runs, shown = runs[: fit.kept], shown[: fit.kept]
        shown_pages = [page for run in runs for page in run]
        truncated = len(readable) - len(shown_pages)
        downscaled = sum(len(runs[i]) for i in fit.downscaled)
        answer, usage, output, settings = await ask(
            client, question.question, shown, options, fit.max_pixels
        )
        step = {
            "step": "read",
            "mode": options.mode,
            **settings,
            "pages": shown_pages,
            "images": [part.image for _, part in shown],
            "pages_truncated": truncated,
            "context_fit": {**fit.trace(), "pages_downscaled": downscaled},
            **texts.trace(usage.images_as_text > 0),
            "output": output,
        }
        return Prediction(
            question.question_id,
            answer,
            shown_pages,
            as_trace([step]),
            usage,
            pages_truncated=truncated,
            pages_downscaled=downscaled,
        )

    def _fit(self, client: ModelClient, question: str, shown: Sequence[tuple[str, Part]]) -> Fit:
        """How the images fit the model's context (unchanged for a text-only model)."""
        options = self.options
        request = ask_request(client, question, shown, options)
        text = sum(len(p.text) for m in request.messages for p in m.parts if p.kind == "text")
        sees = bool(shown) and reads_images(client, shown[0][1].image)
        context = client.backend.context_tokens if sees else None
        model_budget = options.image_max_pixels or client.backend.identity.get("max_pixels")
        pixels = [_pixels(part.image) for _, part in shown]
        return fit_images(
            pixels, model_budget, text, options.max_new_tokens, context, options.min_page_pixels
        )

    @staticmethod
    def _heading(env: DocumentEnv, run: Sequence[int]) -> str:
        first, last = env.page_label(run[0]), env.page_label(run[-1])
        return f"### Page {first}" if first == last else f"### Pages {first}-{last}"

    def _part(
        self, env: DocumentEnv, run: Sequence[int], budget: int | None, texts: PageTexts
    ) -> Part:
        """One image of the request: a page as rendered, or a page scaled to ``budget``, or a
        grid of pages; for text-only models, the OCR text of its pages (``texts``)."""
        pages = [env.pages[i] for i in run]
        if self.options.mode == "pages":
            page = pages[0]
            if budget is None or page.width * page.height <= budget:
                return page_part(env, run[0], texts)
            return page_part(env, run[0], texts, self._image(pages, 1, budget))
        read = [(env.page_label(i), page_text(env, i, texts)) for i in run]
        return Part.of_image(
            str(self._image(pages, self.options.grid_columns, budget)), format_pages(read)
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


def _pixels(image: str) -> int:
    """The pixels of an image file (its header only is read)."""
    with Image.open(image) as opened:
        width, height = opened.size
    return width * height
