"""The scripted side of the DocPilot tests (and of vanilla's and image_rag's): a real
``Backend`` that answers from a list of replies, in order, and the orchestrator's reply format;
and a second small document for the tests over a set of documents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.backends.base import Backend
from docqa.backends.request import ChatRequest
from docqa.core.document import Document
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods.base import DocumentEnv, Method
from helpers.acme import DRAW_DPI, QUESTION, env_of_pdf, text_page
from helpers.scripted_backend import ScriptedBackend, text_of
from helpers.text_env import answer


class ScriptedReplies(ScriptedBackend):
    """Answers each request with the next reply of ``replies``; text-only unless
    ``sees_images`` (then image parts need no OCR text). Records every request."""

    def __init__(self, replies: list[str], sees_images: bool = False) -> None:
        super().__init__(
            self._next_reply,
            sees_images=sees_images,
            identity={"id": "scripted-docpilot"},
            tokens=(10, 2),
        )
        self.replies = list(replies)

    def _next_reply(self, request: ChatRequest) -> str:
        if not self.replies:
            raise AssertionError("the script has no reply left for:\n" + text_of(request)[-600:])
        return self.replies.pop(0)


def run(
    method: Method, env: DocumentEnv, backend: Backend, question: Question = QUESTION
) -> Prediction:
    return answer(method, env, backend, question)


def decision(action: str, arguments: dict[str, Any] | str, thought: str = "next") -> str:
    """An orchestrator reply (the prompt ends with ``Thought:``)."""
    import json

    written = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return f" {thought}\nAction: {action}\nArguments: {written}"


def summary_of(prediction: Prediction) -> dict[str, Any]:
    last = prediction.trace[-1]
    assert last["step"] == "summary"
    return last


#: the second document of the DocPilot tests over a set (D2 after acme): its first page lists
#: the fleet by depot
FLEET_PAGES = [
    [("Fleet by Depot", 80), ("Berlin 14 trucks", 60), ("Oslo 7 trucks", 60)],
    [("Beta Logistics", 80), ("Annual summary 2023", 60)],
    [("Depot Contacts", 80), ("Operations desk", 60)],
]


def build_fleet_document(folder: Path) -> DocumentEnv:
    """A real three-page PDF ``fleet``, rendered (pages, thumbnails, a 2x2 overview grid) and
    OCRed by docqa's own stages, as the acme document is (helpers/acme.py)."""
    folder.mkdir(parents=True, exist_ok=True)
    images = [text_page(lines)[0] for lines in FLEET_PAGES]
    path = folder / "fleet.pdf"
    images[0].save(path, save_all=True, append_images=images[1:], resolution=DRAW_DPI)
    return env_of_pdf(Document("fleet", str(path), len(FLEET_PAGES)), folder)
