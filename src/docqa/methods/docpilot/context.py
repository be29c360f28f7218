"""What an action module works with (the settings, the document, the model, the state) and
what it gives back (an observation)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.core.prediction import Usage
from docqa.core.question import Question
from docqa.methods.base import DocumentEnv
from docqa.methods.docpilot.state import AgentState
from docqa.sandbox import SandboxLimits

#: new tokens per model role, docqa's defaults: small enough for a CPU run of a base model.
#: The paper states none; its trajectories (7.9-24 rounds) need an orchestrator that can
#: write a thought and a call each round, so paper configs raise them (config/experiments/
#: docpilot.yaml), and a reasoning model also needs room for its thinking (its model entry's
#: ``reasoning_tokens``).
ROLE_TOKENS = {
    "orchestrator": 96,
    "navigate": 32,
    "extract": 160,
    "focus_plan": 96,
    "focus_read": 160,
    "solve": 256,
    "analyze": 64,
    "answer": 48,
}


@dataclass(frozen=True)
class Settings:
    """The method's options (see ``DocPilot`` for what each means)."""

    max_steps: int
    enabled: tuple[str, ...]
    retriever: str | None
    hint_pages: int
    window_pages: int
    snippet_chars: int
    max_pages_per_extract: int
    #: OCR characters Extract reads per page (None: all)
    max_chars_per_page: int | None
    #: each image's pixel budget in Extract, and in Focus (None: the model's)
    extract_max_pixels: int | None
    max_facts: int
    focus_zoom: float
    max_focus_crops: int
    focus_max_pixels: int | None
    #: OCR lines with boxes the Focus planner reads (None: all)
    focus_lines: int | None
    crops_dir: Path
    solve_limits: SandboxLimits
    insufficient_answer: str
    max_observation_chars: int | None
    #: new tokens per model role (ROLE_TOKENS's keys)
    role_tokens: dict[str, int] = field(default_factory=lambda: dict(ROLE_TOKENS))


@dataclass
class Context:
    """One step's world: ``reads_images`` says whether the model sees images (a VLM) or reads
    their OCR text instead."""

    question: Question
    env: DocumentEnv
    client: ModelClient
    state: AgentState
    settings: Settings
    step: int
    reads_images: bool


@dataclass
class Observation:
    """What an action returns to the agent: ``text`` is what it reads; ``pages`` (0-based) and
    ``images`` are what the step looked at; ``fallbacks`` the failure kinds of replies that
    were replaced by a defined fallback; ``details`` extra trace fields; ``answer`` ends the
    loop."""

    text: str
    pages: list[int] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    fallbacks: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    answer: str | None = None


async def ask(
    client: ModelClient,
    parts: list[Part | str],
    max_new_tokens: int,
    stop: tuple[str, ...],
    usage: Usage,
    max_pixels: int | None = None,
) -> str:
    """One model call (each image under ``max_pixels``, ``None``: the model's budget); its
    usage is added to ``usage``."""
    generation = Generation(max_new_tokens=max_new_tokens, stop=stop, max_pixels=max_pixels)
    request = ChatRequest((Message.user(*parts),), generation)
    completion = await client.complete(request)
    usage.add(completion.usage)
    if not completion.text.strip():
        usage.empty_replies += 1
    return completion.text


def snippet(text: str, limit: int) -> str:
    """A page's text on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    if not flat:
        return "(no text)"
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
