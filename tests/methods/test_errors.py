"""docqa.methods.errors.classify: the one decision, shared by the infer stage, the knowledge stage
and trajectory synthesis, of what an exception that ended an item is."""

from __future__ import annotations

import sqlite3

import pytest

from docqa.backends.errors import INFRASTRUCTURE, INPUT, CacheCorruptError, InfrastructureError
from docqa.core.prediction import Prediction, Usage
from docqa.methods.errors import classify
from docqa.methods.partial import PartialAnswer, keeping_trace


class OutOfMemoryError(RuntimeError):
    """Named as torch's is: recognised by its name, without importing torch."""


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (InfrastructureError("model m: no answer from http://127.0.0.1:9/v1"), INFRASTRUCTURE),
        (CacheCorruptError("the response cache is corrupt"), INFRASTRUCTURE),
        (ConnectionRefusedError("refused"), INFRASTRUCTURE),
        (MemoryError(), INFRASTRUCTURE),
        (OutOfMemoryError("CUDA out of memory"), INFRASTRUCTURE),
        (sqlite3.DatabaseError("database disk image is malformed"), INFRASTRUCTURE),
        (ValueError("no knowledge base for document 'acme'"), INPUT),
        (RuntimeError("model m: HTTP 400 from http://127.0.0.1:9/v1: bad request"), INPUT),
        (KeyError("retriever 'colqwen2' has no index"), INPUT),
    ],
)
def test_an_error_is_of_the_infrastructure_or_of_the_question(error: Exception, kind: str) -> None:
    failed = classify(error)
    assert failed.kind == kind
    assert failed.infrastructure == (kind == INFRASTRUCTURE)
    assert failed.message == f"{type(error).__name__}: {error}"
    assert failed.partial is None
    prediction = failed.prediction("q7")
    assert (prediction.question_id, prediction.answer, prediction.trace) == ("q7", "", [])
    assert (prediction.error, prediction.error_kind) == (failed.message, kind)


def failing_method(error: Exception) -> None:
    """A method that records a step and two pages, then fails inside keeping_trace."""
    trace: list[dict[str, object]] = []
    partial = Prediction("q7", "", [2, 4], trace, Usage(calls=1))
    with keeping_trace(lambda: partial):
        trace.append({"step": "general", "output": "The revenue..."})
        raise error


@pytest.mark.parametrize(
    ("error", "kind"),
    [(InfrastructureError("server down"), INFRASTRUCTURE), (ValueError("no JSON"), INPUT)],
)
def test_a_partial_answer_is_classified_by_the_error_inside_and_keeps_its_trace(
    error: Exception, kind: str
) -> None:
    with pytest.raises(PartialAnswer) as raised:
        failing_method(error)
    assert raised.value.__cause__ is error
    failed = classify(raised.value)
    assert failed.kind == kind
    assert failed.message == f"{type(error).__name__}: {error}"
    prediction = failed.prediction("q7")
    assert prediction.answer == ""
    assert prediction.pages == [2, 4]
    assert prediction.trace == [{"step": "general", "output": "The revenue..."}]
    assert prediction.usage.calls == 1
    assert (prediction.error, prediction.error_kind) == (failed.message, kind)


def test_a_partial_answer_raised_again_is_not_wrapped_twice() -> None:
    inner = PartialAnswer(Prediction("q7", "", [1]), ValueError("no JSON"))
    with pytest.raises(PartialAnswer) as raised, keeping_trace(lambda: Prediction("q7", "", [9])):
        raise inner
    assert raised.value is inner
    assert classify(raised.value).prediction("q7").pages == [1]
