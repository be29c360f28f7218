"""Solve: the solver writes Python over the evidence; the sandbox runs it.

The program reads the evidence as ``evidence`` (items ``{"id", "page", "source", "content"}``)
and leaves its answer in ``result``. Its result or error is the observation; a result also
becomes evidence (``computed``), so that Analyze and Answer can use it. A reply without code is
a ``bad_reply`` and runs nothing.
"""

from __future__ import annotations

import json

from docqa.core.prediction import Usage
from docqa.methods.docpilot.actions import BAD_REPLY
from docqa.methods.docpilot.context import Context, Observation, ask
from docqa.methods.docpilot.parsing import code_block
from docqa.methods.docpilot.prompts import SOLVER, SOLVER_STOP
from docqa.methods.docpilot.state import EvidenceItem
from docqa.methods.docpilot.tools import run_tool
from docqa.sandbox import run_python


async def solve(ctx: Context, arguments: dict) -> Observation:
    task = arguments["task"]
    inputs = [item.as_input(number) for number, item in enumerate(ctx.state.evidence, start=1)]
    prompt = SOLVER.format(task=task, evidence=json.dumps(inputs, ensure_ascii=False))
    usage = Usage()
    reply = await ask(ctx.client, [prompt], ctx.settings.role_tokens["solve"], SOLVER_STOP, usage)
    code = code_block(reply)
    if not code.strip():
        return Observation(
            "the solver wrote no code; nothing was run", usage=usage, fallbacks=[BAD_REPLY]
        )
    outcome = await run_tool(run_python, code, inputs, ctx.settings.solve_limits)
    text = outcome.describe()
    if outcome.ok:
        value = json.dumps(outcome.result, ensure_ascii=False)
        numbers = ctx.state.add_evidence([EvidenceItem(f"{task} = {value}", "solve", ctx.step)])
        if numbers:
            text += f"; new evidence: [{numbers[0]}]"
    return Observation(
        text,
        usage=usage,
        details={
            "code": code,
            "sandbox": {
                "kind": outcome.kind,
                "seconds": outcome.seconds,
                "blocked": list(outcome.blocked),
                "isolation": list(outcome.isolation),
            },
        },
    )
