"""Analyze: check that a candidate answer is grounded in the evidence and that the search
covered enough of the document; the verdict goes back to the agent and into the state.

The analyzer is told what the search did (pages shown to the navigator, candidates, pages
read) so that it can judge coverage. A reply that says neither yes nor no to a question is a
``bad_reply``; its verdict is "unclear", which does not count as accepted.
"""

from __future__ import annotations

from docqa.core.prediction import Usage
from docqa.methods.docpilot import labels
from docqa.methods.docpilot.actions import BAD_REPLY
from docqa.methods.docpilot.context import Context, Observation, ask
from docqa.methods.docpilot.parsing import parse_verdict
from docqa.methods.docpilot.prompts import ANALYZER, ANALYZER_STOP, evidence_block, for_pages
from docqa.methods.docpilot.state import Verdict


def search_summary(ctx: Context) -> str:
    state, env = ctx.state, ctx.env
    return (
        f"Search: {len(state.offered)} of {state.num_pages} pages shown to the navigator; "
        f"candidates: {labels.listing(env, state.candidates)}; "
        f"read: {labels.listing(env, state.read)}.\n"
    )


async def analyze(ctx: Context, arguments: dict) -> Observation:
    candidate = arguments["answer"]
    lines = [
        item.line(number, ctx.env.page_label)
        for number, item in enumerate(ctx.state.evidence, start=1)
    ]
    prompt = (
        f"{for_pages(ANALYZER, ctx.env)}Question: {ctx.question.question.strip()}\n"
        f"Candidate answer: {candidate}\n{evidence_block(lines)}{search_summary(ctx)}Grounded:"
    )
    usage = Usage()
    reply = await ask(
        ctx.client, [prompt], ctx.settings.role_tokens["analyze"], ANALYZER_STOP, usage
    )
    grounded, sufficient, advice = parse_verdict(reply)
    verdict = Verdict(candidate, grounded, sufficient, advice)
    ctx.state.record_verdict(verdict)
    fallbacks = [BAD_REPLY] if grounded is None or sufficient is None else []
    return Observation(
        verdict.describe(),
        usage=usage,
        fallbacks=fallbacks,
        details={"verdict": {"grounded": grounded, "sufficient": sufficient}},
    )
