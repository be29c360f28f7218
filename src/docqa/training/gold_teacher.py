"""``gold_teacher``: a scripted teacher policy that drives DocPilot from the reference.

The offline stand-in for the paper's teacher model (backend ``gold_teacher``, no weights). It
reads the reference note that ``docqa.training.teacher.Teacher`` puts in front of each prompt
(gold answer and evidence pages) and answers each of DocPilot's prompts the way a good agent
would: the orchestrator navigates until an evidence page is a candidate, extracts the evidence
pages, checks the answer with Analyze and answers; the navigator picks the evidence pages it
is shown; the extractor copies the lines of an evidence page that hold the answer (or its
first lines); the analyzer accepts; the answer agent gives the gold answer. It never sees
anything the environment did not show, except the note. Without a note it refuses (an error
naming the fix), so it cannot be used as a model under evaluation by mistake.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from docqa.backends import BACKENDS
from docqa.backends.base import Backend, Completion, ModelOptions
from docqa.backends.request import IMAGE_AS_TEXT, ChatRequest
from docqa.core.prediction import Usage
from docqa.runtime.spec import Field
from docqa.training.teacher import REFERENCE_PREFIX, ROLE_OPENINGS, role_of

NOTE = re.compile(
    re.escape(REFERENCE_PREFIX) + r" answer: (?P<answer>.*?) \| evidence pages: (?P<pages>[^\n]*)"
)
IMAGE_TEXT_OPEN = IMAGE_AS_TEXT.split("{text}")[0]


class GoldTeacherOptions(ModelOptions):
    max_batch_size: int = Field(16, ge=1, description="requests answered in one batch")
    vision: bool = Field(
        False, description="true: reads image parts as images (false: their OCR text)"
    )


class GoldTeacher(Backend):
    """See the module docstring; without ``vision`` it reads pages as their OCR text."""

    def __init__(self, options: GoldTeacherOptions) -> None:
        self.options = options
        self.max_batch_size = options.max_batch_size

    @property
    def identity(self) -> dict[str, Any]:
        return {"id": "gold-teacher", "policy": 1}

    def validate(self, request: ChatRequest) -> None:
        if not self.options.vision:
            request.as_text_only()

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        return [Completion(self.reply(r), Usage(calls=1)) for r in requests]

    def reply(self, request: ChatRequest) -> str:
        text = "".join(
            part.text if part.kind == "text" else f"{IMAGE_TEXT_OPEN}{part.text}\n"
            for message in request.messages
            for part in message.parts
        )
        note = NOTE.search(text)
        if note is None:
            raise ValueError(
                "gold_teacher: the request has no reference note; this backend is a teacher "
                "for synthesize_trajectories only, not a model to evaluate"
            )
        answer = note["answer"].strip()
        gold = {int(n) for n in re.findall(r"\d+", note["pages"])}
        body = text[note.end() :].lstrip("\n")
        role = role_of_text(body)
        policy = POLICIES.get(role)
        if policy is None:
            return "none"
        return policy(body, answer, gold)


def role_of_text(body: str) -> str:
    return role_of(ChatRequest.prompt(body))


def _after_example(body: str, role: str) -> str:
    """The prompt's request part, after its fixed instructions and example."""
    return body[len(ROLE_OPENINGS[role]) :] if role != "orchestrator" else body


def orchestrate(body: str, answer: str, gold: set[int]) -> str:
    available = re.findall(r"Available: ([^\n]*)", body)[-1].split(", ")
    state = re.findall(r"Candidate pages: ([^.]*)\. Read: ([^.]*)\.", body)[-1]
    candidates, read = (set(map(int, re.findall(r"\d+", part))) for part in state)
    question = re.findall(r"\nQuestion: ([^\n]*)", body)[-1]
    to_read = sorted((gold & candidates) - read)
    if read and gold <= read:
        if "answer" in available:
            return _decision(f"The evidence supports {answer}.", "answer", {"answer": answer})
        if "analyze" in available:
            thought = f"{answer} looks like the answer; I check it against the evidence."
            return _decision(thought, "analyze", {"answer": answer})
    if to_read and "extract" in available:
        thought = "The candidate pages should hold the evidence; I read them."
        return _decision(thought, "extract", {"pages": to_read, "goal": question})
    if "navigate" in available:
        thought = "I need to find the pages about this question."
        return _decision(thought, "navigate", {"query": question})
    action = "answer" if "answer" in available else available[0]
    return _decision("I have what I can find.", action, {"answer": answer})


def _decision(thought: str, action: str, arguments: dict[str, Any]) -> str:
    return f" {thought}\nAction: {action}\nArguments: {json.dumps(arguments)}"


def pick_pages(body: str, answer: str, gold: set[int]) -> str:
    request = _after_example(body, "navigate")
    shown = {int(n) for n in re.findall(r"(?m)^p\. (\d+):", request)}
    for listed in re.findall(r"Candidates so far: ([\d, ]+)", request):
        shown |= {int(n) for n in re.findall(r"\d+", listed)}
    picked = sorted(gold & shown)
    if picked:
        return f" {', '.join(map(str, picked))}\nMore: no"
    return " none\nMore: yes"


def read_facts(body: str, answer: str, gold: set[int], role: str = "extract") -> str:
    request = _after_example(body, role)
    sections = re.split(r"(?m)^### (?:Page|Crop \d+ of page) (\d+)[^\n]*\n", request)
    facts = []
    for number, content in zip(sections[1::2], sections[2::2], strict=True):
        page = int(number)
        if page not in gold:
            continue
        lines = [
            " ".join(line.split())
            for line in content.split("Question:")[0].splitlines()
            if line.strip() and not line.startswith("[")
        ]
        holding = [line for line in lines if answer.lower() in line.lower()]
        facts += [f"p. {page}: {line}" for line in (holding or lines[:3])]
    return "\n" + "\n".join(facts[:8]) if facts else " none"


def read_crops(body: str, answer: str, gold: set[int]) -> str:
    return read_facts(body, answer, gold, "focus_read")


def plan_focus(body: str, answer: str, gold: set[int]) -> str:
    return ' [{"op": "crop", "box": [0, 0, 1000, 1000]}]'


def write_code(body: str, answer: str, gold: set[int]) -> str:
    return "result = None\n"


def check(body: str, answer: str, gold: set[int]) -> str:
    return f" yes\nCoverage: sufficient\nAdvice: answer {answer}."


def give_answer(body: str, answer: str, gold: set[int]) -> str:
    return f" {answer}"


POLICIES = {
    "orchestrator": orchestrate,
    "navigate": pick_pages,
    "extract": read_facts,
    "focus_plan": plan_focus,
    "focus_read": read_crops,
    "solve": write_code,
    "analyze": check,
    "answer": give_answer,
}


@BACKENDS.register("gold_teacher", options=GoldTeacherOptions)
def create_gold_teacher(options: GoldTeacherOptions, model_dir: Path) -> GoldTeacher:
    return GoldTeacher(options)
