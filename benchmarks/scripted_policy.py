"""A scripted policy over a real backend, for timing agentic methods on random-weight models.

A model with random weights answers with random tokens, so an agent driven by it would take
random (mostly refused) actions and its questions would cost nothing like real ones. Here every
request still goes through the real model — its prompt, its page images and its batch, on the
real device — but the *text* the method receives is the policy's scripted reply for that
request, and the real model decodes about as many tokens as that reply has (the request's
``max_new_tokens``, capped at the reply's length in the model's tokenizer). The method then
parses the scripted reply and goes on exactly as it would with a real model that wrote it: the
next request, its prompt, its images and when it is sent are all the method's own.

A policy decides from the request alone (no state across calls), so it works with any number of
questions in flight and any batching: it recognises which agent or module is asking by the
prompt text, finds the question in the prompt, and answers with that question's gold answer
and its gold evidence page where it picks a page.

Trajectories (what each method does per question with these policies):

- ``text_rag``: one read call; the gold answer.
- ``mdocagent``: general, critical (a valid clue dict), text, image and summarizer agents (a
  valid ``{"Answer": ...}``): 5 calls.
- ``docpilot``: navigate (the navigator picks the gold page if shown, else the first shown),
  extract that page, focus on it (one zoom), solve (a one-line program, run in the sandbox),
  analyze, answer: 6 decisions and 7 module calls, 13 calls.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from docqa.backends.base import Backend, Completion
from docqa.backends.request import ChatRequest
from docqa.backends.transformers_lm import cut_at_stop
from docqa.core.question import UNANSWERABLE, Question
from docqa.methods.docpilot import prompts as docpilot_prompts
from docqa.methods.mdocagent import prompts as mdocagent_prompts

Policy = Callable[[ChatRequest], str]


@dataclass
class CallRecord:
    """One ``generate`` call of the real model: its batch and what it cost."""

    batch_size: int
    seconds: float
    tokens_in: int
    tokens_out: int
    image_tokens: int
    peak_memory_mb: float


class PolicyBackend(Backend):
    """Sends every request to ``model`` (decoding as many tokens as the scripted reply has,
    at most the request's ``max_new_tokens``) and answers with ``policy(request)``.

    ``count_tokens`` counts a reply's tokens in the model's tokenizer; ``token_cap`` (if set)
    caps the tokens decoded per request, for quick runs on a CPU. ``model`` is shared and not
    closed here: its owner closes it. ``calls`` records each real ``generate`` call.
    """

    def __init__(
        self,
        model: Backend,
        policy: Policy,
        count_tokens: Callable[[str], int],
        max_batch_size: int,
        label: str,
        token_cap: int | None = None,
    ) -> None:
        self.model = model
        self.policy = policy
        self.count_tokens = count_tokens
        self.max_batch_size = max_batch_size
        self.label = label
        self.token_cap = token_cap
        self.calls: list[CallRecord] = []

    def _decoded(self, request: ChatRequest, reply: str) -> int:
        """How many tokens the real model decodes for a request whose reply is ``reply``."""
        tokens = min(request.generation.max_new_tokens, self.count_tokens(reply))
        if self.token_cap is not None:
            tokens = min(tokens, self.token_cap)
        return max(1, tokens)

    @property
    def identity(self) -> dict[str, Any]:
        return {**self.model.identity, "policy": self.label}

    def validate(self, request: ChatRequest) -> None:
        self.model.validate(request)

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        replies = [cut_at_stop(self.policy(r), r.generation.stop) for r in requests]
        sized = [
            replace(
                request,
                generation=replace(
                    request.generation, max_new_tokens=self._decoded(request, reply)
                ),
            )
            for request, reply in zip(requests, replies, strict=False)
        ]
        started = time.perf_counter()
        completions = self.model.generate(sized)
        self.calls.append(
            CallRecord(
                batch_size=len(requests),
                seconds=time.perf_counter() - started,
                tokens_in=sum(c.usage.tokens_in for c in completions),
                tokens_out=sum(c.usage.tokens_out for c in completions),
                image_tokens=sum(c.usage.image_tokens for c in completions),
                peak_memory_mb=max(c.usage.peak_memory_mb for c in completions),
            )
        )
        return [
            Completion(reply, c.usage, c.truncated_tokens, c.retried_max_pixels)
            for reply, c in zip(replies, completions, strict=False)
        ]


def text_parts(request: ChatRequest) -> str:
    """The request's text parts, joined (image parts left out)."""
    return "".join(p.text for m in request.messages for p in m.parts if p.kind == "text")


def image_texts(request: ChatRequest) -> str:
    """The OCR texts carried by the request's image parts, one per line."""
    return "\n".join(p.text for m in request.messages for p in m.parts if p.kind == "image")


@dataclass
class Gold:
    """The questions by their text: which question a prompt is about, found by its text."""

    questions: list[Question]
    _by_text: dict[str, Question] = field(init=False)

    def __post_init__(self) -> None:
        # longest first, so a question that contains another one's text wins
        self._by_text = {
            q.question.strip(): q
            for q in sorted(self.questions, key=lambda q: len(q.question), reverse=True)
        }

    def find(self, text: str) -> Question | None:
        for question_text, question in self._by_text.items():
            if question_text and question_text in text:
                return question
        return None

    def answer(self, text: str) -> str:
        question = self.find(text)
        if question is None:
            return UNANSWERABLE
        answer = question.answer
        return str(answer[0] if isinstance(answer, list) and answer else answer)

    def page(self, text: str) -> int | None:
        """The question's first evidence page, 1-based (None: unknown or unanswerable)."""
        question = self.find(text)
        if question is None or not question.evidence:
            return None
        return question.evidence[0][1] + 1


def _topic(question: str, words: int = 8) -> str:
    return " ".join(question.rstrip("?").split()[:words])


def text_rag_policy(gold: Gold) -> Policy:
    def reply(request: ChatRequest) -> str:
        return " " + gold.answer(text_parts(request))

    return reply


#: what the summarizer's input holds of each agent's answer (the agents' scripted replies say it)
_SAYS_ANSWER = re.compile(r"the answer is (.+?)\.(?:\s|$)")


def mdocagent_policy(gold: Gold) -> Policy:
    """General, critical, text, image and summarizing agents, told apart by their prompts."""

    def reply(request: ChatRequest) -> str:
        text = text_parts(request)
        last = request.messages[-1].text
        if last == mdocagent_prompts.CRITICAL:
            topic = _topic(gold.find(text).question if gold.find(text) else "the question")
            return json.dumps(
                {
                    "text": f"Look for the lines about {topic} and the numbers printed next to "
                    "them on the retrieved page.",
                    "image": f"Look at the chart or table about {topic} and read its labels "
                    "and values carefully.",
                }
            )
        if text.startswith(mdocagent_prompts.SUMMARIZER):
            found = _SAYS_ANSWER.search(text)
            return json.dumps({"Answer": found.group(1) if found else UNANSWERABLE})
        answer = gold.answer(text)
        question = gold.find(text)
        topic = _topic(question.question) if question else "the question"
        if mdocagent_prompts.GENERAL in text:
            return (
                f"The retrieved page text and the page image both concern {topic}. The image "
                "shows the same figures as the text, and the two sources agree on the values "
                "that matter here, so no discrepancy needs to be resolved. Cross-checking the "
                f"text against the image, the answer is {answer}."
            )
        if mdocagent_prompts.TEXT in text:
            return (
                f"The text lists the details about {topic}. Reading the relevant line and the "
                f"value next to it, the answer is {answer}."
            )
        if mdocagent_prompts.IMAGE in text:
            return (
                f"The image shows a slide about {topic}; its title, labels and values are "
                f"legible. Reading them, the answer is {answer}."
            )
        raise ValueError("mdocagent policy: a request of no known agent:\n" + text[-400:])

    return reply


#: DocPilot's trajectory: one action per orchestrator step
DOCPILOT_PLAN = ("navigate", "extract", "focus", "solve", "analyze", "answer")
_STEP = re.compile(r"Step (\d+) of \d+\. Available: ([a-z, ]+)\nThought:\s*$")
_QUESTION = re.compile(r"\nQuestion: (.*)\nDocument: \d+ pages\.")
_CANDIDATES = re.compile(r"Candidate pages: ([0-9, ]+|none)\. Read:")
_SHOWN = re.compile(r"p\. (\d+):")
_PAGE = re.compile(r"[Pp]age (\d+)")


def _decision(thought: str, action: str, arguments: dict[str, Any]) -> str:
    return f" {thought}\nAction: {action}\nArguments: {json.dumps(arguments)}"


def docpilot_policy(gold: Gold) -> Policy:
    """The orchestrator follows ``DOCPILOT_PLAN``; each module gets a reply it can use."""

    def orchestrator(text: str) -> str:
        step = _STEP.search(text)
        if step is None:
            raise ValueError("docpilot policy: no 'Step N of M. Available:' line:\n" + text[-400:])
        number, available = int(step.group(1)), step.group(2).split(", ")
        question = _QUESTION.findall(text)[-1]  # the first one is the example's
        candidates = _CANDIDATES.findall(text)
        pages = [int(p) for p in candidates[-1].split(", ")] if candidates[-1:] != ["none"] else []
        page = pages[0] if pages else 1
        answer = gold.answer(question)
        action = DOCPILOT_PLAN[min(number, len(DOCPILOT_PLAN)) - 1]
        if action not in available:
            action = "answer" if "answer" in available else available[0]
        topic = _topic(question)
        arguments: dict[str, Any] = {
            "navigate": {"query": topic},
            "extract": {"pages": [page], "goal": topic},
            "focus": {"page": page, "goal": f"the values and labels about {topic}"},
            "solve": {"task": "the number of evidence items collected so far"},
            "analyze": {"answer": answer},
            "answer": {"answer": answer},
        }[action]
        thought = {
            "navigate": "I need to find the pages that hold the evidence for this question.",
            "extract": f"Page {page} looks relevant; I read it to collect the facts.",
            "focus": f"The values on page {page} are small; I look at them closely.",
            "solve": "I compute from the evidence to check the numbers.",
            "analyze": f"{answer} is my candidate answer; I check it against the evidence.",
            "answer": f"The evidence supports {answer}; I give the answer.",
        }[action]
        return _decision(thought, action, arguments)

    def reply(request: ChatRequest) -> str:
        text = text_parts(request)
        if text.startswith("You are DocPilot."):
            return orchestrator(text)
        if text.startswith(docpilot_prompts.NAVIGATOR):
            shown = [int(p) for p in _SHOWN.findall(image_texts(request))]
            wanted = gold.page(text)
            page = wanted if wanted in shown else (shown[0] if shown else 1)
            return f" {page}\nMore: no"
        if text.startswith(docpilot_prompts.FOCUS_PLANNER.split("{")[0]):
            return '[{"op": "zoom", "box": [0, 0, 600, 600], "factor": 2}]'
        if text.startswith((docpilot_prompts.EXTRACTOR, docpilot_prompts.FOCUS_READER)):
            read = text.split(docpilot_prompts.EXTRACTOR)[-1].split(docpilot_prompts.FOCUS_READER)
            pages = _PAGE.findall(read[-1])
            page = pages[0] if pages else "1"
            words = " ".join(image_texts(request).split()[:10]) or "the slide title"
            return f"p. {page}: {words}\np. {page}: the value shown is {gold.answer(text)}"
        if text.startswith(docpilot_prompts.SOLVER.split("{")[0]):
            return "items = [e for e in evidence if e['content']]\nresult = len(items)\n```"
        if text.startswith(docpilot_prompts.ANALYZER):
            return f" yes\nCoverage: sufficient\nAdvice: answer {gold.answer(text)}."
        if text.startswith(docpilot_prompts.ANSWERER):
            return " " + gold.answer(text)
        raise ValueError("docpilot policy: a request of no known module:\n" + text[:400])

    return reply


POLICIES: dict[str, Callable[[Gold], Policy]] = {
    "text_rag": text_rag_policy,
    "mdocagent": mdocagent_policy,
    "docpilot": docpilot_policy,
}
