"""Extract: read candidate pages (image and OCR text) and keep the facts they hold as evidence.

Each page goes at high resolution (its image under ``extract_max_pixels``, the paper's
"high-resolution screenshot") with all its OCR text, or under ``max_chars_per_page`` the
passages of it that bear on the goal (:mod:`docqa.methods.page_passages`); the trace step
records the pixel budget and the pages cut (``text_cut``, which the score stage counts). At
most ``max_pages_per_extract`` pages are read per call (the rest are named in the observation
so the agent can ask again). With a ``region`` (one page), the reader gets that
part of the page (cut at the page's own dpi: zooming is Focus's job) and the OCR lines whose
centre lies in it, and the facts keep the region's box. A fact is attributed to the page it
names (``p. 3``; ``p. D2:3`` in a set of documents); one that names no page, or a page that
was not read, is attributed to the single page read or, when several were, to none. A region
is cut from the page's own document (``DocumentEnv.source``).
"""

from __future__ import annotations

from pathlib import Path

from docqa.backends.request import Part
from docqa.core.prediction import Usage
from docqa.methods.docpilot import labels
from docqa.methods.docpilot.actions import BAD_REPLY
from docqa.methods.docpilot.context import Context, Observation, ask
from docqa.methods.docpilot.crops import Region, crops_folder, render_region
from docqa.methods.docpilot.elements import Box, page_lines
from docqa.methods.docpilot.parsing import fact_lines
from docqa.methods.docpilot.prompts import EXTRACTOR, FACTS_STOP, for_pages
from docqa.methods.docpilot.state import EvidenceItem
from docqa.methods.docpilot.tools import run_tool
from docqa.methods.page_passages import PageTexts

NO_TEXT = "(no text was found on this page)"


async def extract(ctx: Context, arguments: dict) -> Observation:
    limit = ctx.settings.max_pages_per_extract
    pages, left = arguments["pages"][:limit], arguments["pages"][limit:]
    goal = arguments.get("goal") or ctx.question.question
    region = arguments.get("region")
    budget = ctx.settings.max_chars_per_page
    texts = PageTexts(goal, budget) if budget else None
    shown = [await _view(ctx, page, region, texts) for page in pages]
    parts: list[Part | str] = [for_pages(EXTRACTOR, ctx.env)]
    for page, (image, text) in zip(pages, shown, strict=True):
        where = f" (region {list(region)})" if region else ""
        heading = f"### Page {ctx.env.page_label(page)}{where}\n"
        parts += [heading, Part.of_image(image, text or NO_TEXT)]
    parts.append(f"Question: {ctx.question.question.strip()}\nGoal: {goal}\nFacts:")
    usage = Usage()
    tokens, max_pixels = ctx.settings.role_tokens["extract"], ctx.settings.extract_max_pixels
    reply = await ask(ctx.client, parts, tokens, FACTS_STOP, usage, max_pixels)
    ctx.state.mark_read(pages)
    items = facts_as_evidence(ctx, reply, pages, "extract", region)
    observation = record_facts(ctx, items, pages)
    if left:
        observation.text += (
            f"; not read (at most {limit} pages per call): {labels.listing(ctx.env, left)}"
        )
    observation.usage = usage
    observation.images = [image for image, _ in shown]
    observation.details = {"max_pixels": max_pixels}
    if texts is not None:  # what the reader got only in part: the trace's text_cut
        observation.details |= texts.trace(read_as_text=not ctx.reads_images)
    if not items and not _says_none(reply):
        observation.fallbacks.append(BAD_REPLY)
    return observation


async def _view(
    ctx: Context, page: int, region: Box | None, texts: PageTexts | None
) -> tuple[str, str]:
    """(image, OCR text) of a page, or of a region of it; ``texts`` fits the text to
    ``max_chars_per_page`` and keeps the cut."""
    record = ctx.env.pages[page]
    if region is None:
        image, text = record.image, ctx.env.page_texts[page].strip()
    else:
        document, _ = ctx.env.source(page)
        folder = crops_folder(ctx.settings.crops_dir, document)
        crop = Region(region, 1.0, "crop")
        path, _, _ = await run_tool(render_region, Path(document.path), record, crop, folder)
        image = str(path)
        text = "\n".join(text for _, text in page_lines(ctx.env, page, region))
    return image, texts.read(page, text) if texts is not None else text


def facts_as_evidence(
    ctx: Context,
    reply: str,
    pages: list[int],
    source: str,
    box: Box | None = None,
) -> list[EvidenceItem]:
    """The facts of a reader's reply as evidence items from ``pages`` (positions)."""
    items = []
    for written, text in fact_lines(reply, ctx.settings.max_facts, 300, ctx.env.is_set):
        named = ctx.env.read_page_labels(written)[:1] if written is not None else []
        where = named[0] if named and named[0] in pages else None
        if where is None and len(pages) == 1:
            where = pages[0]
        items.append(EvidenceItem(text, source, ctx.step, where, box))
    return items


def record_facts(ctx: Context, items: list[EvidenceItem], pages: list[int]) -> Observation:
    """Add ``items`` to the evidence; the observation lists the new ones."""
    numbers = ctx.state.add_evidence(items)
    if numbers:
        lines = [
            ctx.state.evidence[number - 1].line(number, ctx.env.page_label) for number in numbers
        ]
        text = "new evidence: " + "; ".join(lines)
    elif items:
        text = (
            f"nothing new on p. {labels.listing(ctx.env, pages)} (the facts found are already "
            "in the evidence)"
        )
    else:
        text = f"no evidence found on p. {labels.listing(ctx.env, pages)}"
    return Observation(text, pages=list(pages))


def _says_none(reply: str) -> bool:
    return reply.strip().lower().startswith(("none", "nothing", "no "))
