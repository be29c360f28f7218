"""Building one document's knowledge base with three agents (SlideAgent's offline stage).

1. Global agent: the first ``global_pages`` pages (images, with their OCR text for text-only
   models) → a draft global knowledge.
2. Page agent, in deck order: page i's image, the global draft and page i-1's knowledge → page
   i's knowledge (``K_p^i = M_p(v_i, K_g, K_p^{i-1})``, ``K_p^0`` empty).
3. Element agent, one call per page: the page image and its layout elements (kind, box, OCR
   text; :mod:`.layout`) → one description per element. The element agent sees the global
   draft, not the page knowledge, so its calls run beside the page chain (a GPU backend batches
   them) instead of after it.
4. Refinement: the global agent rewrites the draft from the draft and every page knowledge.

Every reply that needs a fallback is counted (see :mod:`.parsing`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.methods.base import DocumentEnv
from docqa.methods.mdocagent.requests import page_image
from docqa.methods.page_passages import PageTexts
from docqa.methods.slideagent import prompts
from docqa.methods.slideagent.calls import CallLog, image_labels
from docqa.methods.slideagent.knowledge import DescribedElement, Knowledge
from docqa.methods.slideagent.layout import LayoutElement, layout_elements
from docqa.methods.slideagent.parsing import parse_descriptions


@dataclass(frozen=True)
class KnowledgeSettings:
    """The knowledge build's options (the ``knowledge`` section of the config)."""

    global_pages: int = 3
    max_chars_per_page: int = 1500
    knowledge_tokens: int = 128
    element_tokens: int = 192
    max_elements_per_page: int = 12
    refine_global: bool = True

    def __post_init__(self) -> None:
        if self.global_pages < 1 or self.max_elements_per_page < 1:
            raise ValueError(
                "knowledge: global_pages and max_elements_per_page must be at least 1, got "
                f"{self.global_pages} and {self.max_elements_per_page}"
            )


async def build_knowledge(
    env: DocumentEnv, client: ModelClient, model: str, settings: KnowledgeSettings
) -> Knowledge:
    """The knowledge base of one document, built with ``client`` (named ``model``)."""
    log = CallLog(image_labels(env))
    draft = await _global_draft(env, client, settings, log)
    layouts = [
        layout_elements(page.index, page.image, env.elements)[: settings.max_elements_per_page]
        for page in env.pages
    ]
    page_knowledge, described = await asyncio.gather(
        _page_chain(env, client, draft, settings, log),
        asyncio.gather(
            *(
                _describe_elements(env, page, layout, draft, client, settings, log)
                for page, layout in enumerate(layouts)
            )
        ),
    )
    final = draft
    if settings.refine_global:
        final = await _refine(draft, page_knowledge, client, settings, log)
    return Knowledge(
        env.document.doc_id,
        model,
        final,
        page_knowledge,
        [element for page in described for element in page],
        dict(log.fallbacks),
        log.usage,
        log.trace,
    )


async def _global_draft(
    env: DocumentEnv, client: ModelClient, settings: KnowledgeSettings, log: CallLog
) -> str:
    first = list(range(min(settings.global_pages, len(env.pages))))
    read = _reader(settings)
    request = ChatRequest(
        (
            Message(
                "user",
                (
                    Part.of_text(prompts.GLOBAL),
                    *(_page(env, page, read) for page in first),
                    Part.of_text(prompts.GLOBAL_OPEN),
                ),
            ),
        ),
        Generation(max_new_tokens=settings.knowledge_tokens, stop=prompts.END_OF_BLOCK),
    )
    reply, step = await log.call("global", client, request, first, **read.trace())
    if reply.strip():
        return reply.strip()
    log.fallback(step, ("empty_global",))
    return _ocr_head(env, first, settings)


async def _page_chain(
    env: DocumentEnv,
    client: ModelClient,
    global_knowledge: str,
    settings: KnowledgeSettings,
    log: CallLog,
) -> list[str]:
    knowledge: list[str] = []
    for page in range(len(env.pages)):
        previous = knowledge[-1] if knowledge else "(none: this is the first page)"
        read = _reader(settings)
        request = ChatRequest(
            (
                Message(
                    "user",
                    (
                        Part.of_text(
                            f"{prompts.PAGE}Global knowledge: {global_knowledge}\n"
                            f"Previous page knowledge: {previous}\n"
                            f"Page {page + 1} of {len(env.pages)}:\n"
                        ),
                        _page(env, page, read),
                        Part.of_text(prompts.PAGE_OPEN),
                    ),
                ),
            ),
            Generation(max_new_tokens=settings.knowledge_tokens, stop=prompts.END_OF_BLOCK),
        )
        reply, step = await log.call("page", client, request, [page], **read.trace())
        if not reply.strip():
            log.fallback(step, ("empty_page",))
        knowledge.append(reply.strip() or _ocr_head(env, [page], settings))
    return knowledge


async def _describe_elements(
    env: DocumentEnv,
    page: int,
    layout: list[LayoutElement],
    global_knowledge: str,
    client: ModelClient,
    settings: KnowledgeSettings,
    log: CallLog,
) -> list[DescribedElement]:
    if not layout:
        return []
    record = env.pages[page]
    listed = "".join(
        f"E{number} {element.kind} {list(thousandths(element.bbox, record.width, record.height))}"
        f": {element.text.replace(chr(10), ' ')[:200] or '(no text)'}\n"
        for number, element in enumerate(layout, start=1)
    )
    read = _reader(settings)
    request = ChatRequest(
        (
            Message(
                "user",
                (
                    Part.of_text(f"{prompts.ELEMENT}Global knowledge: {global_knowledge}\n"),
                    _page(env, page, read),
                    Part.of_text(f"Elements of page {page + 1}:\n{listed}{prompts.ELEMENT_OPEN}"),
                ),
            ),
        ),
        Generation(max_new_tokens=settings.element_tokens, stop=prompts.END_OF_BLOCK),
    )
    reply, step = await log.call(
        "element", client, request, [page], elements=len(layout), **read.trace()
    )
    found = parse_descriptions(reply, len(layout))
    copied = [number for number, text in found.items() if text in prompts.ELEMENT_EXAMPLES]
    for number in copied:
        del found[number]
    missing = len(layout) - len(found) - len(copied)
    log.fallback(step, ("element_description_missing",) * missing)
    log.fallback(step, ("element_description_copied",) * len(copied))
    return [
        DescribedElement.of(element, found.get(number) or _plain_description(element))
        for number, element in enumerate(layout, start=1)
    ]


async def _refine(
    draft: str,
    pages: list[str],
    client: ModelClient,
    settings: KnowledgeSettings,
    log: CallLog,
) -> str:
    listed = "".join(f"Page {number}: {text}\n" for number, text in enumerate(pages, start=1))
    request = ChatRequest.prompt(
        f"{prompts.REFINE}Draft: {draft}\n{listed}{prompts.GLOBAL_OPEN}",
        Generation(max_new_tokens=settings.knowledge_tokens, stop=prompts.END_OF_BLOCK),
    )
    reply, step = await log.call("refine", client, request, [])
    if reply.strip():
        return reply.strip()
    log.fallback(step, ("empty_refine",))
    return draft


def thousandths(
    bbox: tuple[float, float, float, float], width: int, height: int
) -> tuple[int, int, int, int]:
    """A box in page pixels as thousandths of the page's width and height."""
    x0, y0, x1, y1 = bbox
    return (
        round(x0 * 1000 / width),
        round(y0 * 1000 / height),
        round(x1 * 1000 / width),
        round(y1 * 1000 / height),
    )


def _reader(settings: KnowledgeSettings) -> PageTexts:
    """The page texts of one knowledge call: the build knows no question, so a page longer
    than ``max_chars_per_page`` is read from its start (its step's ``text_cut`` says so)."""
    return PageTexts("", settings.max_chars_per_page)


def _page(env: DocumentEnv, page: int, read: PageTexts) -> Part:
    return page_image(env.pages[page].image, read.read(page, env.page_texts[page]))


def _ocr_head(env: DocumentEnv, pages: list[int], settings: KnowledgeSettings) -> str:
    text = " ".join(" ".join(env.page_texts[page].split()) for page in pages)
    return text[: settings.max_chars_per_page // 4] or "(no text was found)"


def _plain_description(element: LayoutElement) -> str:
    words = " ".join(element.text.split())
    return f"{element.kind}: {words[:120]}" if words else element.kind
