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
from typing import Annotated, Any

from pydantic import field_validator

from docqa.backends.calls import recorded_calls
from docqa.core.prediction import Prediction, Usage
from docqa.core.question import UNANSWERABLE, Question
from docqa.core.trace import as_trace
from docqa.methods import METHODS
from docqa.methods.base import DocumentEnv, Method, MethodOptions, Models
from docqa.methods.context_fit import reads_images
from docqa.methods.docpilot import labels
from docqa.methods.docpilot.actions import (
    ACTION_NAMES,
    OPTIONAL_ACTIONS,
    REPEATED_ACTION,
    Ablation,
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
from docqa.runtime.spec import Field, refers_to
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
#: the pixel budget of each image Extract and Focus send by default: the paper's
#: "high-resolution screenshot", a 144-dpi page whole (US letter 1.94 MP, A4 2.0 MP), under
#: the cap the DocPilot config gives its vanilla baseline
PAGE_PIXELS = 4_000_000


class DocPilotOptions(MethodOptions):
    """``docpilot``: the loop's limits, its ablations and each action module's settings."""

    max_steps: int = Field(
        12, ge=1, description="executed actions (refused calls too with count_refused)"
    )
    without: list[Ablation] = Field(
        default_factory=list, description="actions taken away (ablations): analyze, focus, solve"
    )
    retriever: str | None = refers_to(
        "retrievers", None, "a retriever whose best unseen pages Navigate also shows (null: none)"
    )
    hint_pages: int = Field(4, ge=0, description="pages of that retriever Navigate shows")
    window_pages: int = Field(
        12, ge=1, description="pages a Navigate round shows where no overview grid covers them"
    )
    snippet_chars: int = Field(100, ge=1, description="text shown per page in an overview")
    max_pages_per_extract: int = Field(3, ge=1, description="pages one Extract reads")
    max_chars_per_page: int | None = Field(
        None, ge=1, description="OCR characters Extract reads per page (null: all of them)"
    )
    extract_max_pixels: int | None = Field(
        PAGE_PIXELS,
        ge=784,
        description="pixel budget of each page or region image Extract sends (null: the model's)",
    )
    max_facts: int = Field(8, ge=1, description="facts kept per reading")
    focus_zoom: float = Field(
        2.0, ge=1.0, le=MAX_ZOOM, description="dpi factor of a Focus crop over its page"
    )
    max_focus_crops: int = Field(4, ge=1, description="crops one Focus plans")
    focus_max_pixels: int | None = Field(
        PAGE_PIXELS,
        ge=784,
        description="pixel budget of the page Focus plans on and of each crop (null: the model's)",
    )
    focus_lines: int | None = Field(
        None, ge=1, description="OCR lines with boxes the Focus planner reads (null: all)"
    )
    crops_dir: str = Field("results/crops", description="where Focus writes its crops")
    solve_cpu_seconds: float = Field(5.0, gt=0, description="Solve's sandbox: CPU seconds")
    solve_wall_seconds: float = Field(10.0, gt=0, description="Solve's sandbox: wall seconds")
    solve_memory_mb: int = Field(512, ge=1, description="Solve's sandbox: memory")
    insufficient_answer: str = Field(
        UNANSWERABLE, description="the answer when the loop ends without one"
    )
    max_observation_chars: int | None = Field(
        None, ge=1, description="characters of each observation kept in the history (null: all)"
    )
    orchestrator_tokens: int | None = Field(
        None, ge=1, description="new tokens per decision (the older form of role_tokens)"
    )
    role_tokens: dict[str, Annotated[int, Field(ge=1)]] | None = Field(
        None, description="new tokens per model role, over docqa's defaults (context.ROLE_TOKENS)"
    )
    max_refused: int | None = Field(
        None, ge=1, description="refused calls that end the loop (null: max_steps)"
    )
    count_refused: bool = Field(False, description="a refused call costs a step")

    @field_validator("without", mode="before")
    @classmethod
    def _known_actions(cls, without: object) -> object:
        unknown = sorted(set(without) - set(OPTIONAL_ACTIONS)) if isinstance(without, list) else []
        if unknown:
            raise ValueError(
                f"cannot go without {unknown}; an ablation removes any of "
                f"{', '.join(OPTIONAL_ACTIONS)}"
            )
        return without

    @field_validator("role_tokens")
    @classmethod
    def _known_roles(cls, tokens: dict[str, int] | None) -> dict[str, int] | None:
        unknown = sorted(set(tokens or ()) - set(ROLE_TOKENS))
        if unknown:
            raise ValueError(f"role_tokens: no role {unknown}; the roles: {', '.join(ROLE_TOKENS)}")
        return tokens


@METHODS.register("docpilot", options=DocPilotOptions)
class DocPilot(Method):
    """The ReAct loop (module docstring); its options: :class:`DocPilotOptions`."""

    options: DocPilotOptions
    traces_rounds = True
    trajectory_training = True

    def __init__(self, options: DocPilotOptions) -> None:
        super().__init__(options)
        self.retrievers = (options.retriever,) if options.retriever else ()
        tokens = {**ROLE_TOKENS, **(options.role_tokens or {})}
        if options.orchestrator_tokens is not None:  # the older, narrower option
            tokens["orchestrator"] = options.orchestrator_tokens
        self.max_refused = options.max_steps if options.max_refused is None else options.max_refused
        enabled = tuple(name for name in ACTION_NAMES if name not in options.without)
        self.settings = Settings(
            max_steps=options.max_steps,
            enabled=enabled,
            retriever=options.retriever,
            hint_pages=options.hint_pages,
            window_pages=options.window_pages,
            snippet_chars=options.snippet_chars,
            max_pages_per_extract=options.max_pages_per_extract,
            max_chars_per_page=options.max_chars_per_page,
            extract_max_pixels=options.extract_max_pixels,
            max_facts=options.max_facts,
            focus_zoom=options.focus_zoom,
            max_focus_crops=options.max_focus_crops,
            focus_max_pixels=options.focus_max_pixels,
            focus_lines=options.focus_lines,
            crops_dir=Path(options.crops_dir),
            solve_limits=SandboxLimits(
                cpu_seconds=options.solve_cpu_seconds,
                wall_seconds=options.solve_wall_seconds,
                memory_mb=options.solve_memory_mb,
            ),
            insufficient_answer=options.insufficient_answer,
            max_observation_chars=options.max_observation_chars,
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
            tokens = settings.role_tokens["orchestrator"]
            with recorded_calls() as calls:  # the orchestrator's and the action's
                reply = await ask(client, [prompt], tokens, ORCHESTRATOR_STOP, step_usage)
                record, observation = await self._act(replace(base, step=step), reply)
            if record.get("refused"):
                refused += 1
                if self.options.count_refused:
                    executed += 1
            else:
                executed += 1
            step_usage.add(observation.usage)
            usage.add(step_usage)
            for kind in observation.fallbacks:
                state.failures[kind] += 1
            kept = cut(observation.text, settings.max_observation_chars)
            if len(kept) < len(observation.text):  # the history holds less than was observed
                record["observation_cut"] = len(observation.text) - len(kept)
            trace.append({**record, "usage": step_usage.to_dict(), "calls": calls})
            thought = record["thought"][:200]
            history.append(
                step_text(step, available, thought, record["action"], record["input"], kept)
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


def cut(text: str, limit: int | None) -> str:
    """``text`` within ``limit`` characters (``None``: whole), ``...`` marking a cut."""
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."
