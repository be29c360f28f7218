"""SlideAgent's query-agnostic knowledge base of one document, as one JSON file.

``K = {K_g, K_p, K_e}``: the global knowledge (the deck's summary), one page knowledge per page in
deck order, and the layout elements of every page with their descriptions. ``fallbacks`` counts
the replies that were replaced by a defined fallback while it was built (by kind), ``usage`` the
model usage of the build, ``trace`` its agent calls, so that a build is as inspectable as a
question.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from docqa.core.prediction import Usage
from docqa.core.records import Record
from docqa.methods.base import Member
from docqa.methods.slideagent.layout import LayoutElement

#: the file format; a file of another version is refused with the fix
VERSION = 1


@dataclass(frozen=True)
class DescribedElement(Record):
    """A layout element with the element agent's description of it."""

    page: int
    order: int
    kind: str
    bbox: tuple[float, float, float, float]
    text: str
    description: str

    @staticmethod
    def of(element: LayoutElement, description: str) -> DescribedElement:
        return DescribedElement(
            element.page, element.order, element.kind, element.bbox, element.text, description
        )


@dataclass
class Knowledge:
    doc_id: str
    model: str
    global_knowledge: str
    pages: list[str]
    elements: list[DescribedElement]
    fallbacks: dict[str, int] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    trace: list[dict[str, Any]] = field(default_factory=list)
    #: each page's own document's global knowledge, for a set's joined knowledge (not stored);
    #: empty: ``global_knowledge`` for every page
    page_global: list[str] = field(default_factory=list)

    def global_of(self, page: int) -> str:
        """The global knowledge that page ``page`` belongs to."""
        return self.page_global[page] if self.page_global else self.global_knowledge

    def page_elements(self, pages: list[int]) -> list[DescribedElement]:
        wanted = set(pages)
        return [element for element in self.elements if element.page in wanted]

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "doc_id": self.doc_id,
            "model": self.model,
            "global_knowledge": self.global_knowledge,
            "pages": self.pages,
            "elements": [element.to_dict() for element in self.elements],
            "fallbacks": self.fallbacks,
            "usage": self.usage.to_dict(),
            "trace": self.trace,
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Knowledge:
        if data.get("version") != VERSION:
            raise ValueError(
                f"knowledge of {data.get('doc_id')!r} has version {data.get('version')!r}, not "
                f"{VERSION}: delete it and rerun the build_knowledge rule"
            )
        return Knowledge(
            doc_id=data["doc_id"],
            model=data["model"],
            global_knowledge=data["global_knowledge"],
            pages=list(data["pages"]),
            elements=[
                DescribedElement.from_dict({**row, "bbox": tuple(row["bbox"])})
                for row in data["elements"]
            ],
            fallbacks=dict(data["fallbacks"]),
            usage=Usage.from_dict(data["usage"]),
            trace=list(data["trace"]),
        )


def knowledge_file(folder: str | Path, doc_id: str) -> Path:
    return Path(folder) / f"{doc_id}.json"


def write_knowledge(folder: str | Path, knowledge: Knowledge) -> Path:
    """Write one document's knowledge atomically (a killed job never leaves half a file)."""
    path = knowledge_file(folder, knowledge.doc_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(knowledge.to_dict(), ensure_ascii=False) + "\n", "utf-8")
    os.replace(partial, path)
    return path


def read_knowledge(folder: str | Path, doc_id: str) -> Knowledge:
    path = knowledge_file(folder, doc_id)
    if not path.exists():
        raise FileNotFoundError(
            f"{path}: no knowledge base for document {doc_id!r}; its build failed (see "
            f"{Path(folder) / 'failures.jsonl'}) or the folder is from another run: rerun the "
            "build_knowledge rule"
        )
    return Knowledge.from_dict(json.loads(path.read_text("utf-8")))


def join_knowledge(parts: list[tuple[Member, Knowledge]]) -> Knowledge:
    """The knowledge of a set of documents (a question over several): each member's global
    knowledge headed by its label and id, page knowledge end to end, elements on the set's
    page numbers; built from each document's own knowledge base, nothing rebuilt."""
    for member, knowledge in parts:
        if len(knowledge.pages) != member.pages:
            raise ValueError(
                f"knowledge of {knowledge.doc_id} has {len(knowledge.pages)} pages, the document "
                f"{member.pages}: rerun the build_knowledge rule"
            )
    usage = Usage()
    fallbacks: Counter[str] = Counter()
    for _, knowledge in parts:
        usage.add(knowledge.usage)
        fallbacks.update(knowledge.fallbacks)
    return Knowledge(
        doc_id="+".join(knowledge.doc_id for _, knowledge in parts),
        model=", ".join(dict.fromkeys(knowledge.model for _, knowledge in parts)),
        global_knowledge="\n".join(
            f"{member.label} ({knowledge.doc_id}): {knowledge.global_knowledge}"
            for member, knowledge in parts
        ),
        pages=[text for _, knowledge in parts for text in knowledge.pages],
        elements=[
            replace(element, page=member.start + element.page)
            for member, knowledge in parts
            for element in knowledge.elements
        ],
        fallbacks=dict(fallbacks),
        usage=usage,
        page_global=[knowledge.global_knowledge for _, knowledge in parts for _ in knowledge.pages],
    )
