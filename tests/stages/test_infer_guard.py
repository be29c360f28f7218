"""The infer job's per-question guard covers recording the answer too: a prediction that cannot
be turned into a row becomes an error row for its question, one with lone surrogates is written
with them replaced, and the job goes on with the other questions."""

from __future__ import annotations

import asyncio
from pathlib import Path

from helpers.scripted_backend import ScriptedBackend

from docqa.backends.client import ModelClient
from docqa.core.document import Document
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods.base import DocumentEnv, Method, MethodOptions, Models
from docqa.methods.store import QuestionEnv
from docqa.runtime.checkpoint import Checkpoint
from docqa.stages.infer import _answer_all


class Answers(Method):
    """Answers each question with a prediction made from its id: ``bad`` one whose row cannot
    be made (a generator in its trace cannot be copied), ``surrogate`` one with lone surrogates
    (as a sandboxed program can print)."""

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        qid = question.question_id
        if qid == "bad":
            return Prediction(qid, "x", trace=[{"lines": (line for line in "ab")}])
        if qid == "surrogate":
            return Prediction(qid, "y\ud800", trace=[{"printed": "\udcff"}])
        return Prediction(qid, "fine")


class Store:
    """Every document is readable (an environment the method does not look at)."""

    def question_env(self, question: Question, needed: tuple[str, ...]) -> QuestionEnv:
        return QuestionEnv(DocumentEnv(Document(question.doc_id, ""), [], []), [])


def question(qid: str) -> Question:
    return Question(qid, "doc", "q?", "a", "Str")


def test_one_unwritable_prediction_does_not_stop_the_job(tmp_path: Path) -> None:
    out = tmp_path / "predictions.jsonl"
    checkpoint = Checkpoint(out, "fp", key="question_id")
    todo = [question(qid) for qid in ("bad", "surrogate", "good")]
    models = Models(ModelClient(ScriptedBackend(lambda request: "")))
    asyncio.run(
        _answer_all(todo, Answers(MethodOptions()), Store(), models, checkpoint, tmp_path / "f", 2)
    )
    rows = {row["question_id"]: row for row in checkpoint.finish(["bad", "surrogate", "good"])}
    assert rows["bad"]["answer"] == ""
    assert rows["bad"]["error"].startswith("TypeError")
    assert rows["surrogate"]["answer"] == "y\ufffd"
    assert rows["surrogate"]["trace"] == [{"printed": "\ufffd"}]
    assert rows["good"]["answer"] == "fine"
    assert rows["good"]["error"] == ""
    out.read_bytes().decode("utf-8")  # the whole output is valid UTF-8
