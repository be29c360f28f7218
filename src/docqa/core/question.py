"""A question about one document, with its gold answer and annotations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docqa.core.records import Record

ANSWER_FORMATS = ("Int", "Float", "Str", "List", "None")
UNANSWERABLE = "Not answerable"


@dataclass(frozen=True)
class Question(Record):
    """``evidence_pages`` are 0-based page indices into ``doc_id``.

    ``tags`` holds dataset-specific labels such as ``kind`` (question kind), ``evidence_sources``
    or ``reasoning_type``; values are strings or lists of strings. ``original`` keeps the
    benchmark's own row as read (JSON values; embedded images left out), so nothing the adapter
    did not convert is lost. An empty ``answer`` means no gold answer (see ``has_gold``).

    ``page_window`` holds the 0-based pages the question is restricted to, in document order,
    where the dataset gives such a window (LongDocURL's ``start_end_idx``, MDocAgent's
    ``page_ids``); empty means the whole document. Every method reads and retrieves only inside
    it (the inference stage hands methods a document restricted to it), and score files record
    it per question.
    """

    question_id: str
    doc_id: str
    question: str
    answer: str | list[str]
    answer_format: str
    evidence_pages: list[int] = field(default_factory=list)
    tags: dict[str, str | list[str]] = field(default_factory=dict)
    original: dict[str, Any] = field(default_factory=dict)
    page_window: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.answer_format not in ANSWER_FORMATS:
            raise ValueError(
                f"question {self.question_id}: answer_format {self.answer_format!r} "
                f"is not one of {ANSWER_FORMATS}"
            )
        if any(page < 0 for page in self.page_window) or self.page_window != sorted(
            set(self.page_window)
        ):
            raise ValueError(
                f"question {self.question_id}: page_window {self.page_window} must be distinct "
                "0-based pages in document order"
            )

    @property
    def has_gold(self) -> bool:
        """Whether the question has a gold answer; a question of your own documents may not
        (``answer`` empty): it is answered but left out of the answer metrics."""
        return self.answer not in ("", [])

    @property
    def answerable(self) -> bool:
        return self.answer_format != "None"
