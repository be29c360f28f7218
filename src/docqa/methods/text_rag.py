"""Text RAG: the top-k pages by a text retriever, their OCR text, then the model."""

from __future__ import annotations

from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Models, TopKMethod
from docqa.methods.reading import read_pages


@METHODS.register("text_rag")
class TextRAG(TopKMethod):
    name = "text_rag"
    default_retriever = "bm25"

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        ranked, retrieve = self.retrieve(question, env)
        answer, step, usage = await read_pages(
            question.question,
            env,
            ranked,
            models.main,
            self.max_chars_per_page,
            self.max_new_tokens,
            self.prompt,
            self.temperature,
        )
        return Prediction(question.question_id, answer, ranked, as_trace([retrieve, step]), usage)
