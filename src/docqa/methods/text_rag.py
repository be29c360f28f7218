"""Text RAG: the top-k pages by a text retriever, their OCR text, then the model."""

from __future__ import annotations

from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Method, Models
from docqa.methods.reading import read_pages
from docqa.prediction import Prediction
from docqa.question import Question


@METHODS.register("text_rag")
class TextRAG(Method):
    def __init__(
        self,
        retriever: str = "bm25",
        top_k: int = 4,
        max_chars_per_page: int = 1500,
        max_new_tokens: int = 24,
    ) -> None:
        self.retriever = retriever
        self.retrievers = (retriever,)
        self.top_k = top_k
        self.max_chars_per_page = max_chars_per_page
        self.max_new_tokens = max_new_tokens

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        ranked = env.searcher(self.retriever).search(question.question, self.top_k)
        answer, step, usage = await read_pages(
            question.question,
            env,
            ranked,
            models.main,
            self.max_chars_per_page,
            self.max_new_tokens,
        )
        retrieve = {"step": "retrieve", "retriever": self.retriever, "pages": ranked}
        return Prediction(question.question_id, answer, ranked, [retrieve, step], usage)
