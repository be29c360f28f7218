"""Oracle pages: the gold evidence pages instead of retrieval, to separate reading from search.

Option ``read`` says how the gold pages are read:

* ``text`` (default): their OCR text, in the reading prompt of ``text_rag``, so the default
  run's oracle and text-RAG rows differ only in which pages they read;
* ``images``: the page images, in order, each headed by its page number, as ``image_rag`` and
  ``vanilla`` send them (each image under ``image_max_pixels``, or the model's own budget); this
  is SlideAgent's oracle baseline, which feeds the gold slides to the LVLM. A text-only model
  reads each image as its page's OCR text.

A question without evidence pages (an unanswerable one) gets no pages at all.
"""

from __future__ import annotations

from typing import Literal

from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, ImageReadingOptions, Method, Models
from docqa.methods.page_passages import PageTexts
from docqa.methods.reading import read_pages
from docqa.methods.vanilla import ask, page_part
from docqa.runtime.spec import Field


class OraclePagesOptions(ImageReadingOptions):
    """``oracle_pages``: how the gold pages are read."""

    read: Literal["text", "images"] = Field(
        "text",
        description="the gold pages' OCR text, or their images (SlideAgent's oracle baseline)",
    )


@METHODS.register("oracle_pages", options=OraclePagesOptions)
class OraclePages(Method):
    options: OraclePagesOptions

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        pages = sorted(env.pages_of(question.evidence))
        if self.options.read == "text":
            answer, step, usage = await read_pages(
                question.question, env, pages, models.main, self.options
            )
            step["read"] = "text"
        else:
            texts = PageTexts(question.question, self.options.max_chars_per_page)
            shown = [(f"### Page {env.page_label(p)}", page_part(env, p, texts)) for p in pages]
            answer, usage, output, settings = await ask(
                models.main, question.question, shown, self.options
            )
            cut = texts.trace(usage.images_as_text > 0)
            step = {
                "step": "read",
                "read": "images",
                "pages": pages,
                **settings,
                **cut,
                "output": output,
            }
        return Prediction(question.question_id, answer, pages, as_trace([step]), usage)
