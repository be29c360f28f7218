"""What SlideAgent's question-time agents receive: the classifier, the sub-query writer, the
three level readers and the synthesizer.

Text-only models read every page image as its OCR text (an image part carries it). With
``single_image`` the page reader gets the retrieved pages as one grid image (the seed's protocol
for single-image models), whose OCR text is the pages' texts in order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from docqa.backends.request import ChatRequest, Generation, Message, Part, file_sha256
from docqa.core.document import Page
from docqa.imaging.page_grid import grid_image
from docqa.methods.mdocagent.requests import NO_OCR_TEXT, page_image
from docqa.methods.slideagent import prompts
from docqa.methods.slideagent.build import thousandths
from docqa.methods.slideagent.knowledge import DescribedElement

LEVEL_NAMES = {"global": "Deck level", "page": "Page level", "element": "Element level"}


def classify(question: str, generation: Generation) -> ChatRequest:
    return ChatRequest.prompt(
        f"{prompts.CLASSIFY}Question: {question}\n{prompts.CLASSIFY_OPEN}", generation
    )


def subqueries(question: str, count: int, generation: Generation) -> ChatRequest:
    return ChatRequest.prompt(
        f"{prompts.SUBQUERIES.format(count=count)}Question: {question}\n{prompts.SUBQUERIES_OPEN}",
        generation,
    )


def read_global(question: str, knowledge: str, generation: Generation) -> ChatRequest:
    return ChatRequest.prompt(
        f"{prompts.READ_GLOBAL}Global knowledge: {knowledge}\n"
        f"Question: {question}\n{prompts.ANSWER_OPEN}",
        generation,
    )


def read_pages(
    question: str,
    pages: Sequence[Page],
    labels: Sequence[str],
    texts: Sequence[str],
    knowledge: Sequence[str],
    grid: Path | None,
    generation: Generation,
) -> ChatRequest:
    """``labels`` (how the pages are named: ``3``, ``D2:3``), ``texts`` and ``knowledge`` (the
    pages' OCR texts and page knowledge) are in the order of ``pages``; with ``grid`` the pages
    are shown as that one image."""
    parts: list[Part] = [Part.of_text(prompts.READ_PAGES)]
    for label, text in zip(labels, knowledge, strict=True):
        parts.append(Part.of_text(f"Page {label} knowledge: {text}\n"))
    if grid is not None:
        shown = "\n".join(
            f"[page {label}]\n{text}"
            for label, text in zip(labels, texts, strict=True)
            if text.strip()
        )
        parts.append(Part.of_image(str(grid), shown or NO_OCR_TEXT))
    else:
        for page, label, text in zip(pages, labels, texts, strict=True):
            parts += [Part.of_text(f"Page {label}:\n"), page_image(page.image, text)]
    parts.append(Part.of_text(f"\nQuestion: {question}\n{prompts.ANSWER_OPEN}"))
    return ChatRequest((Message("user", tuple(parts)),), generation)


def read_elements(
    question: str,
    elements: Sequence[DescribedElement],
    pages: Sequence[Page],
    labels: Sequence[str],
    generation: Generation,
) -> ChatRequest:
    """``pages`` and ``labels`` are the environment's pages and their labels, by page number."""
    listed = "".join(
        f"- {element.kind}, page {labels[element.page]}, box "
        f"{list(thousandths(element.bbox, pages[element.page].width, pages[element.page].height))}"
        f": {element.description}"
        + (f" | text: {' '.join(element.text.split())}" if element.text.strip() else "")
        + "\n"
        for element in elements
    )
    listed = listed or "(no elements)\n"
    return ChatRequest.prompt(
        f"{prompts.READ_ELEMENTS}Elements:\n{listed}Question: {question}\n{prompts.ANSWER_OPEN}",
        generation,
    )


def synthesize(
    question: str,
    answers: Sequence[tuple[str, str]],
    generation: Generation,
    not_answerable: bool = True,
) -> ChatRequest:
    """``answers`` are (level, answer) in level order; ``not_answerable`` offers the
    "Not answerable" answer."""
    listed = "".join(f"{LEVEL_NAMES[level]}: {answer}\n" for level, answer in answers)
    instruction = prompts.SYNTHESIZE if not_answerable else prompts.SYNTHESIZE_ALWAYS
    return ChatRequest.prompt(
        f"{instruction}Question: {question}\n{listed}Final {prompts.ANSWER_OPEN}",
        generation,
    )


def page_grid(pages: Sequence[Page], folder: Path) -> Path:
    """The pages as one grid image in ``folder``, named by document and pages and by the
    content of their images: document ids repeat across datasets and render settings, and a
    grid named by them alone would be another dataset's pages; a rerun writes the same file."""
    documents = list(dict.fromkeys(page.doc_id for page in pages))
    if len(documents) == 1:
        numbers = "-".join(str(page.index + 1) for page in pages)
    else:  # pages of several documents: each named by its document
        numbers = "-".join(f"{page.doc_id}.{page.index + 1}" for page in pages)
    content = hashlib.sha256("".join(file_sha256(page.image) for page in pages).encode())
    path = folder / f"{'+'.join(documents)}-p{numbers}-{content.hexdigest()[:12]}.png"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial.png")
        grid_image([page.image for page in pages]).save(partial)
        partial.replace(path)
    return path
