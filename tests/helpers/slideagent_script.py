"""The scripted side of the SlideAgent tests and the knowledge stage's: ``SlideScript``, a real
backend that tells each SlideAgent agent from its prompt and answers with that agent's scripted
reply; a real BM25 index of the acme document; ``build``, the knowledge stage on a script."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from docqa.backends.base import Backend
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods.base import DocumentEnv, Method
from docqa.methods.slideagent import prompts
from docqa.retrievers import IndexedPage, create_retriever
from docqa.stages.knowledge import build_knowledge_folder
from helpers.scripted_backend import ScriptedBackend
from helpers.text_env import answer

#: agent → the prompt its request starts with
AGENT_PROMPTS = {
    "global": prompts.GLOBAL,
    "refine": prompts.REFINE,
    "page": prompts.PAGE,
    "element": prompts.ELEMENT,
    "classifier": prompts.CLASSIFY,
    "subqueries": prompts.SUBQUERIES.split("{")[0],
    "read_global": prompts.READ_GLOBAL,
    "read_page": prompts.READ_PAGES,
    "read_element": prompts.READ_ELEMENTS,
    "synthesizer": prompts.SYNTHESIZE.split(";")[0],  # with or without "Not answerable"
}

Reply = str | Callable[[ChatRequest], str] | BaseException

CLEAN: dict[str, Reply] = {
    "global": " An annual report of Acme for fiscal year 2023.",
    "refine": " Acme's 2023 annual report: revenue, staff, orders and outlook.",
    "page": " This page shows a part of Acme's report.",
    "element": " Title of the slide.\nE2: Body text of the slide.\nE3: A bar chart of orders.",
    "classifier": " factual",
    "subqueries": " orders Q3\n2. quarterly orders chart",
    "read_global": " The report covers 2023.",
    "read_page": " 77",
    "read_element": " 77 orders",
    "synthesizer": " 77",
}
QUESTION = Question(
    "q-orders", "acme", "How many quarterly orders were there in Q3?", "77", "Int", [("acme", 3)]
)


def agent_of(request: ChatRequest) -> str:
    first = request.messages[0].parts[0].text
    for agent, prompt in AGENT_PROMPTS.items():
        if first.startswith(prompt):
            return agent
    raise AssertionError(f"no SlideAgent prompt starts {first[:200]!r}")


class SlideScript(ScriptedBackend):
    """Answers each agent with ``replies[agent]`` (a string, a function of the request, or an
    exception to raise); text-only unless ``sees_images``. Logs (agent, request)."""

    def __init__(self, replies: dict[str, Reply] | None = None, sees_images: bool = False):
        super().__init__(
            self._answer, sees_images=sees_images, identity={"id": "slide-script"}, tokens=(10, 2)
        )
        self.replies = {**CLEAN, **(replies or {})}
        self.log: list[tuple[str, ChatRequest]] = []

    def _answer(self, request: ChatRequest) -> str:
        agent = agent_of(request)
        self.log.append((agent, request))
        reply = self.replies[agent]
        if isinstance(reply, BaseException):
            raise reply
        return reply(request) if callable(reply) else reply

    def agents(self) -> list[str]:
        return [agent for agent, _ in self.log]

    def requests_of(self, agent: str) -> list[ChatRequest]:
        return [request for name, request in self.log if name == agent]


def with_bm25(env: DocumentEnv, folder: Path) -> DocumentEnv:
    """``env`` with a real BM25 index of its pages (built in ``folder``)."""
    retriever = create_retriever({"type": "bm25"})
    retriever.build(
        [
            IndexedPage(text, Path(page.image))
            for text, page in zip(env.page_texts, env.pages, strict=True)
        ],
        folder,
    )
    return replace(env, searchers={"bm25": retriever.load(folder)})


def ask(
    method: Method, env: DocumentEnv, backend: Backend, question: Question = QUESTION
) -> Prediction:
    return answer(method, env, backend, question)


def step(prediction: Prediction, name: str) -> dict[str, Any]:
    """The first trace step named ``name`` (its ``step`` or ``agent``)."""
    return next(s for s in prediction.trace if name in (s.get("agent"), s.get("step")))


def build(files: dict[str, Path], backend: SlideScript, out: Path, **settings: object) -> None:
    """The knowledge stage on ``files`` (documents, pages, elements) with ``backend`` as the
    model, one document at a time, into ``out``."""
    build_knowledge_folder(
        **files,
        client=lambda: ModelClient(backend),
        model_name="scripted",
        settings=dict(settings),
        identity={"model": {"backend": "scripted"}},
        out=out,
        concurrency=1,
    )
