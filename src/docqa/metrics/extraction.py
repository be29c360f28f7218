"""Answer extraction, the first stage of MMLongBench-Doc's evaluation (also used by LongDocURL).

The official scorers compare a *short* answer with the gold; a model's free-form response is
first reduced to one. Two extractors:

- the model extractor (:func:`extract_answers`): MMLongBench-Doc's ``eval/extract_answer.py``
  with any configured backend: the user turn is the benchmark's extraction prompt
  (:data:`EXTRACTION_PROMPT`, its ``eval/prompt_for_answer_extraction.md`` byte for byte,
  Apache-2.0, mayubo2333/MMLongBench-Doc commit d73f0dc), followed by an assistant turn
  '\n\nQuestion:{question}\nAnalysis:{response}\n'; greedy, at most 256 new tokens. The reply
  is read as ``run_lvlm.py`` reads it: the text between 'Extracted answer:' and
  'Answer format:'. A reply without 'Extracted answer:', or a failed call, gives
  'Failed to extract', which scores 0, and the reason is recorded;
- the rule-based extractor (:func:`extract_by_rules`), used when no model is configured. It
  is docqa's, not the benchmark's, and it reads the gold's answer format, which the model
  extractor never sees: for numbers it takes the first number of the response, for lists it
  splits the response into items, otherwise it keeps the response without a leading 'The
  answer is' and a trailing period; a response saying the question cannot be answered
  becomes 'Not answerable'. Score tables say which extractor produced a score.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.core.question import Question
from docqa.metrics.base import Scores
from docqa.metrics.numbers import find_numbers
from docqa.metrics.unanswerable import says_not_answerable
from docqa.runtime.spec import Options

EXTRACTION_PROMPT = (
    "Given the question and analysis, you are tasked to extract answers with required"
    " formats from the free-form analysis. \n"
    "- Your extracted answers should be one of the following formats: (1) Integer, (2"
    ") Float, (3) String and (4) List. If you find the analysis the question can not "
    'be answered from the given documents, type "Not answerable". Exception: If the a'
    "nalysis only tells you that it can not read/understand the images or documents, "
    'type "Fail to answer".\n'
    "- Please make your response as concise as possible. Also note that your response"
    " should be formatted as below:\n"
    "```\n"
    "Extracted answer: [answer]\n"
    "Answer format: [answer format]\n"
    "```\n"
    "\n"
    "Please read the following example, then extract the answer from the model respon"
    "se and type it at the end of the prompt. \n"
    "\n"
    "---\n"
    "Question: List the primary questions asked about the services in this report.\n"
    "Analysis:  The primary questions asked about the services in the report for The "
    "Limes Residential Home are:\\n\\n1. Is the service safe?\\n2. Is the service effect"
    "ive?\\n3. Is the service caring?\\n4. Is the service responsive?\\n5. Is the servic"
    "e well-led?\n"
    "Extracted answer: ['Is the servife safe?', 'Is the service effective', 'Is the s"
    "erve caring?', 'Is the service responsive?', 'Is the service well-led?']\n"
    "Answer format: List\n"
    "\n"
    "---\n"
    "Question: How many regulations of the HSCA 2008 are breached in all according to"
    " this report?\n"
    "Analysis: According to the report, the provider breached 10 Health and Social Ca"
    "re Act 2008 (Regulated Activities) Regulations in total. Here are the specifics:"
    "\\n\\n1. Regulation 13: Safeguarding service users from abuse and improper treatme"
    "nt\\n2. Regulation 12: Safe care and treatment\\n3. Regulation 18: Staffing\\n4. Re"
    "gulation 11: Need for consent\\n5. Regulation 10: Dignity and respect\\n6. Regulat"
    "ion 9: Person-centred care\\n7. Regulation 17: Good governance\\n8. Regulation 18 "
    "(CQC Registration Regulations 2009): Notification of other incidents\\n9. Regulat"
    "ion 18: Failure to maintain an accurate and up-to-date care plan\\n10. Regulation"
    " 11: Failure to implement the Mental Capacity Act 2005 code of practice effectiv"
    "ely\\n\\nThese breaches involve issues concerning staffing, safeguarding, medicine"
    "s management, dignity and respect, consent, care planning, governance, and failu"
    "re to notify the CQC of incidents.\n"
    "Extracted answer: 10\n"
    "Answer format: Integer\n"
    "\n"
    "---\n"
    "Question: According to the survey that is the percentage of Chinese who are payi"
    "ng more or about the same attention to politics after Trump's election?\n"
    "Analysis: The survey provided does not specify the percentage of Chinese individ"
    "uals specifically who are paying more or about the same attention to politics af"
    "ter Trump's election. The report focuses primarily on American demographics and "
    "does not include specific details about the Chinese population in relation to th"
    "is question. If you need information about a different demographic or a summary "
    "of the findings from the American demographic, I can certainly help with that!\n"
    "Extracted answer: Not answerable\n"
    "Answer format: String\n"
    "\n"
    "---\n"
    "Question: How many quotations from male respondent over 50 years old are include"
    "d in this report?\n"
    "Analysis: The image you've provided appears to be a screenshot of a document wit"
    "h multiple charts. However, the text is too small and blurry to read accurately."
    " If you can provide a clearer image or more context, I might be able to help you"
    " with your question.\n"
    "Extracted answer: Fail to answer\n"
    "Answer format: String\n"
    "\n"
    "---"
)
PROMPT_SHA256 = hashlib.sha256(EXTRACTION_PROMPT.encode("utf-8")).hexdigest()
GENERATION = Generation(max_new_tokens=256, temperature=0.0)
FAILED = "Failed to extract"
NOT_ANSWERABLE = "Not answerable"

_LEAD_IN = re.compile(r"^\s*(?:the\s+)?(?:final\s+)?answer(?:\s+is)?\s*[:：]?\s*", re.IGNORECASE)
_ITEM_SPLIT = re.compile(r"\s*(?:\n+|;|,|\band\b)\s*")
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")
_FORMATS = {"Int": "Integer", "Integer": "Integer", "Float": "Float", "List": "List"}


@dataclass(frozen=True)
class Extraction:
    """A short answer and the format the extractor gives it (Integer, Float, String, List);
    ``error`` says why extraction failed (the answer is then 'Failed to extract')."""

    answer: str
    answer_format: str
    error: str = ""


def extraction_request(question: str, response: str) -> ChatRequest:
    """The request MMLongBench-Doc sends its extractor for one response."""
    analysis = f"\n\nQuestion:{question}\nAnalysis:{response}\n"
    messages = (Message.user(EXTRACTION_PROMPT), Message("assistant", (Part.of_text(analysis),)))
    return ChatRequest(messages, GENERATION)


def parse_extraction(output: str) -> Extraction:
    """The extractor's reply read as ``run_lvlm.py`` reads it (module docstring)."""
    before_format, _, after_format = output.partition("Answer format:")
    pieces = before_format.split("Extracted answer:")
    if len(pieces) < 2:
        return Extraction(FAILED, "", "no 'Extracted answer:' in the extractor's reply")
    return Extraction(pieces[1].strip(), after_format.strip())


async def extract_answers(
    client: ModelClient, items: Sequence[tuple[str, str]]
) -> list[Extraction]:
    """Short answers for (question, response) items, all asked at once so the client batches
    them. A failed call is that item's failed extraction, not an error of all."""

    async def extract(question: str, response: str) -> Extraction:
        try:
            completion = await client.complete(extraction_request(question, response))
        except Exception as error:  # one failed call must not lose the other extractions
            return Extraction(FAILED, "", f"extractor call failed: {type(error).__name__}: {error}")
        return parse_extraction(completion.text)

    return list(await asyncio.gather(*(extract(*item) for item in items)))


def extract_by_rules(response: str, answer_format: str | None) -> Extraction:
    """docqa's rule-based short answer for a response, guided by the gold's answer format
    (``Int``/``Integer``, ``Float``, ``List``; anything else is a string)."""
    text = _LEAD_IN.sub("", response.strip()).strip()
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    if says_not_answerable(text):
        return Extraction(NOT_ANSWERABLE, "String")
    kind = _FORMATS.get(answer_format or "", "String")
    if kind in ("Integer", "Float"):
        number = _first_number(text)
        return Extraction(number, kind) if number is not None else Extraction(text, "String")
    if kind == "List":
        return Extraction(text if text.startswith("[") else repr(_items(text)), "List")
    return Extraction(text, "String")


def _first_number(text: str) -> str | None:
    """The first number of ``text`` written plainly: no separators, scale applied, a
    percentage as its percent value with '%' ('17k' → '17000', '25.5%' → '25.5%')."""
    mentions = find_numbers(text)
    if not mentions:
        return None
    mention = mentions[0]
    written = text[mention.start : mention.end].lower()
    value = Decimal(repr(mention.value))
    if "%" in written or "percent" in written or "pct" in written:
        return f"{_plain(value * 100)}%"
    return _plain(value)


def _plain(value: Decimal) -> str:
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def _items(text: str) -> list[str]:
    items = [_BULLET.sub("", item).strip() for item in _ITEM_SPLIT.split(text)]
    return [item for item in items if item]


async def prepare(
    questions: Sequence[Question],
    answers: Sequence[str],
    options: Options,
    client: ModelClient | None,
) -> list[Scores]:
    """The model step of the metrics that score extracted answers: with a client, the model
    extractor; without, the rule-based one. Each question gets ``pred`` (the short answer
    scored), ``extracted_format`` and ``step_error``."""
    if client is None:
        found = [
            extract_by_rules(a, q.answer_format) for q, a in zip(questions, answers, strict=True)
        ]
    else:
        found = await extract_answers(
            client, [(q.question, a) for q, a in zip(questions, answers, strict=True)]
        )
    return [
        {"pred": e.answer, "extracted_format": e.answer_format, "step_error": e.error}
        for e in found
    ]


def describe(model: str | None) -> dict[str, Any]:
    """What extracted the answers (``model``: the extraction model, if any), for the score
    file."""
    if model is None:
        return {"extractor": "rules"}
    return {"extractor": "model", "model": model, "prompt_sha256": PROMPT_SHA256}
