"""Text RAG: the top-k pages by a text retriever, their OCR text, then the model.

``dedupe_text_pages`` (default on) reads each page once. Off, a best-passage ColBERT index
gives MDocAgent's text top-k: the pages of the ``top_k`` best passages, a page read as often as
its passages rank (``docqa.methods.base.text_top_k``); the prediction names each page once.
``not_answerable`` (on) lets docqa's own prompt styles offer "Not answerable"; off, the
instruction has no such escape, as the papers' prompts have none.
"""

from __future__ import annotations

from typing import Any

from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Models, TopKMethod, TopKOptions, text_top_k
from docqa.methods.reading import read_pages
from docqa.runtime.spec import Field


class TextRAGOptions(TopKOptions):
    """``text_rag``: the shared top-k options (the pages' OCR text is what the model reads)."""

    dedupe_text_pages: bool = Field(
        True,
        description="read each page once (false: a page once per top-k passage, as MDocAgent)",
    )


@METHODS.register("text_rag", options=TextRAGOptions)
class TextRAG(TopKMethod):
    options: TextRAGOptions

    def retrieve(self, question: Question, env: DocumentEnv) -> tuple[list[int], dict[str, Any]]:
        options = self.options
        searcher = env.searcher(options.retriever)
        ranked = text_top_k(searcher, question.question, options.top_k, options.dedupe_text_pages)
        return ranked, {"step": "retrieve", "retriever": options.retriever, "pages": ranked}

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        ranked, retrieve = self.retrieve(question, env)
        answer, step, usage = await read_pages(
            question.question, env, ranked, models.main, self.options
        )
        pages = list(dict.fromkeys(ranked))
        return Prediction(question.question_id, answer, pages, as_trace([retrieve, step]), usage)
