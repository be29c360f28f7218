"""Text RAG: the top-k pages by a text retriever, their OCR text, then the model."""

from __future__ import annotations

from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Models, TopKMethod, TopKOptions
from docqa.methods.reading import read_pages


class TextRAGOptions(TopKOptions):
    """``text_rag``: the shared top-k options (the pages' OCR text is what the model reads)."""


@METHODS.register("text_rag", options=TextRAGOptions)
class TextRAG(TopKMethod):
    options: TextRAGOptions

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        ranked, retrieve = self.retrieve(question, env)
        answer, step, usage = await read_pages(
            question.question, env, ranked, models.main, self.options
        )
        return Prediction(question.question_id, answer, ranked, as_trace([retrieve, step]), usage)
