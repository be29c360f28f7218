"""MADQA's semantic judge (``anls_star_llm`` of OxRML/MADQA ``eval/metrics.py``), for
:mod:`docqa.metrics.madqa` with option ``accuracy: semantic``.

Per question, in the original's order: an empty prediction scores 0 and an answer whose JSON
(``json.dumps``) is longer than 2000 characters scores 0, both without asking the judge; an
answer whose ANLS* is 1 scores 1 without asking; a question without text scores its ANLS*
(the original asks the judge only when it has the question); any other answer goes to the
judge, whose verdict correct / partial / incorrect scores 1 / 0.5 / 0.

The prompt is MADQA's G-Eval prompt byte for byte (``prompt_files/madqa_geval_prompt.txt``,
source in ``prompt_files/SOURCES.md``), filled with ``str.format`` as the original does: the
question, ``json.dumps`` of the predicted answer and of the gold variants.

One difference, because docqa's backends take chat requests and answer with text: the original
calls Gemini (``gemini-2.5-flash``, temperature 0) with a function-calling tool,
``submit_judgment(judgment, main_issue, explanation)``, in mode ANY. Here the user message is
the same prompt, a system message describes that tool's three fields, and the model is asked to
end its reply with them as one JSON object; the last JSON object in the reply with a
``judgment`` key is the call. The judgment is read after stripping and lower-casing. The
original retries a reply without a call up to three times and then scores it 0; here (greedy
decoding and a response cache make a retry repeat the reply) such a reply, a judgment outside
the three, and a failed call score 0 at once, and the row says why (``judge_status``
``unparseable`` or ``failed``, ``step_error``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anls_star import anls_score

from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.metrics.base import Scores

PROMPT = (Path(__file__).with_name("prompt_files") / "madqa_geval_prompt.txt").read_text(
    encoding="utf-8"
)
#: the tool the original declares, as text: its fields and their allowed values
TOOL_FIELDS = (
    ("judgment", ("correct", "partial", "incorrect"), "your final judgment"),
    (
        "main_issue",
        (
            "none",
            "refusal",
            "wrong_content",
            "missing_unit",
            "no_yes_no",
            "list_format",
            "verbosity_medium",
            "verbosity_high",
        ),
        "the primary issue found, if any",
    ),
    ("explanation", (), "a brief explanation of your judgment"),
)
#: the original's default judge decodes greedily; its reply length is Gemini's default
GENERATION = Generation(max_new_tokens=1024, temperature=0.0)
MAX_ANSWER_CHARS = 2000
VERDICT_SCORES = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}
OK, SKIPPED, UNPARSEABLE, FAILED = "ok", "skipped", "unparseable", "failed"


def prompt_sha256() -> str:
    """The sha256 of the prompt template, recorded with every semantic score file."""
    return hashlib.sha256(PROMPT.encode("utf-8")).hexdigest()


def anls_star(predicted: Any, variants: Sequence[Any]) -> float:
    """ANLS* of ``predicted`` against the gold ``variants`` (each a list of strings, or one
    string), case-insensitive, the best variant's score; 0 without variants or prediction.

    As the original: a string prediction is a one-item list, every item and gold string is
    lower-cased, and each variant is scored with the ``anls_star`` package's
    ``anls_score(prediction_list, variant_list)`` (that argument order: both are lists, so
    the items are matched one to one by the Hungarian algorithm, and an unmatched item on
    either side scores 0).
    """
    if not variants:
        return 0.0
    items = [] if predicted is None else [predicted] if isinstance(predicted, str) else predicted
    if not items:
        return 0.0
    lowered = [str(item).lower() for item in items]
    best = 0.0
    for variant in variants:
        golds = [variant] if isinstance(variant, str) else variant
        value = anls_score(
            lowered, [str(gold).lower() for gold in golds], return_gt=False, return_key_scores=False
        )
        best = max(best, value)
    return best


def answer_chars(predicted: Any) -> int:
    """The length the original compares with 2000: that of the answer's JSON."""
    try:
        return len(json.dumps(predicted))
    except (TypeError, ValueError):
        return len(str(predicted))


def is_empty(predicted: Any) -> bool:
    """None, '', [] or a list of empty items: the original scores these 0 unasked."""
    if isinstance(predicted, list):
        return all(not item for item in predicted)
    return predicted is None or predicted == ""


def shortcut(predicted: Any, variants: Sequence[Any], question: str) -> tuple[float, str] | None:
    """The semantic score the original gives without asking the judge, and why; ``None`` when
    the judge must be asked."""
    if is_empty(predicted):
        return 0.0, "empty"
    if answer_chars(predicted) > MAX_ANSWER_CHARS:
        return 0.0, "too_long"
    anls = anls_star(predicted, variants)
    if anls >= 1.0:
        return 1.0, "anls_1"
    if not question:
        return anls, "no_question"
    return None


def _tool_text() -> str:
    lines = [
        "You cannot call functions in this conversation. Where the instructions say to call "
        "submit_judgment, end your reply with its arguments as one JSON object with these keys:"
    ]
    for name, allowed, meaning in TOOL_FIELDS:
        values = f": one of {', '.join(json.dumps(v) for v in allowed)}" if allowed else ""
        lines.append(f"- {json.dumps(name)}{values} ({meaning})")
    lines.append('For example: {"judgment": "correct", "main_issue": "none", "explanation": "..."}')
    return "\n".join(lines)


SYSTEM = _tool_text()


def judge_request(question: str, predicted: Any, variants: Any) -> ChatRequest:
    """The request for one answer: the tool as a system message, the G-Eval prompt filled in."""
    text = PROMPT.format(
        question=question, predicted=json.dumps(predicted), gold_variants=json.dumps(variants)
    )
    return ChatRequest((Message("system", (Part.of_text(SYSTEM),)), Message.user(text)), GENERATION)


@dataclass(frozen=True)
class Judgment:
    """What the judge said: ``score`` 1, 0.5 or 0; ``status`` ``ok``, ``unparseable`` or
    ``failed`` (then ``error`` says why and the score is 0)."""

    score: float
    status: str
    judgment: str = ""
    main_issue: str = ""
    output: str = ""
    error: str = ""


def parse_judgment(output: str) -> Judgment:
    """The last JSON object in the reply that has a ``judgment`` key (module docstring)."""
    decoder = json.JSONDecoder()
    call: Mapping[str, Any] | None = None
    for start, char in enumerate(output):
        if char != "{":
            continue
        try:
            value, _ = decoder.raw_decode(output, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and "judgment" in value:
            call = value
    if call is None:
        return Judgment(0.0, UNPARSEABLE, output=output, error="no JSON object with a judgment")
    judgment = str(call["judgment"]).strip().lower()
    issue = str(call.get("main_issue", ""))
    if judgment not in VERDICT_SCORES:
        why = f"judgment {call['judgment']!r} is not one of {tuple(VERDICT_SCORES)}"
        return Judgment(0.0, UNPARSEABLE, judgment, issue, output, why)
    return Judgment(VERDICT_SCORES[judgment], OK, judgment, issue, output)


def _row(judgment: Judgment, skipped: str = "") -> Scores:
    return {
        "semantic": judgment.score,
        "judgment": judgment.judgment,
        "main_issue": judgment.main_issue,
        "judge_status": judgment.status,
        "judge_skipped": skipped,
        "judge_output": judgment.output,
        "step_error": judgment.error,
    }


async def judge_semantic(
    client: ModelClient, items: Sequence[tuple[str, Any, Sequence[Any]]]
) -> list[Scores]:
    """Semantic scores of (question, predicted answer, gold variants) items: the shortcuts
    unasked, the rest asked all at once so the client batches them."""

    async def one(question: str, predicted: Any, variants: Sequence[Any]) -> Scores:
        known = shortcut(predicted, variants, question)
        if known is not None:
            return _row(Judgment(known[0], SKIPPED), skipped=known[1])
        try:
            completion = await client.complete(judge_request(question, predicted, variants))
        except Exception as error:  # one failed call must not lose the other verdicts
            why = f"judge call failed: {type(error).__name__}: {error}"
            return _row(Judgment(0.0, FAILED, error=why))
        return _row(parse_judgment(completion.text))

    return list(await asyncio.gather(*(one(*item) for item in items)))
