"""Solve: the solver writes Python over the evidence; the sandbox runs it.

The program reads the evidence as ``evidence`` (items ``{"id", "page", "source", "content"}``)
and leaves its answer in ``result``. Its result or error is the observation; a result also
becomes evidence (``computed``), so that Analyze and Answer can use it. A reply without code is
a ``bad_reply`` and runs nothing. Where this machine cannot isolate the program (no
bubblewrap, no user namespaces), nothing runs: the observation and the trace say why.
"""

from __future__ import annotations

import json

from docqa.core.prediction import Usage
from docqa.methods.docpilot import labels
from docqa.methods.docpilot.actions import BAD_REPLY
from docqa.methods.docpilot.context import Context, Observation, ask
from docqa.methods.docpilot.parsing import code_block
from docqa.methods.docpilot.prompts import SOLVER, SOLVER_STOP, for_pages
from docqa.methods.docpilot.state import EvidenceItem
from docqa.methods.docpilot.tools import run_tool
from docqa.sandbox import SandboxUnavailable, machine, run_python


async def solve(ctx: Context, arguments: dict) -> Observation:
    here = machine.current()
    if not here.available:  # asking the solver would be wasted: nothing can run its code
        return _unavailable(SandboxUnavailable(here.reason), Usage(), None)
    task = arguments["task"]

    def page_value(page: int) -> int | str:
        return labels.value(ctx.env, page)

    inputs = [
        item.as_input(number, page_value) for number, item in enumerate(ctx.state.evidence, start=1)
    ]
    prompt = for_pages(SOLVER, ctx.env).format(
        task=task, evidence=json.dumps(inputs, ensure_ascii=False)
    )
    usage = Usage()
    reply = await ask(ctx.client, [prompt], ctx.settings.role_tokens["solve"], SOLVER_STOP, usage)
    code = code_block(reply)
    if not code.strip():
        return Observation(
            "the solver wrote no code; nothing was run", usage=usage, fallbacks=[BAD_REPLY]
        )
    try:
        outcome = await run_tool(run_python, code, inputs, ctx.settings.solve_limits)
    except SandboxUnavailable as error:
        return _unavailable(error, usage, code)
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
                "cpu_seconds": outcome.cpu_seconds,
                "replaced": outcome.replaced,
            },
        },
    )


def _unavailable(error: SandboxUnavailable, usage: Usage, code: str | None) -> Observation:
    """The observation, and the trace's record, of a Solve that this machine cannot run."""
    details: dict = {"sandbox": {"kind": "unavailable", "error": str(error)}}
    if code is not None:
        details["code"] = code
    return Observation(
        f"solve is unavailable on this machine; nothing was run: {error}",
        usage=usage,
        details=details,
    )
