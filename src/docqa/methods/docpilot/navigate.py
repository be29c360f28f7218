"""Navigate: show the navigator the next window of pages and let it pick candidates.

A round offers the next overview grid that still holds a page not shown before (or, for
pages no grid covers, the next ``window_pages`` of them as thumbnails), plus — when a
retriever is configured — thumbnails of the retriever's best pages for the query that were not
shown yet. Decided here: rounds walk the document in order, so that repeated Navigate calls
cover it all; the retriever hint is off by default because the paper's environment has none.

The navigator may pick any page shown in this round or picked before; other picks are dropped
and counted (outside the document: ``page_out_of_range``; not shown: ``bad_reply``). A text-only
model reads each grid or thumbnail as its OCR text: one line per page, ``p. N: <first words>``.
"""

from __future__ import annotations

from docqa.backends.request import Part
from docqa.core.prediction import Usage
from docqa.methods.docpilot.actions import BAD_REPLY, PAGE_OUT_OF_RANGE
from docqa.methods.docpilot.context import Context, Observation, ask, page_list, snippet
from docqa.methods.docpilot.parsing import parse_navigation
from docqa.methods.docpilot.prompts import NAVIGATOR, NAVIGATOR_STOP


def next_window(ctx: Context) -> tuple[list[int], str | None]:
    """The pages of the next round and the overview image that shows them (None: thumbnails)."""
    state, num_pages = ctx.state, ctx.state.num_pages
    shown = set(state.offered)
    for overview in ctx.env.overviews:
        pages = [page for page in overview["pages"] if 0 <= page < num_pages]
        if any(page not in shown for page in pages):
            return pages, overview["image"]
    return state.unoffered()[: ctx.settings.window_pages], None


def hint_pages(ctx: Context, query: str, window: list[int]) -> list[int]:
    """The retriever's best pages for the query that were not shown yet and are not in the
    window (none without a retriever)."""
    if ctx.settings.retriever is None:
        return []
    shown = set(ctx.state.offered) | set(window)
    ranked = ctx.env.searcher(ctx.settings.retriever).search(query, ctx.state.num_pages)
    return [page for page in ranked if page not in shown][: ctx.settings.hint_pages]


async def navigate(ctx: Context, arguments: dict) -> Observation:
    query = arguments.get("query") or ctx.question.question
    window, overview = next_window(ctx)
    hints = hint_pages(ctx, query, window)
    state = ctx.state
    parts: list[Part | str] = [
        NAVIGATOR,
        f"Question: {ctx.question.question.strip()}\nLooking for: {query}\n",
    ]
    if state.candidates:
        parts.append(f"Candidates so far: {page_list(state.candidates)}\n")
    if overview is not None:
        parts.append(Part.of_image(overview, _listing(ctx, window)))
    else:
        parts += [_thumbnail(ctx, page) for page in window]
    if hints:
        parts.append("Search results for the query:\n")
        parts += [_thumbnail(ctx, page) for page in hints]
    parts.append("Pages:")
    thumbnails = hints if overview is not None else window + hints
    images = [overview] if overview is not None else []
    images += [_thumbnail_path(ctx, page) for page in thumbnails]

    usage = Usage()
    reply = await ask(
        ctx.client, parts, ctx.settings.role_tokens["navigate"], NAVIGATOR_STOP, usage
    )
    offered = window + hints
    state.offer(offered)
    picked, more = parse_navigation(reply)
    fallbacks, notes = [], []
    if picked is None:
        fallbacks.append(BAD_REPLY)
        notes.append("the navigator named no page")
        picked = []
    allowed = set(offered) | set(state.candidates)
    outside = [page for page in picked if not 1 <= page <= state.num_pages]
    not_shown = [page for page in picked if page not in outside and page - 1 not in allowed]
    if outside:
        fallbacks.append(PAGE_OUT_OF_RANGE)
        notes.append(f"ignored pages outside the document: {', '.join(map(str, outside))}")
    if not_shown:
        fallbacks.append(BAD_REPLY)
        notes.append(f"ignored pages not shown: {', '.join(map(str, not_shown))}")
    chosen = [page - 1 for page in picked if page - 1 in allowed]
    new = [page for page in chosen if page not in state.candidates]
    state.add_round(chosen)

    text = f"candidate pages: {page_list(state.candidates)}"
    text += f" (new: {page_list(new)})" if new else " (no new page)"
    text += f"; shown to the navigator: {len(state.offered)} of {state.num_pages} pages"
    if more and state.unoffered():
        text += "; the navigator asks to see more pages"
    if notes:
        text += "; " + "; ".join(notes)
    return Observation(
        text,
        pages=offered,
        images=images,
        usage=usage,
        fallbacks=fallbacks,
        details={"round": len(state.rounds), "picked": [page + 1 for page in chosen]},
    )


def _listing(ctx: Context, pages: list[int]) -> str:
    return "\n".join(
        f"p. {page + 1}: {snippet(ctx.env.page_texts[page], ctx.settings.snippet_chars)}"
        for page in pages
    )


def _thumbnail_path(ctx: Context, page: int) -> str:
    record = ctx.env.pages[page]
    return record.thumbnail or record.image


def _thumbnail(ctx: Context, page: int) -> Part:
    return Part.of_image(_thumbnail_path(ctx, page), _listing(ctx, [page]))
