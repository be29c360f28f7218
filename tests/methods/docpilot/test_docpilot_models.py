"""DocPilot on real models and in the infer stage's document store.

The embedded default (Gemma 3 270M, a small base model) and a tiny random VLM cannot be
expected to drive the agent well; what must hold is that the method runs on them to the end —
every reply, however bad, answered and counted — and returns a prediction with its trace.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.docpilot_script import ScriptedReplies, decision, run, summary_of

from docqa.backends import create_backend
from docqa.backends.base import Backend, Completion
from docqa.backends.preparation import prepare_model
from docqa.backends.request import ChatRequest
from docqa.core.jsonl import write_jsonl
from docqa.core.prediction import Prediction
from docqa.methods.base import DocumentEnv
from docqa.methods.docpilot import DocPilot, DocPilotOptions, prompts
from docqa.methods.store import DocumentStore


def check_ran_to_the_end(prediction: Prediction, max_steps: int) -> None:
    """A prediction with a step per decision, each answered, and the summary last."""
    assert prediction.error == ""
    summary = summary_of(prediction)
    steps = prediction.trace[:-1]
    assert len(steps) == summary["steps"]
    # at most max_steps executed actions and max_refused (by default max_steps) refused calls
    assert 1 <= summary["steps"] <= 2 * max_steps
    assert all(step["output"] for step in steps)
    invalid = sum(step["action"] == "invalid" for step in steps)
    assert summary["failures"]["invalid_action"] >= invalid
    assert prediction.usage.calls >= summary["steps"]
    json.dumps(prediction.to_dict())


@pytest.mark.slow
def test_docpilot_runs_on_the_embedded_default(acme: DocumentEnv, tmp_path: Path) -> None:
    prepare_model("gemma3-270m", {"backend": "embedded"}, tmp_path / "gemma3-270m")
    backend = create_backend({"backend": "embedded", "threads": 2}, tmp_path / "gemma3-270m")
    try:
        prediction = run(
            DocPilot(DocPilotOptions(max_steps=4, crops_dir=str(tmp_path / "crops"))), acme, backend
        )
    finally:
        backend.close()
    check_ran_to_the_end(prediction, 4)


class VLMWithScriptedSteering(Backend):
    """A tiny random VLM for the modules that read pages and crops, with scripted replies for
    the orchestrator and the navigator, so that the VLM gets page images and crops to read (a
    random model would never name a valid action or page itself)."""

    def __init__(self, vlm: Backend, replies: list[str]) -> None:
        self.vlm = vlm
        self.scripted = ScriptedReplies(replies, sees_images=True)
        self.max_batch_size = vlm.max_batch_size
        self.vlm_requests: list[ChatRequest] = []

    @property
    def identity(self) -> dict[str, Any]:
        return {"vlm": self.vlm.identity, "steering": self.scripted.identity}

    def validate(self, request: ChatRequest) -> None:
        self.vlm.validate(request)

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        return [self._one(request) for request in requests]

    def _one(self, request: ChatRequest) -> Completion:
        text = request.messages[0].text
        if text.startswith((prompts.NAVIGATOR, "You are DocPilot")):
            return self.scripted.generate([request])[0]
        self.vlm_requests.append(request)
        return self.vlm.generate([request])[0]


@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    from helpers.tiny_models import build_tiny_vlm, tiny_model_entry

    root = tmp_path_factory.mktemp("tiny-vlm")
    entry = tiny_model_entry(build_tiny_vlm("qwen2_vl", root / "weights"))
    prepare_model("tiny-qwen2-vl", entry, root / "model")
    backend = create_backend(entry, root / "model")
    yield backend
    backend.close()


@pytest.mark.slow
def test_docpilot_runs_on_a_tiny_random_vlm(
    acme: DocumentEnv, tiny_vlm: Backend, tmp_path: Path
) -> None:
    method = DocPilot(
        DocPilotOptions(max_steps=2, orchestrator_tokens=16, crops_dir=str(tmp_path / "crops"))
    )
    check_ran_to_the_end(run(method, acme, tiny_vlm), 2)


@pytest.mark.slow
def test_a_tiny_random_vlm_reads_the_pages_and_crops_itself(
    acme: DocumentEnv, tiny_vlm: Backend, tmp_path: Path
) -> None:
    steering = VLMWithScriptedSteering(
        tiny_vlm,
        [
            decision("navigate", {}),
            "4\nMore: no",
            decision("extract", {"pages": [4]}),
            decision("focus", {"page": 4}),
            decision("analyze", {"answer": "77"}),
            decision("answer", {"answer": "77"}),
        ],
    )
    prediction = run(DocPilot(DocPilotOptions(crops_dir=str(tmp_path / "crops"))), acme, steering)
    check_ran_to_the_end(prediction, 12)
    assert [step["action"] for step in prediction.trace[:-1]] == [
        "navigate",
        "extract",
        "focus",
        "analyze",
        "answer",
    ]
    assert prediction.answer  # the VLM's answer, or the candidate when it wrote none
    images = [
        part
        for request in steering.vlm_requests
        for message in request.messages
        for part in message.parts
        if part.kind == "image"
    ]
    crops = prediction.trace[2]["images"]
    assert acme.pages[3].image in [part.image for part in images]
    assert set(crops) <= {part.image for part in images}
    assert all(part.text == "" for part in images if part.image in crops)  # no OCR for a VLM


def test_the_document_store_gives_methods_the_overview_grids(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    write_jsonl(tmp_path / "documents.jsonl", [acme.document.to_dict()])
    write_jsonl(tmp_path / "pages.jsonl", [page.to_dict() for page in acme.pages])
    write_jsonl(
        tmp_path / "elements.jsonl",
        [{"doc_id": "acme", "elements": [element.to_dict() for element in acme.elements]}],
    )
    write_jsonl(tmp_path / "overviews.jsonl", acme.overviews)
    files = [tmp_path / name for name in ("documents.jsonl", "pages.jsonl", "elements.jsonl")]
    store = DocumentStore(*files, {}, {}, tmp_path / "overviews.jsonl")
    env = store.env("acme", ())
    assert env is not None
    assert env.overviews == acme.overviews
    assert env.page_texts == acme.page_texts
    without = DocumentStore(*files, {}, {}).env("acme", ())
    assert without is not None
    assert without.overviews == []

    # without grids, Navigate shows windows of thumbnails instead
    backend = ScriptedReplies([decision("navigate", {}), "2\nMore: no"] + ["?"] * 2)
    prediction = run(
        DocPilot(
            DocPilotOptions(
                max_steps=3, count_refused=True, window_pages=3, crops_dir=str(tmp_path)
            )
        ),
        without,
        backend,
    )
    navigate = prediction.trace[0]
    assert navigate["pages"] == [0, 1, 2]
    assert navigate["images"] == [page.thumbnail for page in acme.pages[:3]]
