"""Analyze: check that a candidate answer is grounded in the evidence and that the search
covered enough of the document; the verdict goes back to the agent and into the state.

The analyzer is told what the search did (pages shown to the navigator, candidates, pages
read) so that it can judge coverage. A reply that says neither yes nor no to a question is a
``bad_reply``; its verdict is "unclear", which does not count as accepted.
"""

from __future__ import annotations

from docqa.core.prediction import Usage
from docqa.methods.docpilot.actions import BAD_REPLY
from docqa.methods.docpilot.context import Context, Observation, ask, page_list
from docqa.methods.docpilot.parsing import parse_verdict
from docqa.methods.docpilot.prompts import ANALYZER, ANALYZER_STOP, evidence_block
from docqa.methods.docpilot.state import Verdict


def search_summary(ctx: Context) -> str:
    state = ctx.state
    return (
        f"Search: {len(state.offered)} of {state.num_pages} pages shown to the navigator; "
        f"candidates: {page_list(state.candidates)}; read: {page_list(state.read)}.\n"
    )


async def analyze(ctx: Context, arguments: dict) -> Observation:
    candidate = arguments["answer"]
    lines = [item.line(number) for number, item in enumerate(ctx.state.evidence, start=1)]
    prompt = (
        f"{ANALYZER}Question: {ctx.question.question.strip()}\nCandidate answer: {candidate}\n"
        f"{evidence_block(lines)}{search_summary(ctx)}Grounded:"
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
