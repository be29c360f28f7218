"""A question about one document or a set of documents, with its gold answer and annotations."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from docqa.core.records import Record

ANSWER_FORMATS = ("Int", "Float", "Str", "List", "None")
UNANSWERABLE = "Not answerable"

#: a page named by its document: (doc_id, 0-based page)
PageRef = tuple[str, int]


@dataclass(frozen=True)
class Question(Record):
    """``evidence`` is the gold evidence as (document, 0-based page) pairs, for every question.

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
    is the first, and its evidence names pages of those documents. A question about one
    document leaves ``doc_ids`` empty, and its evidence names pages of ``doc_id`` (build it
    with :func:`page_refs`). Build either kind with :func:`documents_fields`.

    The row (:meth:`to_dict`) of a one-document question gives its evidence as
    ``evidence_pages`` (page indices), as such rows always have; a question over several
    documents gives ``evidence_pages`` empty and its pairs as ``evidence_refs``.
    :meth:`from_dict` reads both.
    """

    question_id: str
    doc_id: str
    question: str
    answer: str | list[str]
    answer_format: str
    evidence: list[PageRef] = field(default_factory=list)
    tags: dict[str, str | list[str]] = field(default_factory=dict)
    original: dict[str, Any] = field(default_factory=dict)
    page_window: list[int] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # JSON gives the pairs back as lists; a document listed twice counts once
        object.__setattr__(self, "doc_ids", list(dict.fromkeys(self.doc_ids)))
        refs = [(str(doc), int(page)) for doc, page in self.evidence]
        if self.doc_ids == [self.doc_id]:  # one document, listed twice: a plain question
            object.__setattr__(self, "doc_ids", [])
            refs = sorted(set(refs))
        elif self.doc_ids:  # over several documents, each pair counts once
            refs = list(dict.fromkeys(refs))
        object.__setattr__(self, "evidence", refs)
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
        """The row: the evidence as ``evidence_pages`` (page indices; empty over several
        documents) in its place; a question over several documents adds ``doc_ids`` and
        ``evidence_refs`` (the pairs) at the end, a one-document row has neither."""
        row = super().to_dict()
        row["evidence"] = [] if self.doc_ids else [page for _, page in self.evidence]
        row = {("evidence_pages" if key == "evidence" else key): row[key] for key in row}
        if self.doc_ids:
            row["evidence_refs"] = list(self.evidence)
        else:
            del row["doc_ids"]
        return row

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Question:
        """A row as :meth:`to_dict` writes it: ``evidence_pages`` (pages of ``doc_id``) and
        ``evidence_refs`` (pairs) become ``evidence``."""
        if "evidence" in data:
            raise ValueError(
                f"Question: a row gives its evidence as evidence_pages (one document) or "
                f"evidence_refs (several), not evidence: {data!r:.200}"
            )
        data = dict(data)
        pages = data.pop("evidence_pages", [])
        refs = data.pop("evidence_refs", [])
        data["evidence"] = [*page_refs(str(data.get("doc_id", "")), pages), *refs]
        return super().from_dict(data)

    def _check_documents(self) -> None:
        where = f"question {self.question_id}"
        if not self.doc_ids:
            strays = sorted({doc for doc, _ in self.evidence if doc != self.doc_id})
            if strays:
                raise ValueError(
                    f"{where}: evidence names documents {strays}, but the question is about "
                    f"{self.doc_id} only; a question over several documents lists them in "
                    "doc_ids (build it with docqa.core.question.documents_fields)"
                )
            return
        if len(self.doc_ids) < 2 or self.doc_ids[0] != self.doc_id:
            raise ValueError(
                f"{where}: doc_ids {self.doc_ids} must list two or more documents, doc_id "
                f"({self.doc_id}) first; build it with docqa.core.question.documents_fields"
            )
        if self.page_window:
            raise ValueError(f"{where}: a question over several documents takes no page_window")
        strays = sorted({doc for doc, page in self.evidence if doc not in self.doc_ids})
        if strays or any(page < 0 for _, page in self.evidence):
            raise ValueError(
                f"{where}: evidence must name its documents {self.doc_ids} with 0-based "
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

    def evidence_in(self, doc_id: str) -> list[int]:
        """The 0-based evidence pages of document ``doc_id``, in evidence order."""
        return [page for doc, page in self.evidence if doc == doc_id]

    @property
    def has_gold(self) -> bool:
        """Whether the question has a gold answer; a question of your own documents may not
        (``answer`` empty): it is answered but left out of the answer metrics."""
        return self.answer not in ("", [])

    @property
    def answerable(self) -> bool:
        return self.answer_format != "None"


def page_refs(doc_id: str, pages: Iterable[int]) -> list[PageRef]:
    """``pages`` (0-based) of document ``doc_id`` as (document, page) pairs: the evidence of a
    one-document question."""
    return [(doc_id, int(page)) for page in pages]


def documents_fields(doc_ids: list[str], evidence: list[PageRef]) -> dict[str, Any]:
    """The ``doc_id``, ``doc_ids`` and ``evidence`` of a question about ``doc_ids`` (listed in
    order; a repeat counts once) with ``evidence`` as (document, 0-based page) pairs: one
    document gives a plain one-document question (``Question`` makes it one)."""
    documents = list(dict.fromkeys(doc_ids))
    if not documents:
        raise ValueError("a question needs at least one document")
    strays = sorted({doc for doc, _ in evidence if doc not in documents})
    if strays:
        raise ValueError(f"evidence names documents {strays} that are not among {documents}")
    refs = sorted(dict.fromkeys(evidence), key=lambda ref: (documents.index(ref[0]), ref[1]))
    return {"doc_id": documents[0], "doc_ids": documents, "evidence": refs}
