"""What an exception that ended one item of a job is: the one decision of every runner.

Methods, the knowledge builder and the backends raise; they do not catch. The runners (the infer
stage for a question, the knowledge stage for a document, trajectory synthesis for a training
question) hand whatever ended an item to :func:`classify` and act on its kind:

- ``INFRASTRUCTURE`` (the server, the key, the cache, memory: docqa.backends.errors): nothing is
  wrong with the item; the job stops and its rerun tries the item again;
- ``INPUT`` (anything else: an unreadable page, a reply that cannot be parsed, a missing
  knowledge base): the item is recorded as failed with this message and the job goes on.

A method that failed part way may have raised :class:`docqa.methods.partial.PartialAnswer`:
the kind is the kind of the error inside it, and the question keeps the method's trace so far.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from docqa.backends.errors import error_kind
from docqa.core.error_kinds import INFRASTRUCTURE
from docqa.core.prediction import Prediction
from docqa.methods.partial import PartialAnswer


@dataclass(frozen=True)
class ItemError:
    """Why an item failed: ``message`` (``"<type>: <text>"`` of the error that ended it),
    ``kind`` (``Prediction.error_kind``) and, for a question, the method's ``partial``
    prediction (``None`` when it kept nothing)."""

    message: str
    kind: str
    partial: Prediction | None = None

    @property
    def infrastructure(self) -> bool:
        """Whether the job must stop rather than record the item as failed."""
        return self.kind == INFRASTRUCTURE

    def prediction(self, question_id: str) -> Prediction:
        """The failed question's prediction: no answer, the error and its kind, with the pages,
        trace and usage the method kept."""
        kept = self.partial or Prediction(question_id, "")
        return replace(
            kept, question_id=question_id, answer="", error=self.message, error_kind=self.kind
        )


def classify(error: Exception) -> ItemError:
    """What ``error``, which ended an item, is (module docstring)."""
    partial = error.partial if isinstance(error, PartialAnswer) else None
    cause = error.error if isinstance(error, PartialAnswer) else error
    return ItemError(f"{type(cause).__name__}: {cause}", error_kind(cause), partial)
