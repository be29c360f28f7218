"""MDocAgent's evaluation: a model judges each answer correct (1) or not (0) against the gold.

The prompt (``prompt="paper"``) is the evaluation prompt printed in the MDocAgent paper's
appendix (arXiv 2503.13964); its typeset quotes are plain quotes here and its bullet list is
one line per bullet. ``prompt="code"`` is the one in the authors' repository
(``config/agent/base.yaml`` of aiming-lab/MDocAgent), which asks for ``binary_correctness``.
Both are sent as one user message, greedy, at most 256 new tokens, as the authors did.

The reply is read as MDocAgent reads it: the text from the first '{' to the last '}' is parsed
as JSON and the prompt's key read as an integer. MDocAgent scores every reply it cannot read
as 0; here such a reply has no verdict: the row records why, the aggregate counts it under
``unparseable`` (or ``failed_calls`` when the model call itself failed), and option
``unjudged`` says whether it scores 0 (``wrong``, MDocAgent's number, the default) or is
left out (``exclude``). A value other than 0 or 1 (MDocAgent would truncate 0.9 to 0) is
unparseable too.

Two benchmarks' own judges are ported too, each its original prompt byte for byte (files in
``prompt_files/``, sources in ``prompt_files/SOURCES.md``) and its own reading of the reply:

- ``prompt="docbench"``: DocBench's ``evaluation_prompt.txt`` with the question, the answer,
  the reference answer and the reference text (the row's ``evidence``) filled in by plain
  replacement, after the system message "You are a helpful evaluator."; the answer is correct
  when "1" occurs in the reply's first 20 characters (``eval_result.ipynb``);
- ``prompt="finragbench_v"``: FinRAGBench-V's ``eval_generation.py`` prompt; correct when the
  reply contains "true" (any case).

Every reply to those two is a verdict, as in the originals. They are registered as metrics of
their own, ``docbench_judge`` and ``finragbench_v_judge`` (this judge with that prompt as the
default), so that one experiment can judge each benchmark by its own protocol.

Every score records the judge's model identity and the sha256 of the prompt template.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, get_args

from docqa.backends.base import Backend
from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.metrics import METRICS
from docqa.metrics.base import Metric, Scores, judge_client
from docqa.runtime.spec import Field, Options, refers_to

PAPER_PROMPT = """Question: {question}
Predicted Answer: {answer}
Ground Truth Answer: {gt}
Please evaluate whether the predicted answer is correct.
- If the answer is correct, return 1.
- If the answer is incorrect, return 0.
Return only a string formatted as a valid JSON dictionary that can be parsed using json.loads, \
for example: {{"correctness": 1}}"""

CODE_PROMPT = """Question: {question}
Predicted Answer: {answer}
Ground Truth Answer: {gt}

Please evaluate if the predicted answer is correct compared to the ground truth.
Score the answer on:
Binary correctness (0-1): 1 if the answer is correct, 0 if it is incorrect

Return only a string with these scores in a dictionary and can be parsed by json.loads, \
e.g. {{"binary_correctness": 1}}
"""

PROMPT_FILES = Path(__file__).with_name("prompt_files")
DOCBENCH_PROMPT = (PROMPT_FILES / "docbench_evaluation_prompt.txt").read_text(encoding="utf-8")
DOCBENCH_SYSTEM = "You are a helpful evaluator."
FINRAGBENCH_V_PROMPT = (PROMPT_FILES / "finragbench_v_eval_generation.txt").read_text(
    encoding="utf-8"
)

Prompt = Literal["paper", "code", "docbench", "finragbench_v"]
PROMPTS: dict[str, str] = {
    "paper": PAPER_PROMPT,
    "code": CODE_PROMPT,
    "docbench": DOCBENCH_PROMPT,
    "finragbench_v": FINRAGBENCH_V_PROMPT,
}
VERDICT_KEYS = {"paper": "correctness", "code": "binary_correctness"}
GENERATION = Generation(max_new_tokens=256, temperature=0.0)
Unjudged = Literal["wrong", "exclude"]
UNJUDGED_CHOICES: tuple[str, ...] = get_args(Unjudged)

OK, UNPARSEABLE, FAILED = "ok", "unparseable", "failed"


def prompt_sha256(prompt: str = "paper") -> str:
    """The sha256 of a prompt template, recorded with every score it produced."""
    return hashlib.sha256(_template(prompt).encode("utf-8")).hexdigest()


def _template(prompt: str) -> str:
    try:
        return PROMPTS[prompt]
    except KeyError:
        raise ValueError(f"judge: prompt {prompt!r} is not one of {sorted(PROMPTS)}") from None


def judge_request(
    question: str,
    pred: str,
    gold: Any,
    prompt: str = "paper",
    reference: str = "",
    temperature: float = 0.0,
) -> ChatRequest:
    """The request asking the judge about one answer (a list gold is shown as Python shows it,
    as MDocAgent's ``str.format`` does). ``reference`` is DocBench's reference text."""
    template = _template(prompt)
    generation = replace(GENERATION, temperature=temperature)
    if prompt == "docbench":  # evaluate.py: str.replace, in this order, and a system message
        text = (
            template.replace("{{question}}", question)
            .replace("{{sys_ans}}", pred)
            .replace("{{ref_ans}}", str(gold))
            .replace("{{ref_text}}", reference)
        )
        system = Message("system", (Part.of_text(DOCBENCH_SYSTEM),))
        return ChatRequest((system, Message.user(text)), generation)
    if prompt == "finragbench_v":
        return ChatRequest.prompt(
            template.format(question=question, gold=gold, answer=pred), generation
        )
    text = template.format(question=question, answer=pred, gt=gold)
    return ChatRequest.prompt(text, generation)


@dataclass(frozen=True)
class Verdict:
    """The judge's decision on one answer: ``correct`` is 1.0, 0.0 or ``None`` (no verdict;
    ``status`` says why: ``unparseable`` or ``failed``, with ``error``)."""

    correct: float | None
    status: str
    output: str = ""
    error: str = ""


def parse_verdict(output: str, prompt: str = "paper") -> Verdict:
    """Read the judge's reply: JSON from the first '{' to the last '}', the prompt's key, 0/1."""
    _template(prompt)  # an unknown prompt name is an error
    if prompt == "docbench":  # eval_result.ipynb: '"1" in eval[:20]'
        return Verdict(1.0 if "1" in output[:20] else 0.0, OK, output)
    if prompt == "finragbench_v":  # eval_generation.py: '"true" in response.lower()'
        return Verdict(1.0 if "true" in output.strip().lower() else 0.0, OK, output)
    key = VERDICT_KEYS[prompt]
    start, end = output.find("{"), output.rfind("}")
    if start < 0 or end < start:
        return Verdict(None, UNPARSEABLE, output, "no JSON object in the judge's reply")
    try:
        data = json.loads(output[start : end + 1])
    except json.JSONDecodeError as error:
        return Verdict(None, UNPARSEABLE, output, f"judge's reply is not valid JSON: {error}")
    if not isinstance(data, dict) or key not in data:
        return Verdict(None, UNPARSEABLE, output, f"judge's reply has no {key!r} key")
    value = data[key]
    if isinstance(value, str):
        value = value.strip()
    if value not in (0, 1, "0", "1"):
        return Verdict(None, UNPARSEABLE, output, f"{key} is {value!r}, not 0 or 1")
    return Verdict(float(int(value)), OK, output)


async def judge_answers(
    client: ModelClient,
    items: Sequence[tuple[Any, ...]],
    prompt: str = "paper",
    temperature: float = 0.0,
) -> list[Verdict]:
    """Verdicts on (question, prediction, gold) items, all asked at once so the client batches
    them. A failed call is that item's verdict (status ``failed``), not an error of all."""

    async def ask(question: str, pred: str, gold: Any, reference: str = "") -> Verdict:
        try:
            request = judge_request(question, pred, gold, prompt, reference, temperature)
            completion = await client.complete(request)
        except Exception as error:  # one failed call must not lose the other verdicts
            return Verdict(None, FAILED, "", f"judge call failed: {type(error).__name__}: {error}")
        return parse_verdict(completion.text, prompt)

    return list(await asyncio.gather(*(ask(*item) for item in items)))


def verdict_score(verdict: Verdict, unjudged: str = "wrong") -> dict[str, Any]:
    """The per-question score of a verdict (module docstring, option ``unjudged``)."""
    if unjudged not in UNJUDGED_CHOICES:
        raise ValueError(f"judge: unjudged={unjudged!r} is not one of {UNJUDGED_CHOICES}")
    correct = verdict.correct
    if correct is None and unjudged == "wrong":
        correct = 0.0
    return {
        "score": correct,
        "judge_status": verdict.status,
        "judge_output": verdict.output,
        "step_error": verdict.error,
    }


def score(
    gold: Any,
    pred: str,
    *,
    answer_format: str | None = None,
    question: str | None = None,
    backend: Backend,
    prompt: str = "paper",
    unjudged: str = "wrong",
) -> dict[str, Any]:
    """Judge one answer with ``backend``, through a :class:`ModelClient` made for the call.

    For many answers use :func:`judge_answers`, which batches them and can use a response
    cache. ``answer_format`` is not used by the judge. Returns ``score`` (1.0, 0.0, or ``None``
    when excluded) and the verdict's ``judge_status``, ``judge_output`` and ``step_error``.
    """

    async def run() -> Verdict:
        client = ModelClient(backend)
        try:
            return (await judge_answers(client, [(question or "", pred, gold)], prompt))[0]
        finally:
            await client.close()

    return verdict_score(asyncio.run(run()), unjudged)


def aggregate(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``accuracy``: the mean score over the rows that have one; with the number of
    ``questions``, ``judged`` ones, ``unparseable`` replies and ``failed_calls`` (a question
    whose prediction failed is not sent to the judge and counts in none of the three)."""
    scored = [float(row["score"]) for row in rows if row["score"] is not None]
    statuses = [row.get("judge_status") for row in rows]
    return {
        "accuracy": sum(scored) / len(scored) if scored else None,
        "questions": len(rows),
        "judged": statuses.count(OK),
        "unparseable": statuses.count(UNPARSEABLE),
        "failed_calls": statuses.count(FAILED),
    }


class JudgeOptions(Options):
    """The options of metric ``judge``; ``docbench_judge`` and ``finragbench_v_judge`` differ
    only in their default ``prompt``."""

    model: str | None = refers_to(
        "models", None, "the judge model (required to score; null only where no run uses it)"
    )
    prompt: Prompt = Field(
        default="paper", description="the judge's prompt (module docqa.metrics.judge)"
    )
    unjudged: Unjudged = Field(
        default="wrong",
        description="a question the judge gave no verdict: scored wrong, or excluded",
    )
    temperature: float = Field(
        0.0,
        ge=0,
        le=2,
        description="the judge's sampling temperature",
    )


class DocBenchJudgeOptions(JudgeOptions):
    """The options of metric ``docbench_judge``: the judge with DocBench's prompt."""

    prompt: Prompt = Field(
        default="docbench", description="the judge's prompt (module docqa.metrics.judge)"
    )


class FinRAGBenchVJudgeOptions(JudgeOptions):
    """The options of metric ``finragbench_v_judge``: the judge with FinRAGBench-V's prompt."""

    prompt: Prompt = Field(
        default="finragbench_v", description="the judge's prompt (module docqa.metrics.judge)"
    )
    temperature: float = Field(
        1.0,
        ge=0,
        le=2,
        description="the judge's sampling temperature: 1, the API default that FinRAGBench-V's "
        "evaluation leaves in place (it sends none)",
    )


async def _prepare(
    questions: Sequence[Question],
    answers: Sequence[str],
    options: JudgeOptions,
    client: ModelClient | None,
) -> list[Scores]:
    client = judge_client("judge", options.model, client)
    items = [
        (q.question, answer, q.answer, _reference(q))
        for q, answer in zip(questions, answers, strict=True)
    ]
    verdicts = await judge_answers(client, items, options.prompt, options.temperature)
    return [verdict_score(verdict, options.unjudged) for verdict in verdicts]


def _score_question(
    question: Question, prediction: Prediction, prepared: Scores, options: JudgeOptions
) -> Scores:
    """The verdict ``prepare`` obtained; a question whose prediction failed was not judged."""
    return {"score": prepared.get("score", 0.0)}


def _reference(question: Question) -> str:
    """DocBench's reference text: the row's ``evidence``."""
    return str(question.original.get("evidence") or question.tags.get("evidence") or "")


JUDGE: Metric[JudgeOptions] = Metric(
    score=_score_question,
    aggregate=lambda rows, options: aggregate(rows),
    columns={"overall": "accuracy"},
    row_score="score",
    prepare=_prepare,
    describe=lambda options: {
        "judge": options.model,
        "prompt": options.prompt,
        "prompt_sha256": prompt_sha256(options.prompt),
        "unjudged": options.unjudged,
        "temperature": options.temperature,
    },
)

METRICS.register("judge", options=JudgeOptions)(JUDGE)
METRICS.register("docbench_judge", options=DocBenchJudgeOptions)(JUDGE)
METRICS.register("finragbench_v_judge", options=FinRAGBenchVJudgeOptions)(JUDGE)
