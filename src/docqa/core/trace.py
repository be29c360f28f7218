"""A trace step: one entry of ``Prediction.trace``, what a method did on the way to its answer.

Steps vary by method; each is a JSON object named by ``step`` (and/or ``agent`` / ``action``).
:class:`TraceStep` declares the keys that readers outside the method rely on: the trace page
(:mod:`docqa.report.traces`) shows ``calls``, ``input``, ``output``, ``pages``, ``images``,
``usage`` and ``fallbacks`` by their own widgets and any other key as a field; the infer stage
opens a question over several documents with a ``documents`` step (:class:`TraceDocument` per
document); a step that read pages only in part under a character budget lists them in
``text_cut`` (:class:`TextCut`), which the score stage counts (:func:`pages_cut`); an agentic
method (DocPilot) ends with a ``summary`` step whose measures the score stage averages
(:func:`docqa.stages.score.agent_measures`) and the training filters read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NotRequired, TypedDict, cast


class TraceDocument(TypedDict):
    """One document of a question over several, as the ``documents`` step lists it."""

    #: how prompts name its pages (``D2``); empty for one document
    label: str
    doc_id: str
    #: the number of its first page in the set's end-to-end numbering
    first_page: int
    pages: int


class CallPart(TypedDict, total=False):
    """One part of a message: ``text``, or ``image`` (the image's path), with ``text`` the OCR
    text a text-only model read in its place."""

    text: str
    image: str


class CallMessage(TypedDict):
    role: str
    parts: list[CallPart]


class ModelCall(TypedDict):
    """One model call of a step (``docqa.backends.calls.call_record``): the messages as sent,
    the reply, and ``finish_reason`` ``"length"`` when the reply was cut at ``max_new_tokens``
    (else ``"stop"``); ``truncated_tokens``, where present, counts the prompt tokens the backend
    cut from the middle of the prompt to fit the model's input."""

    messages: list[CallMessage]
    max_new_tokens: int
    reply: str
    finish_reason: str
    truncated_tokens: NotRequired[int]


class TextCut(TypedDict):
    """A page whose text a step read only in part, under a method's character budget
    (:mod:`docqa.methods.page_passages`): its length, the spans read, the characters left out."""

    #: 0-based page, as in ``pages``
    page: int
    chars: int
    #: [start, end) character spans of the page's text that the step read, in page order
    read: list[list[int]]
    left_out: int


class TraceStep(TypedDict, total=False):
    """One step of a trace; every key is optional, a method adds its own."""

    step: str
    agent: str
    action: str
    input: Any
    output: Any
    #: 0-based pages (of the document, or of the set, numbered end to end) the step looked at
    pages: list[int]
    #: images the step looked at besides whole pages (crops, zooms), as file paths
    images: list[str]
    #: the step's model usage, ``Usage.to_dict()``
    usage: dict[str, Any]
    #: the step's model calls, in order
    calls: list[ModelCall]
    #: the defined fallbacks the step's replies took
    fallbacks: list[str]
    #: the pages whose text the step read only in part (absent when it read every page whole)
    text_cut: list[TextCut]
    # the ``documents`` step
    documents: list[TraceDocument]
    missing: list[str]
    # the ``summary`` step (docqa.methods.docpilot.measures)
    stop: str
    steps: int
    pages_retrieved: int
    navigation_rounds: int
    evidence_recall: float | None
    recall_by_round: list[float]
    calls_per_action: dict[str, int]


def pages_cut(trace: Iterable[Mapping[str, Any]]) -> int:
    """How many pages a trace's steps read only in part (each page once, however many steps
    cut it)."""
    return len({cut["page"] for step in trace for cut in step.get("text_cut", ())})


def as_trace(records: Iterable[Mapping[str, Any]]) -> list[TraceStep]:
    """A method's step records as the steps of its prediction's trace.

    A record is a JSON object with the keys :class:`TraceStep` declares and the method's own
    (``retriever``, ``thought``, ``prompt_chars``...). A TypedDict cannot be left open to such
    keys for mypy yet (PEP 728's ``extra_items``), so a method hands its records over here,
    the one place they are taken as trace steps."""
    return cast(list[TraceStep], list(records))
