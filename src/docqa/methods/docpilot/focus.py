"""Focus: local visual inspection of one candidate page.

Two model calls: the focus planner sees the page (a text-only model: its OCR lines with their
boxes, in thousandths of the page) and plans crops, zooms and subfigure splits; the regions are
rendered at a higher dpi (see ``crops``); then a reader collects facts from the crops. With a
text-only backbone each crop is OCRed again at its own dpi, and the reader reads that text:
small print and chart labels that the page-level OCR missed or garbled come out here.

The page the planner sees and the crops the reader sees go under ``focus_max_pixels`` each
(the paper's high resolution); the planner reads the page's OCR lines with their boxes, all
of them unless ``focus_lines`` cuts them (the trace step records ``lines_cut``).

Decided here: a plan with no usable operation is replaced by one zoom on the whole page
(counted as ``bad_reply``); a plan's regions beyond ``max_focus_crops`` are dropped; crops are
written to ``crops_dir/<doc_id>-<hash of its path>/`` under names made of the page, box and
dpi, so that a rerun writes the same files and the response cache recognises them. Over a set
of documents a crop comes from the page's own document and page (``DocumentEnv.source``), and
goes to that document's folder.
"""

from __future__ import annotations

from pathlib import Path

import pytesseract

from docqa.backends.request import Part
from docqa.core.prediction import Usage
from docqa.methods.docpilot.actions import BAD_REPLY
from docqa.methods.docpilot.context import Context, Observation, ask
from docqa.methods.docpilot.crops import (
    WHOLE_PAGE,
    Region,
    crops_folder,
    plan_regions,
    render_region,
)
from docqa.methods.docpilot.elements import page_lines, with_boxes
from docqa.methods.docpilot.extract import facts_as_evidence, record_facts
from docqa.methods.docpilot.parsing import first_json
from docqa.methods.docpilot.prompts import (
    FACTS_STOP,
    FOCUS_PLANNER,
    FOCUS_READER,
    FOCUS_STOP,
    for_pages,
)
from docqa.methods.docpilot.tools import run_tool
from docqa.text.ocr import ocr_page

NO_TEXT = "(no text was found here)"


async def focus(ctx: Context, arguments: dict) -> Observation:
    page = arguments["page"]
    goal = arguments.get("goal") or ctx.question.question
    usage = Usage()
    regions, plan_reply, fallbacks, lines_cut = await _plan(ctx, page, goal, usage)
    crops = await _render(ctx, page, regions)
    name = ctx.env.page_label(page)
    parts: list[Part | str] = [for_pages(FOCUS_READER, ctx.env)]
    for number, (region, crop) in enumerate(zip(regions, crops, strict=True), start=1):
        parts += [
            f"### Crop {number} of page {name} ({region.operation})\n",
            Part.of_image(crop["image"], "" if ctx.reads_images else crop["ocr_text"] or NO_TEXT),
        ]
    parts.append(f"Question: {ctx.question.question.strip()}\nGoal: {goal}\nFacts:")
    tokens, max_pixels = ctx.settings.role_tokens["focus_read"], ctx.settings.focus_max_pixels
    reply = await ask(ctx.client, parts, tokens, FACTS_STOP, usage, max_pixels)

    ctx.state.mark_read([page])
    items = facts_as_evidence(ctx, reply, [page], "focus", _union(regions))
    observation = record_facts(ctx, items, [page])
    inspected = "; ".join(region.describe() for region in regions)
    observation.text = f"inspected p. {name}: {inspected}; {observation.text}"
    observation.usage = usage
    observation.images = [crop["image"] for crop in crops]
    observation.fallbacks = fallbacks
    observation.details = {"plan": plan_reply.strip(), "crops": crops, "max_pixels": max_pixels}
    if lines_cut:
        observation.details["lines_cut"] = lines_cut
    return observation


async def _plan(
    ctx: Context, page: int, goal: str, usage: Usage
) -> tuple[list[Region], str, list[str], int]:
    """The planner's regions (or the fallback: one zoom on the whole page), its reply, the
    failure kinds of its unusable operations, and the OCR lines ``focus_lines`` left out."""
    every = page_lines(ctx.env, page)
    limit = ctx.settings.focus_lines or len(every)
    lines = with_boxes(every, limit)
    image = Part.of_image(ctx.env.pages[page].image, lines or NO_TEXT)
    # the prompt promises the text lines with their boxes: a text-only model reads them as
    # the image's text, a VLM sees the image and gets them as text beside it
    shown: list[Part | str] = [image, f"{lines or NO_TEXT}\n"] if ctx.reads_images else [image]
    reply = await ask(
        ctx.client,
        [
            for_pages(FOCUS_PLANNER, ctx.env).format(max_ops=ctx.settings.max_focus_crops),
            f"Page {ctx.env.page_label(page)}, its text lines with their boxes:\n",
            *shown,
            f"Goal: {goal}\nOperations:",
        ],
        ctx.settings.role_tokens["focus_plan"],
        FOCUS_STOP,
        usage,
        ctx.settings.focus_max_pixels,
    )
    plan = first_json(reply, "[")
    regions, invalid = plan_regions(
        plan if plan is not None else first_json(reply, "{"),
        ctx.settings.focus_zoom,
        ctx.settings.max_focus_crops,
    )
    if not regions:
        regions = [Region(WHOLE_PAGE, ctx.settings.focus_zoom, "zoom")]
    return regions, reply, [BAD_REPLY] if invalid else [], max(len(every) - limit, 0)


async def _render(ctx: Context, page: int, regions: list[Region]) -> list[dict]:
    """Each region rendered from the page's own document, and (for a text-only model) OCRed
    at its own dpi."""
    record = ctx.env.pages[page]
    document, own_page = ctx.env.source(page)
    folder = crops_folder(ctx.settings.crops_dir, document)
    crops = []
    for region in regions:
        path, dpi, origin = await run_tool(
            render_region, Path(document.path), record, region, folder
        )
        text = (
            ""
            if ctx.reads_images
            else await run_tool(_crop_text, path, document.doc_id, own_page, dpi)
        )
        crops.append(
            {
                "image": str(path),
                "box": list(region.box),
                "operation": region.operation,
                "dpi": dpi,
                "from": origin,
                "ocr_text": text,
            }
        )
    return crops


def _crop_text(path: Path, doc_id: str, page: int, dpi: int) -> str:
    """The crop's text, OCRed at the crop's own dpi, lines in reading order ("" when tesseract
    cannot read it: the reader is then told that no text was found)."""
    try:
        elements = ocr_page(path, doc_id, page, dpi)
    except pytesseract.TesseractError:
        return ""
    return "\n".join(e.text for e in sorted(elements, key=lambda e: e.order) if e.kind == "line")


def _union(regions: list[Region]) -> tuple[int, int, int, int]:
    return (
        min(r.box[0] for r in regions),
        min(r.box[1] for r in regions),
        max(r.box[2] for r in regions),
        max(r.box[3] for r in regions),
    )
