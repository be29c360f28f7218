"""Answer extraction: MMLongBench-Doc's model extractor and docqa's rule-based one."""

import asyncio

import pytest
from helpers.scripted_backend import ScriptedBackend

from docqa.backends.client import ModelClient
from docqa.metrics.extraction import (
    EXTRACTION_PROMPT,
    PROMPT_SHA256,
    Extraction,
    extract_answers,
    extract_by_rules,
    extraction_request,
    parse_extraction,
)

# sha256 of eval/prompt_for_answer_extraction.md at mayubo2333/MMLongBench-Doc d73f0dc
UPSTREAM_SHA256 = "96a22c3003c22801f1f19717be45070b1d6b9ce76b42e171e044f63b641de659"


def test_the_prompt_is_the_benchmarks_byte_for_byte() -> None:
    assert PROMPT_SHA256 == UPSTREAM_SHA256
    assert EXTRACTION_PROMPT.endswith("Answer format: String\n\n---")


def test_request_is_the_prompt_then_the_analysis_as_an_assistant_turn() -> None:
    request = extraction_request("How many?", "I count 5.")
    user, assistant = request.messages
    assert (user.role, user.text) == ("user", EXTRACTION_PROMPT)
    analysis = "\n\nQuestion:How many?\nAnalysis:I count 5.\n"
    assert (assistant.role, assistant.text) == ("assistant", analysis)
    assert (request.generation.max_new_tokens, request.generation.temperature) == (256, 0.0)


@pytest.mark.parametrize(
    ("reply", "answer", "fmt"),
    [
        ("Extracted answer: 10\nAnswer format: Integer", "10", "Integer"),
        ("Extracted answer: ['a', 'b']\nAnswer format: List\n", "['a', 'b']", "List"),
        ("blah Extracted answer:  Not answerable ", "Not answerable", ""),
    ],
)
def test_reply_is_read_as_run_lvlm_reads_it(reply: str, answer: str, fmt: str) -> None:
    assert parse_extraction(reply) == Extraction(answer, fmt)


def test_a_reply_without_an_answer_fails() -> None:
    failed = parse_extraction("Answer format: Integer\nExtracted answer: 10")
    assert failed.answer == "Failed to extract"
    assert "no 'Extracted answer:'" in failed.error


def test_model_extraction_through_the_client() -> None:
    def reply(request) -> str:
        if "Analysis:boom" in request.messages[1].text:
            raise RuntimeError("no route")
        return "Extracted answer: 17000\nAnswer format: Integer"

    async def run():
        client = ModelClient(ScriptedBackend(reply, max_batch_size=1))
        try:
            return await extract_answers(client, [("q", "It was 17k."), ("q", "boom")])
        finally:
            await client.close()

    ok, failed = asyncio.run(run())
    assert ok == Extraction("17000", "Integer")
    assert failed.answer == "Failed to extract"
    assert "no route" in failed.error


@pytest.mark.parametrize(
    ("response", "fmt", "answer", "named"),
    [
        ("The answer is 17k.", "Int", "17000", "Integer"),
        ("About 2.5 million people", "Integer", "2500000", "Integer"),
        ("It grew by 25.5%.", "Float", "25.5%", "Float"),
        ("0.1", "Float", "0.1", "Float"),
        ("no number here", "Float", "no number here", "String"),
        ("Circle, Rectangle and Square", "List", "['Circle', 'Rectangle', 'Square']", "List"),
        ("- a\n- b", "List", "['a', 'b']", "List"),
        ("['x', 'y']", "List", "['x', 'y']", "List"),
        ("Answer: Paris.", "Str", "Paris", "String"),
        ("It cannot be determined from the document.", "Int", "Not answerable", "String"),
        ("", "Str", "", "String"),
    ],
)
def test_rules(response: str, fmt: str, answer: str, named: str) -> None:
    assert extract_by_rules(response, fmt) == Extraction(answer, named)
