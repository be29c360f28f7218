"""Text RAG: the top-k pages by a text retriever, their OCR text, then the model."""

from __future__ import annotations

from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Models, TopKMethod
from docqa.methods.reading import read_pages
from docqa.prediction import Prediction
from docqa.question import Question


@METHODS.register("text_rag")
class TextRAG(TopKMethod):
    name = "text_rag"

    def __init__(
        self,
        retriever: str = "bm25",
        top_k: int = 4,
        max_chars_per_page: int = 1500,
        max_new_tokens: int = 24,
    ) -> None:
        super().__init__(retriever, top_k, max_chars_per_page, max_new_tokens)

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        ranked, retrieve = self.retrieve(question, env)
        answer, step, usage = await read_pages(
            question.question,
            env,
            ranked,
            models.main,
            self.max_chars_per_page,
            self.max_new_tokens,
        )
        return Prediction(question.question_id, answer, ranked, [retrieve, step], usage)
