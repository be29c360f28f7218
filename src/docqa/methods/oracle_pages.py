"""Oracle pages: the gold evidence pages instead of retrieval, to separate reading from search.

A question without evidence pages (an unanswerable one) gets no pages at all.
"""

from __future__ import annotations

from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Method, Models, ReadingOptions
from docqa.methods.reading import read_pages


class OraclePagesOptions(ReadingOptions):
    """``oracle_pages``: how the gold pages' OCR text is read."""


@METHODS.register("oracle_pages", options=OraclePagesOptions)
class OraclePages(Method):
    options: OraclePagesOptions

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        pages = sorted(env.pages_of(question.evidence))
        answer, step, usage = await read_pages(
            question.question, env, pages, models.main, self.options
        )
        return Prediction(question.question_id, answer, pages, as_trace([step]), usage)
