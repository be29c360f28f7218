"""Navigate: show the navigator the next window of pages and let it pick candidates.

A round offers the next overview grid that still holds a page not shown before (or, for
pages no grid covers, the next ``window_pages`` of them as thumbnails), plus — when a
retriever is configured — thumbnails of the retriever's best pages for the query that were not
shown yet. Decided here: rounds walk the document in order, so that repeated Navigate calls
cover it all; the retriever hint is off by default because the paper's environment has none.

The navigator may pick any page shown in this round or picked before; other picks are dropped
and counted (outside the document: ``page_out_of_range``; not shown: ``bad_reply``). A text-only
model reads each grid or thumbnail as its OCR text: one line per page, ``p. N: <first words>``.

Over a set of documents the rounds walk the documents' overviews in order (each grid holds one
document's pages, numbered on the image as in that document), every page is named by its label
(``p. D2:3: …``) and the navigator picks labels (``Pages: D2:3``). A grid is headed by its
document's label and id; a reply with bare numbers to a round that showed one document's pages
only is read as that document's pages (the numbers drawn on its grid).
"""

from __future__ import annotations

from docqa.backends.request import Part
from docqa.core.prediction import Usage
from docqa.methods.docpilot import labels
from docqa.methods.docpilot.actions import BAD_REPLY, PAGE_OUT_OF_RANGE
from docqa.methods.docpilot.context import Context, Observation, ask, snippet
from docqa.methods.docpilot.parsing import navigation_reply
from docqa.methods.docpilot.prompts import NAVIGATOR, NAVIGATOR_STOP, for_pages


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
    state, env = ctx.state, ctx.env
    parts: list[Part | str] = [
        for_pages(NAVIGATOR, env),
        f"Question: {ctx.question.question.strip()}\nLooking for: {query}\n",
    ]
    if state.candidates:
        parts.append(f"Candidates so far: {labels.listing(env, state.candidates)}\n")
    if overview is not None:
        parts += _overview_heading(ctx, window)
        parts.append(Part.of_image(overview, _listing(ctx, window)))
    else:
        parts += [part for page in window for part in _thumbnail(ctx, page)]
    if hints:
        parts.append("Search results for the query:\n")
        parts += [part for page in hints for part in _thumbnail(ctx, page)]
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
    line, more = navigation_reply(reply)
    # bare numbers name a set's pages only as the numbers drawn on one document's grid
    within = labels.member_of(env, offered) if overview is not None else None
    picked, outside = labels.picks(env, line, within) if line is not None else ([], [])
    fallbacks, notes = [], []
    if line is not None and not picked and not outside:
        fallbacks.append(BAD_REPLY)
        notes.append("the navigator named no page")
    allowed = set(offered) | set(state.candidates)
    not_shown = [page for page in picked if page not in allowed]
    if outside:
        fallbacks.append(PAGE_OUT_OF_RANGE)
        where = "documents" if env.is_set else "document"
        notes.append(f"ignored pages outside the {where}: {', '.join(outside)}")
    if not_shown:
        fallbacks.append(BAD_REPLY)
        notes.append(f"ignored pages not shown: {labels.listing(env, not_shown)}")
    chosen = [page for page in picked if page in allowed]
    new = [page for page in chosen if page not in state.candidates]
    state.add_round(chosen)

    text = f"candidate pages: {labels.listing(env, state.candidates)}"
    text += f" (new: {labels.listing(env, new)})" if new else " (no new page)"
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
        details={
            "round": len(state.rounds),
            "picked": [labels.value(env, page) for page in chosen],
        },
    )


def _overview_heading(ctx: Context, pages: list[int]) -> list[Part | str]:
    """Over a set: which document an overview grid shows (its pages are numbered on the image
    as in that document); nothing for one document."""
    if not ctx.env.is_set:
        return []
    member = ctx.env.member(pages[0])
    return [
        f"Overview of {member.label} ({member.document.doc_id}), its pages numbered as in that "
        f"document ({member.label}:1 is its page 1):\n"
    ]


def _listing(ctx: Context, pages: list[int]) -> str:
    return "\n".join(
        f"p. {ctx.env.page_label(page)}: "
        f"{snippet(ctx.env.page_texts[page], ctx.settings.snippet_chars)}"
        for page in pages
    )


def _thumbnail_path(ctx: Context, page: int) -> str:
    record = ctx.env.pages[page]
    return record.thumbnail or record.image


def _thumbnail(ctx: Context, page: int) -> list[Part | str]:
    """A page's thumbnail (its OCR listing line for a text-only model); over a set, a model
    that sees images is told its label first, since nothing on the image names it."""
    heading: list[Part | str] = (
        [f"p. {ctx.env.page_label(page)}:\n"] if ctx.env.is_set and ctx.reads_images else []
    )
    return [*heading, Part.of_image(_thumbnail_path(ctx, page), _listing(ctx, [page]))]
