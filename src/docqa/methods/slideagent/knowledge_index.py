"""SlideAgent's knowledge as retrievable text: one text per page (the deck's global knowledge,
the page's knowledge and the descriptions of its elements), indexed by any configured text
retriever, so that pages rank by what the knowledge agents wrote about them as well as by their
OCR text or image (the paper's retrieval setting: its SFR-Embedding result improves with the
knowledge).

The index is built on first use per document, in a folder of its own under ``folder`` named by
the retriever entry and the knowledge text, so a rerun with the same knowledge reuses it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from docqa.core.document import Page
from docqa.methods.slideagent.knowledge import Knowledge
from docqa.retrievers import IndexedPage, PageSearcher, create_retriever


def page_texts(knowledge: Knowledge) -> list[str]:
    """Each page's retrievable knowledge: its document's global knowledge, page knowledge,
    element descriptions (with their OCR text), in that order."""
    texts = []
    for index, page_knowledge in enumerate(knowledge.pages):
        described = [
            f"{element.kind}: {element.description} {element.text}".strip()
            for element in knowledge.elements
            if element.page == index
        ]
        own_global = knowledge.global_of(index)
        texts.append("\n".join([own_global, page_knowledge, *described]).strip())
    return texts


def knowledge_searcher(
    entry: dict[str, Any], knowledge: Knowledge, pages: list[Page], folder: Path
) -> PageSearcher:
    """A searcher over ``knowledge``'s page texts with the retriever of config ``entry``."""
    texts = page_texts(knowledge)
    if len(texts) != len(pages):
        raise ValueError(
            f"knowledge of {knowledge.doc_id} has {len(texts)} pages, the document "
            f"{len(pages)}: rerun the build_knowledge rule"
        )
    key = json.dumps([entry, texts], sort_keys=True, ensure_ascii=False)
    index_dir = folder / knowledge.doc_id / hashlib.sha256(key.encode()).hexdigest()[:16]
    retriever = create_retriever(entry)
    if not (index_dir / "pages.json").exists():
        indexed = [
            IndexedPage(text, Path(page.image)) for text, page in zip(texts, pages, strict=True)
        ]
        retriever.build(indexed, index_dir)
    return retriever.load(index_dir)
