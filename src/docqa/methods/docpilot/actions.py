"""The six actions: their structured arguments, when each is available, and the checks that
turn a model's arguments into valid ones (or a defined error back to the agent).

Availability (decided here, the paper only says it is state-conditioned):

- ``navigate`` while some page has not been shown to the navigator yet;
- ``extract`` once a page is a candidate (picked by Navigate); its pages must be candidates;
- ``focus`` once a page has been read; its page must be a candidate;
- ``solve`` once there is evidence to compute over;
- ``analyze`` once a page has been read (coverage can be judged even without evidence);
- ``answer`` once a page has been read and, when Analyze is enabled, an Analyze has run since
  the last evidence came in: every answer is checked against the evidence it rests on.

Arguments are JSON objects; pages are written as models read them (1-based numbers for one
document, ``"D2:3"`` in a set: see ``labels``) and are the environment's positions after
checking. Unknown keys are ignored; strings are cut at ``MAX_TEXT``; ``page`` and ``pages``
stand for each other (one page is a list of one, a list of one is a page).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from docqa.methods.base import DocumentEnv
from docqa.methods.docpilot import labels
from docqa.methods.docpilot.state import AgentState

ACTION_NAMES = ("navigate", "extract", "focus", "solve", "analyze", "answer")
#: the actions an ablation may take away; the others make the loop
Ablation = Literal["analyze", "focus", "solve"]
OPTIONAL_ACTIONS: tuple[str, ...] = get_args(Ablation)
MAX_TEXT = 300
#: the other name a model may give an argument (``page`` for ``pages`` and back)
ALIASES = {"pages": "page", "page": "pages"}

#: failure kinds, each counted in the summary and answered with a defined observation
INVALID_ACTION = "invalid_action"  # no action could be read from the reply, or an unknown one
UNAVAILABLE_ACTION = "unavailable_action"  # a known action not available in this state
BAD_ARGUMENTS = "bad_arguments"  # missing, mistyped or unusable arguments
PAGE_OUT_OF_RANGE = "page_out_of_range"  # a page outside the document
REPEATED_ACTION = "repeated_action"  # the same call again with nothing changed since
BAD_REPLY = "bad_reply"  # a module's model reply that could not be used as it was
FAILURE_KINDS = (
    INVALID_ACTION,
    UNAVAILABLE_ACTION,
    BAD_ARGUMENTS,
    PAGE_OUT_OF_RANGE,
    REPEATED_ACTION,
    BAD_REPLY,
)


class ActionError(Exception):
    """A call the environment refuses; ``kind`` is one of ``FAILURE_KINDS``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class Argument:
    name: str
    kind: str  # "text", "page", "pages" or "box" ([x0, y0, x1, y1] in thousandths of a page)
    required: bool = True


@dataclass(frozen=True)
class ActionSpec:
    name: str
    arguments: tuple[Argument, ...]
    #: a call with example arguments, and what the action does (for the orchestrator prompt)
    call: str
    purpose: str
    #: the example call for a set of documents, where it names pages (empty: ``call``)
    set_call: str = ""

    def call_for(self, several: bool) -> str:
        """The example call for one document, or for a set (``several``)."""
        return self.set_call if several and self.set_call else self.call

    @property
    def usage(self) -> str:
        return self.usage_for(False)

    def usage_for(self, several: bool) -> str:
        return f"{self.call_for(several)}: {self.purpose}"


SPECS = {
    spec.name: spec
    for spec in (
        ActionSpec(
            "navigate",
            (Argument("query", "text", required=False),),
            'navigate {"query": "what to look for"}',
            "see overview grids and thumbnails of pages not shown yet and pick candidate pages",
        ),
        ActionSpec(
            "extract",
            (
                Argument("pages", "pages"),
                Argument("goal", "text", required=False),
                Argument("region", "box", required=False),
            ),
            'extract {"pages": [2, 5], "goal": "what to collect"}',
            'read candidate pages and collect evidence; with one page, "region": '
            "[x0, y0, x1, y1] (thousandths of the page) reads only that part",
            'extract {"pages": ["D1:2", "D2:5"], "goal": "what to collect"}',
        ),
        ActionSpec(
            "focus",
            (Argument("page", "page"), Argument("goal", "text", required=False)),
            'focus {"page": 5, "goal": "what to inspect"}',
            "crop, zoom into or split a region of a candidate page to read its details",
            'focus {"page": "D2:5", "goal": "what to inspect"}',
        ),
        ActionSpec(
            "solve",
            (Argument("task", "text"),),
            'solve {"task": "what to compute"}',
            "compute with Python over the collected evidence",
        ),
        ActionSpec(
            "analyze",
            (Argument("answer", "text"),),
            'analyze {"answer": "a candidate answer"}',
            "check that it is grounded in the evidence and that the search covered enough",
        ),
        ActionSpec(
            "answer",
            (Argument("answer", "text"),),
            'answer {"answer": "the final answer"}',
            "give the final answer and stop",
        ),
    )
}


def available_actions(state: AgentState, enabled: tuple[str, ...]) -> list[str]:
    """The actions the agent may take now, in ``ACTION_NAMES`` order."""
    rules = {
        "navigate": bool(state.unoffered()),
        "extract": bool(state.candidates),
        "focus": bool(state.read),
        "solve": bool(state.evidence),
        "analyze": bool(state.read),
        "answer": bool(state.read)
        and ("analyze" not in enabled or state.analyzed_at == len(state.evidence)),
    }
    return [name for name in ACTION_NAMES if name in enabled and rules[name]]


def check_call(
    action: str,
    raw: Any,
    state: AgentState,
    enabled: tuple[str, ...],
    env: DocumentEnv | None = None,
) -> dict[str, Any]:
    """The checked arguments of ``action`` (pages as the environment's positions), or
    ``ActionError``. ``env`` names and reads the pages (None: one document of
    ``state.num_pages`` pages)."""
    several = env is not None and env.is_set
    if action not in enabled:
        names = ", ".join(enabled)
        raise ActionError(INVALID_ACTION, f"there is no action {action!r}; the actions are {names}")
    available = available_actions(state, enabled)
    if action not in available:
        raise ActionError(
            UNAVAILABLE_ACTION,
            f"{action} is not available now ({_why_unavailable(action, state, enabled)})",
        )
    if not isinstance(raw, dict):
        raise ActionError(BAD_ARGUMENTS, f"the arguments of {action} must be a JSON object")
    arguments = {}
    for argument in SPECS[action].arguments:
        value = raw.get(argument.name, raw.get(ALIASES.get(argument.name, "")))
        if value is None or value == "" or value == []:
            if argument.required:
                raise ActionError(
                    BAD_ARGUMENTS,
                    f"{action} needs the argument {argument.name!r}; write it as "
                    + SPECS[action].call_for(several),
                )
            continue
        arguments[argument.name] = _convert(action, argument, value, state.num_pages, env)
    _check_pages(action, arguments, state, env)
    if action != "navigate" and state.is_repeat(action, arguments):
        raise ActionError(
            REPEATED_ACTION,
            f"{action} with these arguments was already done and nothing has changed since; "
            "take another action",
        )
    return arguments


def _why_unavailable(action: str, state: AgentState, enabled: tuple[str, ...]) -> str:
    if action == "navigate":
        return "every page has been shown already"
    if action == "extract":
        return "no candidate page yet: navigate first"
    if action == "solve":
        return "no evidence to compute over yet"
    if action == "answer" and state.read and "analyze" in enabled:
        return "analyze the candidate answer against the latest evidence first"
    return "read a page with extract first"


def _convert(
    action: str, argument: Argument, value: Any, num_pages: int, env: DocumentEnv | None
) -> Any:
    if argument.kind == "text":
        if isinstance(value, (dict, list)):
            raise ActionError(BAD_ARGUMENTS, f"{action}: {argument.name!r} must be a text")
        return " ".join(str(value).split())[:MAX_TEXT]
    if argument.kind == "box":
        return _box(action, argument.name, value)
    values = value if isinstance(value, list) else [value]
    pages = [_page(action, argument.name, item, num_pages, env) for item in values]
    if argument.kind == "page":
        if len(pages) != 1:
            raise ActionError(BAD_ARGUMENTS, f"{action}: {argument.name!r} must be one page")
        return pages[0]
    return list(dict.fromkeys(pages))


def _page(action: str, name: str, value: Any, num_pages: int, env: DocumentEnv | None) -> int:
    """One page as written by a model (``3``, ``"p. 3"``; ``"D2:3"`` in a set) → its position."""
    try:
        return labels.argument_page(env, value, num_pages)
    except labels.UnreadablePage as error:
        raise ActionError(BAD_ARGUMENTS, f"{action}: {name!r} {error}") from None
    except labels.PageOutside as error:
        raise ActionError(PAGE_OUT_OF_RANGE, str(error)) from None


def _box(action: str, name: str, value: Any) -> tuple[int, int, int, int]:
    numbers = value if isinstance(value, list) and len(value) == 4 else None
    if numbers is None or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1000 for v in numbers
    ):
        raise ActionError(
            BAD_ARGUMENTS, f"{action}: {name!r} must be [x0, y0, x1, y1], each from 0 to 1000"
        )
    x0, y0, x1, y1 = (round(v) for v in numbers)
    if x1 <= x0 or y1 <= y0:
        raise ActionError(BAD_ARGUMENTS, f"{action}: {name!r} must have x0 < x1 and y0 < y1")
    return x0, y0, x1, y1


def _check_pages(
    action: str, arguments: dict[str, Any], state: AgentState, env: DocumentEnv | None
) -> None:
    pages = arguments.get("pages", [arguments["page"]] if "page" in arguments else [])
    if "region" in arguments and len(pages) != 1:
        raise ActionError(BAD_ARGUMENTS, f"{action}: a region is read on one page at a time")

    def named(chosen: list[int]) -> str:
        return (
            labels.listing(env, chosen)
            if env is not None
            else ", ".join(str(page + 1) for page in chosen)
        )

    outside = [page for page in pages if page not in state.candidates]
    if outside:
        raise ActionError(
            BAD_ARGUMENTS,
            f"{action}: page {named(outside)} is not a candidate page "
            f"(candidates: {named(state.candidates)}); navigate to pick it first",
        )
