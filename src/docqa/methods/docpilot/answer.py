"""Answer: the answer agent gives the final answer from the evidence and ends the loop.

It sees the evidence, the agent's proposed answer and the last Analyze verdict, and answers
concisely, or "Not answerable" when the evidence does not answer the question. An empty reply
is a ``bad_reply``: the agent's proposed answer is given instead.
"""

from __future__ import annotations

from docqa.core.prediction import Usage
from docqa.methods.docpilot.actions import BAD_REPLY
from docqa.methods.docpilot.context import Context, Observation, ask
from docqa.methods.docpilot.parsing import first_line
from docqa.methods.docpilot.prompts import ANSWER_STOP, ANSWERER, evidence_block, for_pages


async def answer(ctx: Context, arguments: dict) -> Observation:
    candidate = arguments["answer"]
    lines = [
        item.line(number, ctx.env.page_label)
        for number, item in enumerate(ctx.state.evidence, start=1)
    ]
    verdict = ctx.state.verdict
    check = f"Check: {verdict.describe()}\n" if verdict is not None else ""
    prompt = (
        f"{for_pages(ANSWERER, ctx.env)}Question: {ctx.question.question.strip()}\n"
        f"{evidence_block(lines)}Candidate answer: {candidate}\n{check}Answer:"
    )
    usage = Usage()
    reply = first_line(
        await ask(ctx.client, [prompt], ctx.settings.role_tokens["answer"], ANSWER_STOP, usage)
    )
    final, fallbacks = (reply, []) if reply else (candidate, [BAD_REPLY])
    return Observation(f"final answer: {final}", usage=usage, fallbacks=fallbacks, answer=final)
