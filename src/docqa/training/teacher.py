"""The teacher of trajectory synthesis: any configured backend, told the question's reference.

DocPilot's supervision is *data-grounded*: the teacher generates its reasoning and actions
knowing the reference answer and the evidence pages (paper §2.3, appendix C). ``Teacher``
wraps a backend: before each request it puts a reference note in front of the last message
(the teacher reads it), and it records the request *without* the note together with the reply
(the student is trained on what it will see at inference, never on the note).

``role_of`` names which of DocPilot's prompts a request is (the orchestrator or one ability),
from the prompt's fixed opening; an unknown prompt is ``other`` (and is never trained on).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from docqa.backends.base import Backend, Completion
from docqa.backends.request import ChatRequest, Message, Part
from docqa.core.question import Question
from docqa.methods.docpilot import prompts

#: the note in front of the teacher's prompt; ``GoldTeacher`` parses it back
REFERENCE = (
    "[Reference for the teacher, never shown to the student] answer: {answer} | "
    "evidence pages: {pages}\n\n"
)
REFERENCE_PREFIX = REFERENCE.split("]")[0] + "]"

#: role → the fixed opening of its prompt (the first 40 characters identify it)
ROLE_OPENINGS = {
    "orchestrator": prompts.ORCHESTRATOR,
    "navigate": prompts.NAVIGATOR,
    "extract": prompts.EXTRACTOR,
    "focus_plan": prompts.FOCUS_PLANNER,
    "focus_read": prompts.FOCUS_READER,
    "solve": prompts.SOLVER,
    "analyze": prompts.ANALYZER,
    "answer": prompts.ANSWERER,
}
#: the roles whose calls are single-ability traces (everything but the orchestrator)
ABILITY_ROLES = tuple(role for role in ROLE_OPENINGS if role != "orchestrator")


def role_of(request: ChatRequest) -> str:
    """Which DocPilot prompt ``request`` is: ``orchestrator``, an ability, or ``other``."""
    first = next((p.text for m in request.messages for p in m.parts if p.kind == "text"), "")
    for role, opening in ROLE_OPENINGS.items():
        if first.startswith(opening[:40]):
            return role
    return "other"


def answer_text(answer: str | list[str]) -> str:
    return ", ".join(answer) if isinstance(answer, list) else str(answer)


def reference_note(question: Question) -> str:
    pages = ", ".join(str(page + 1) for _, page in question.evidence) or "none"
    return REFERENCE.format(answer=answer_text(question.answer), pages=pages)


def with_note(request: ChatRequest, note: str) -> ChatRequest:
    """``request`` with ``note`` as the first part of its last message."""
    *head, last = request.messages
    noted = Message(last.role, (Part.of_text(note), *last.parts))
    return ChatRequest((*head, noted), request.generation)


def request_to_dict(request: ChatRequest) -> dict[str, Any]:
    """A request as JSON: messages of parts (text, or an image path with its OCR text)."""
    return {
        "messages": [
            {
                "role": message.role,
                "parts": [
                    {"kind": part.kind, "text": part.text, "image": part.image}
                    for part in message.parts
                ],
            }
            for message in request.messages
        ],
        "max_new_tokens": request.generation.max_new_tokens,
        "stop": list(request.generation.stop),
    }


def request_from_dict(row: dict[str, Any]) -> ChatRequest:
    from docqa.backends.request import Generation

    messages = tuple(
        Message(m["role"], tuple(Part(p["kind"], p["text"], p["image"]) for p in m["parts"]))
        for m in row["messages"]
    )
    return ChatRequest(messages, Generation(row["max_new_tokens"], 0.0, tuple(row["stop"])))


@dataclass
class Call:
    role: str
    request: ChatRequest
    reply: str

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "request": request_to_dict(self.request), "reply": self.reply}


class Teacher(Backend):
    """``inner`` answering requests with the current question's reference in front; every
    call is kept in ``calls`` (the request as the student sees it). Set ``question`` before
    each question; synthesis answers one question at a time."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.max_batch_size = inner.max_batch_size
        self.question: Question | None = None
        self.calls: list[Call] = []

    @property
    def identity(self) -> dict[str, Any]:
        return {"teacher": self.inner.identity}

    def validate(self, request: ChatRequest) -> None:
        self.inner.validate(request)

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        if self.question is None:
            raise RuntimeError("Teacher.generate: set the question (teacher.question) first")
        note = reference_note(self.question)
        completions = self.inner.generate([with_note(r, note) for r in requests])
        for request, completion in zip(requests, completions, strict=True):
            self.calls.append(Call(role_of(request), request, completion.text))
        return completions

    def close(self) -> None:
        self.inner.close()
