"""A question about one document or a set of documents, with its gold answer and annotations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docqa.core.records import Record

ANSWER_FORMATS = ("Int", "Float", "Str", "List", "None")
UNANSWERABLE = "Not answerable"

#: a page named by its document: (doc_id, 0-based page)
PageRef = tuple[str, int]


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

    A question over several documents (MADQA's cross-document questions, two reports side by
    side) lists them in ``doc_ids``, in the order the dataset gives them, each once; ``doc_id``
    is the first, and its evidence is ``evidence_refs``, (document, 0-based page) pairs, while
    ``evidence_pages`` stays empty. A question about one document leaves both empty. Build
    either kind with :func:`documents_fields`. ``documents`` and ``evidence`` read both kinds
    alike.
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
    doc_ids: list[str] = field(default_factory=list)
    evidence_refs: list[PageRef] = field(default_factory=list)

    def __post_init__(self) -> None:
        # JSON gives the pairs back as lists; a document listed twice counts once
        object.__setattr__(self, "doc_ids", list(dict.fromkeys(self.doc_ids)))
        refs = [(str(doc), int(page)) for doc, page in self.evidence_refs]
        object.__setattr__(self, "evidence_refs", list(dict.fromkeys(refs)))
        if self.doc_ids == [self.doc_id]:  # one document, listed twice: a plain question
            pages = sorted(
                {page for doc, page in refs if doc == self.doc_id} | set(self.evidence_pages)
            )
            object.__setattr__(self, "doc_ids", [])
            object.__setattr__(self, "evidence_refs", [])
            object.__setattr__(self, "evidence_pages", pages)
        self._check_documents()
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

    def to_dict(self) -> dict[str, Any]:
        """The row; a one-document question's row has no ``doc_ids``/``evidence_refs`` keys, so
        that its files read as they did before questions over several documents existed."""
        row = super().to_dict()
        if not self.doc_ids:
            del row["doc_ids"], row["evidence_refs"]
        return row

    def _check_documents(self) -> None:
        if not self.doc_ids:
            if self.evidence_refs:
                raise ValueError(
                    f"question {self.question_id}: evidence_refs are for a question over several "
                    "documents (doc_ids); give a one-document question evidence_pages"
                )
            return
        where = f"question {self.question_id}"
        if len(self.doc_ids) < 2 or self.doc_ids[0] != self.doc_id:
            raise ValueError(
                f"{where}: doc_ids {self.doc_ids} must list two or more documents, doc_id "
                f"({self.doc_id}) first; build it with docqa.core.question.documents_fields"
            )
        if self.evidence_pages or self.page_window:
            raise ValueError(
                f"{where}: a question over several documents gives its evidence as "
                "evidence_refs, and takes no page_window"
            )
        strays = sorted({doc for doc, page in self.evidence_refs if doc not in self.doc_ids})
        if strays or any(page < 0 for _, page in self.evidence_refs):
            raise ValueError(
                f"{where}: evidence_refs must name its documents {self.doc_ids} with 0-based "
                f"pages (strays: {strays})"
            )

    @property
    def documents(self) -> list[str]:
        """Every document the question is about, ``doc_id`` first."""
        return list(self.doc_ids) or [self.doc_id]

    @property
    def over_several(self) -> bool:
        """Whether the question is about more than one document."""
        return bool(self.doc_ids)

    @property
    def evidence(self) -> list[PageRef]:
        """The gold evidence as (document, 0-based page) pairs, for either kind of question."""
        if self.doc_ids:
            return list(self.evidence_refs)
        return [(self.doc_id, page) for page in self.evidence_pages]

    @property
    def has_gold(self) -> bool:
        """Whether the question has a gold answer; a question of your own documents may not
        (``answer`` empty): it is answered but left out of the answer metrics."""
        return self.answer not in ("", [])

    @property
    def answerable(self) -> bool:
        return self.answer_format != "None"


def documents_fields(doc_ids: list[str], evidence: list[PageRef]) -> dict[str, Any]:
    """The ``doc_id``, ``doc_ids``, ``evidence_pages`` and ``evidence_refs`` of a question
    about ``doc_ids`` (listed in order; a repeat counts once) with ``evidence`` as (document,
    0-based page) pairs: one document gives a plain one-document question (``Question``
    makes it one)."""
    documents = list(dict.fromkeys(doc_ids))
    if not documents:
        raise ValueError("a question needs at least one document")
    strays = sorted({doc for doc, _ in evidence if doc not in documents})
    if strays:
        raise ValueError(f"evidence names documents {strays} that are not among {documents}")
    refs = sorted(dict.fromkeys(evidence), key=lambda ref: (documents.index(ref[0]), ref[1]))
    return {
        "doc_id": documents[0],
        "doc_ids": documents,
        "evidence_pages": [],
        "evidence_refs": refs,
    }
