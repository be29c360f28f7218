"""The documents of a dataset as the methods read them: each document's environment
(:class:`~docqa.methods.base.DocumentEnv`: pages, page texts, elements, retrievers' searchers,
overviews), built once on first use from the render, text and index stages' files.

The infer stage, the knowledge stage and DocPilot's trajectory synthesis
(:mod:`docqa.training.synthesis`) read documents through a :class:`DocumentStore`.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docqa.core.document import Document, Page
from docqa.core.element import Element
from docqa.core.jsonl import read_jsonl
from docqa.core.question import Question
from docqa.methods.base import DocumentEnv
from docqa.methods.document_set import env_over
from docqa.retrievers import create_retriever
from docqa.text.page_texts import load_page_texts

#: environments over a set of documents kept built at once (DocumentStore.set_env)
KEPT_SETS = 64


class DocumentStore:
    """Builds each document's environment once, on first use."""

    def __init__(
        self,
        documents: Path,
        pages: Path,
        elements: Path,
        index_dirs: dict[str, Path],
        retrievers: dict[str, dict[str, Any]],
        overviews: Path | None = None,
    ) -> None:
        self.documents = {row["doc_id"]: Document.from_dict(row) for row in read_jsonl(documents)}
        self.pages: dict[str, list[Page]] = {}
        for row in read_jsonl(pages):
            page = Page.from_dict(row)
            self.pages.setdefault(page.doc_id, []).append(page)
        self.texts = load_page_texts(elements, pages)
        self.elements_file = elements
        self._element_offsets = _line_offsets(elements)
        self.index_dirs = index_dirs
        self.retrievers = retrievers
        self.overviews: dict[str, list[dict[str, Any]]] = {}
        for row in read_jsonl(overviews) if overviews else ():
            self.overviews.setdefault(row["doc_id"], []).append(row)
        self._envs: dict[str, DocumentEnv] = {}
        self._sets: OrderedDict[tuple[str, ...], DocumentEnv] = OrderedDict()
        self._retrievers: dict[str, Any] = {}

    def retriever(self, name: str) -> Any:
        """The configured retriever ``name``, built once and shared by every document."""
        if name not in self._retrievers:
            self._retrievers[name] = create_retriever(self.retrievers[name])
        return self._retrievers[name]

    def prepare_queries(self, names: tuple[str, ...], queries: list[str]) -> None:
        """Let each retriever that can (``prepare_queries``) encode the job's queries at once."""
        for name in names:
            prepare = getattr(self.retriever(name), "prepare_queries", None)
            if prepare is not None:
                prepare(queries)

    def env(self, doc_id: str, needed: tuple[str, ...]) -> DocumentEnv | None:
        if doc_id not in self.pages or doc_id not in self.texts:
            return None
        if doc_id not in self._envs:
            searchers = {
                name: self.retriever(name).load(self.index_dirs[name] / doc_id) for name in needed
            }
            pages = sorted(self.pages[doc_id], key=lambda p: p.index)
            self._envs[doc_id] = DocumentEnv(
                self.documents[doc_id],
                pages,
                self.texts[doc_id],
                searchers,
                self._elements(doc_id),
                self.overviews.get(doc_id, []),
            )
        return self._envs[doc_id]

    def set_env(self, doc_ids: list[str], needed: tuple[str, ...]) -> DocumentEnv:
        """One environment over the documents ``doc_ids`` (each has an env). The last
        :data:`KEPT_SETS` sets are kept: a set copies its documents' elements onto its own page
        numbers, and most sets (MADQA's) belong to one question."""
        key = tuple(doc_ids)
        if key not in self._sets:
            envs = [self.env(doc_id, needed) for doc_id in doc_ids]
            self._sets[key] = env_over([env for env in envs if env is not None])
            while len(self._sets) > KEPT_SETS:
                self._sets.popitem(last=False)
        self._sets.move_to_end(key)
        return self._sets[key]

    def question_env(self, question: Question, needed: tuple[str, ...]) -> QuestionEnv:
        """The environment a question is answered in, or why it cannot be: its document's, its
        page window's, or, for a question over several documents, the set's. A set with some
        documents missing is answered over the others only when the question's tag
        ``missing_documents`` is ``answer`` (a dataset option); otherwise the question fails
        naming every missing document."""
        present = [d for d in question.documents if self.env(d, needed) is not None]
        missing = [d for d in question.documents if d not in present]
        allowed = question.tags.get("missing_documents", "fail") == "answer"
        if not present or (missing and not allowed):
            return QuestionEnv(None, missing)
        if len(present) == 1:
            env = self.env(present[0], needed)
            assert env is not None
            return QuestionEnv(env.within(question.page_window), missing)
        return QuestionEnv(self.set_env(present, needed), missing)

    def _elements(self, doc_id: str) -> list[Element]:
        """One document's OCR elements, read from its own line of the elements file."""
        offset = self._element_offsets.get(doc_id)
        if offset is None:
            return []
        with open(self.elements_file, "rb") as handle:
            handle.seek(offset)
            row = json.loads(handle.readline())
        return [Element.from_dict(element) for element in row["elements"]]


@dataclass(frozen=True)
class QuestionEnv:
    """A question's environment (``None`` when it cannot be answered) and its documents that
    have no pages."""

    env: DocumentEnv | None
    missing: list[str]


def _line_offsets(path: Path) -> dict[str, int]:
    """doc_id → byte offset of its line in a one-line-per-document JSONL file."""
    offsets = {}
    with open(path, "rb") as handle:
        offset = handle.tell()
        for line in iter(handle.readline, b""):
            if line.strip():
                offsets[json.loads(line)["doc_id"]] = offset
            offset = handle.tell()
    return offsets
