"""DocPilot: a ReAct loop over a multimodal document environment (arXiv 2610.21327).

Each step the orchestrator (the run's model) reads the question, the steps so far, the
persistent evidence state and the actions available now, and replies with a thought, an action
and its JSON arguments. The environment checks the call (``actions``) and runs the action's
module, which may call the model again with its own prompt (navigator, extractor, focus
planner and reader, solver, analyzer, answer agent); the observation goes back into the
history. The loop ends at Answer; at the step limit — or when no action is available — the
answer is ``insufficient_answer`` and the summary says ``insufficient_evidence``.

Every refused call (an unreadable reply, an unknown or unavailable action, bad arguments, a
page outside the document, a repeated call) is answered with an observation that says what was
wrong and counted; it costs a step only with ``count_refused: true`` (the old behaviour): by
default ``max_steps`` counts executed actions, as the paper counts a trajectory's actions, and
``max_refused`` refused calls end the loop on their own. A module's unusable reply gets a
defined fallback, also counted; an empty reply (a reasoning model out of budget) is counted
in ``usage.empty_replies``. Only failures of the machinery itself (a backend error) end the
question, and the runner records those.

The paper's code and prompts are not public; see the module docstrings for each place where
this implementation had to decide (``actions``: availability; ``navigate``: rounds; ``focus``:
plans and crops; ``prompts``; ``measures``: what is measured).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from docqa.core.prediction import Prediction, Usage
from docqa.core.question import UNANSWERABLE, Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Method, Models
from docqa.methods.docpilot import labels
from docqa.methods.docpilot.actions import (
    ACTION_NAMES,
    OPTIONAL_ACTIONS,
    REPEATED_ACTION,
    ActionError,
    available_actions,
    check_call,
)
from docqa.methods.docpilot.analyze import analyze
from docqa.methods.docpilot.answer import answer as give_answer
from docqa.methods.docpilot.context import (
    ROLE_TOKENS,
    Context,
    Observation,
    Settings,
    ask,
    reads_images,
)
from docqa.methods.docpilot.crops import MAX_ZOOM
from docqa.methods.docpilot.extract import extract
from docqa.methods.docpilot.focus import focus
from docqa.methods.docpilot.measures import summary
from docqa.methods.docpilot.navigate import navigate
from docqa.methods.docpilot.parsing import parse_decision
from docqa.methods.docpilot.prompts import (
    ORCHESTRATOR_STOP,
    documents_text,
    evidence_block,
    orchestrator_header,
    orchestrator_prompt,
    step_text,
)
from docqa.methods.docpilot.solve import solve
from docqa.methods.docpilot.state import AgentState
from docqa.sandbox import SandboxLimits

Module = Callable[[Context, dict], Awaitable[Observation]]
MODULES: dict[str, Module] = {
    "navigate": navigate,
    "extract": extract,
    "focus": focus,
    "solve": solve,
    "analyze": analyze,
    "answer": give_answer,
}
#: the most evidence items the orchestrator is shown (the latest ones)
SHOWN_EVIDENCE = 20


@METHODS.register("docpilot")
class DocPilot(Method):
    """Options: ``max_steps`` (executed actions; refused calls too with ``count_refused``);
    ``max_refused`` (refused calls that end the loop; default ``max_steps``); ``role_tokens``
    (new tokens per role, over :data:`~docqa.methods.docpilot.context.ROLE_TOKENS`); ``without``
    (ablations: any of ``analyze``, ``focus``, ``solve``); ``retriever`` (a retriever whose best
    unseen pages Navigate also shows, ``hint_pages`` of them; none by default);
    ``window_pages`` (pages per round where no overview grid covers them); ``snippet_chars``
    (text shown per page in an overview); ``max_pages_per_extract``; ``max_chars_per_page``
    (OCR text per page read); ``max_facts`` (per reading); ``focus_zoom`` (dpi factor of a crop
    over its page); ``max_focus_crops``; ``crops_dir``; ``solve_cpu_seconds``,
    ``solve_wall_seconds``, ``solve_memory_mb`` (sandbox limits); ``insufficient_answer``
    (the answer at the step limit); ``max_observation_chars`` (per observation in the history);
    ``orchestrator_tokens`` (per decision)."""

    def __init__(
        self,
        max_steps: int = 12,
        without: list[str] | tuple[str, ...] = (),
        retriever: str | None = None,
        hint_pages: int = 4,
        window_pages: int = 12,
        snippet_chars: int = 100,
        max_pages_per_extract: int = 3,
        max_chars_per_page: int = 1500,
        max_facts: int = 8,
        focus_zoom: float = 2.0,
        max_focus_crops: int = 4,
        crops_dir: str = "results/crops",
        solve_cpu_seconds: float = 5.0,
        solve_wall_seconds: float = 10.0,
        solve_memory_mb: int = 512,
        insufficient_answer: str = UNANSWERABLE,
        max_observation_chars: int = 400,
        orchestrator_tokens: int | None = None,
        role_tokens: dict[str, int] | None = None,
        max_refused: int | None = None,
        count_refused: bool = False,
    ) -> None:
        unknown = sorted(set(without) - set(OPTIONAL_ACTIONS))
        if unknown:
            raise ValueError(
                f"docpilot: cannot go without {unknown}; an ablation removes any of "
                f"{', '.join(OPTIONAL_ACTIONS)}"
            )
        if max_steps < 1 or window_pages < 1 or max_pages_per_extract < 1 or max_focus_crops < 1:
            raise ValueError(
                "docpilot: max_steps, window_pages, max_pages_per_extract and max_focus_crops "
                "must be at least 1"
            )
        if not 1.0 <= focus_zoom <= MAX_ZOOM:
            raise ValueError(f"docpilot: focus_zoom must be between 1 and {MAX_ZOOM:g}")
        self.retrievers = (retriever,) if retriever else ()
        tokens = {**ROLE_TOKENS, **(role_tokens or {})}
        if orchestrator_tokens is not None:  # the older, narrower option
            tokens["orchestrator"] = orchestrator_tokens
        unknown_roles = sorted(set(tokens) - set(ROLE_TOKENS))
        if unknown_roles or min(tokens.values()) < 1:
            raise ValueError(
                f"docpilot: role_tokens {role_tokens} must give roles of {sorted(ROLE_TOKENS)} "
                "at least 1 token"
            )
        self.orchestrator_tokens = tokens["orchestrator"]
        self.max_refused = max_steps if max_refused is None else max_refused
        if self.max_refused < 1:
            raise ValueError(f"docpilot: max_refused must be at least 1, not {max_refused}")
        self.count_refused = count_refused
        enabled = tuple(name for name in ACTION_NAMES if name not in without)
        self.settings = Settings(
            max_steps=max_steps,
            enabled=enabled,
            retriever=retriever,
            hint_pages=hint_pages,
            window_pages=window_pages,
            snippet_chars=snippet_chars,
            max_pages_per_extract=max_pages_per_extract,
            max_chars_per_page=max_chars_per_page,
            max_facts=max_facts,
            focus_zoom=focus_zoom,
            max_focus_crops=max_focus_crops,
            crops_dir=Path(crops_dir),
            solve_limits=SandboxLimits(
                cpu_seconds=solve_cpu_seconds,
                wall_seconds=solve_wall_seconds,
                memory_mb=solve_memory_mb,
            ),
            insufficient_answer=insufficient_answer,
            max_observation_chars=max_observation_chars,
            role_tokens=tokens,
        )
        self.header = orchestrator_header(enabled)
        #: the header over a set of documents (pages written D2:3)
        self.set_header = orchestrator_header(enabled, several=True)

    async def answer(self, question: Question, env: DocumentEnv, models: Models) -> Prediction:
        settings, client = self.settings, models.main
        state = AgentState(len(env.pages))
        sees_images = bool(env.pages) and reads_images(client, env.pages[0].image)
        base = Context(question, env, client, state, settings, 0, sees_images)
        header = self.set_header if env.is_set else self.header
        documents = documents_text(env)
        trace: list[dict[str, Any]] = []
        history: list[str] = []
        usage = Usage()
        final, stop, steps, executed, refused = None, "step_limit", 0, 0, 0
        while executed < settings.max_steps:
            if refused >= self.max_refused:
                stop = "refused_limit"
                break
            available = available_actions(state, settings.enabled)
            if not available:
                stop = "no_available_action"
                break
            steps = step = steps + 1
            prompt = orchestrator_prompt(
                header,
                question.question,
                documents,
                history,
                _state_block(state, env),
                executed + 1,
                settings.max_steps,
                available,
            )
            step_usage = Usage()
            reply = await ask(
                client, [prompt], self.orchestrator_tokens, ORCHESTRATOR_STOP, step_usage
            )
            record, observation = await self._act(replace(base, step=step), reply)
            if record.get("refused"):
                refused += 1
                if self.count_refused:
                    executed += 1
            else:
                executed += 1
            step_usage.add(observation.usage)
            usage.add(step_usage)
            for kind in observation.fallbacks:
                state.failures[kind] += 1
            trace.append({**record, "usage": step_usage.to_dict()})
            history.append(
                step_text(
                    step,
                    available,
                    record["thought"][:200],
                    record["action"],
                    record["input"],
                    _cut(observation.text, settings.max_observation_chars),
                )
            )
            if observation.answer is not None:
                final, stop = observation.answer, "answer"
                break
        trace.append(
            {
                **summary(state, question, env, stop, steps, settings.enabled),
                "executed_actions": executed,
                "refused_calls": refused,
                "empty_replies": usage.empty_replies,
            }
        )
        return Prediction(
            question.question_id,
            final if final is not None else settings.insufficient_answer,
            list(state.read),
            as_trace(trace),
            usage,
        )

    async def _act(self, ctx: Context, reply: str) -> tuple[dict[str, Any], Observation]:
        """Check and run one decision; a refused one becomes an error observation."""
        thought, action, shown, decision = "", "invalid", {}, None
        refused_call = False
        try:
            decision = parse_decision(reply)
            thought, action = decision.thought, decision.action
            shown = decision.arguments if isinstance(decision.arguments, dict) else {}
            arguments = check_call(
                action, decision.arguments, ctx.state, self.settings.enabled, ctx.env
            )
        except ActionError as error:
            refused_call = True
            repeated = decision is not None and ctx.state.refuse(action, decision.arguments)
            if repeated and error.kind != REPEATED_ACTION:
                error = ActionError(
                    REPEATED_ACTION, f"the same call was refused before: {error.message}"
                )
            observation = Observation(
                f"error ({error.kind}): {error.message}", fallbacks=[error.kind]
            )
        else:
            shown = _as_written(arguments, ctx.env)
            observation = await MODULES[action](ctx, arguments)
            ctx.state.finish(action, arguments)
        record = {
            "action": action,
            "thought": thought,
            "input": shown,
            "reply": reply,
            "output": observation.text,
            "pages": observation.pages,
            "images": observation.images,
            "fallbacks": observation.fallbacks,
            "refused": refused_call,
            **observation.details,
        }
        return record, observation


def _as_written(arguments: dict[str, Any], env: DocumentEnv) -> dict[str, Any]:
    """Checked arguments as the trace and the history show them: pages as models write them
    (1-based; ``"D2:3"`` in a set), JSON values."""
    shown = dict(arguments)
    if "pages" in shown:
        shown["pages"] = [labels.value(env, page) for page in shown["pages"]]
    if "page" in shown:
        shown["page"] = labels.value(env, shown["page"])
    if "region" in shown:
        shown["region"] = list(shown["region"])
    return shown


def _state_block(state: AgentState, env: DocumentEnv) -> str:
    """The persistent evidence state as the orchestrator reads it before each decision."""
    numbered = list(enumerate(state.evidence, start=1))
    lines = [item.line(number, env.page_label) for number, item in numbered[-SHOWN_EVIDENCE:]]
    if len(numbered) > SHOWN_EVIDENCE:
        lines.insert(0, f"({len(numbered) - SHOWN_EVIDENCE} earlier items not shown)")

    text = (
        evidence_block(lines) + f"Candidate pages: {labels.listing(env, state.candidates)}. "
        f"Read: {labels.listing(env, state.read)}. "
        f"Shown to the navigator: {len(state.offered)} of {state.num_pages} pages."
    )
    if state.verdict is not None:
        text += f"\nLast check of {state.verdict.answer!r}: {state.verdict.describe()}"
    return text


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
