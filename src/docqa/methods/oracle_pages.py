"""Oracle pages: the gold evidence pages instead of retrieval, to separate reading from search.

A question without evidence pages (an unanswerable one) gets no pages at all.
"""

from __future__ import annotations

from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Method, Models
from docqa.methods.baseline_prompts import check_style
from docqa.methods.reading import read_pages


@METHODS.register("oracle_pages")
class OraclePages(Method):
    def __init__(
        self,
        max_chars_per_page: int = 1500,
        max_new_tokens: int = 24,
        prompt: str = "auto",
        temperature: float = 0.0,
    ) -> None:
        check_style("oracle_pages", prompt)
        self.max_chars_per_page = max_chars_per_page
        self.max_new_tokens = max_new_tokens
        self.prompt = prompt
        self.temperature = temperature

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        pages = sorted(env.pages_of(question.evidence))
        answer, step, usage = await read_pages(
            question.question,
            env,
            pages,
            models.main,
            self.max_chars_per_page,
            self.max_new_tokens,
            self.prompt,
            self.temperature,
        )
        return Prediction(question.question_id, answer, pages, as_trace([step]), usage)
