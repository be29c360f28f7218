"""The benchmarks' own judges: each prompt is its original byte for byte, the request is built
and the reply read as the original does, and each is a metric a dataset can name."""

from __future__ import annotations

import hashlib

import pytest
from helpers.scripted_backend import ScriptedBackend

from docqa.core.question import Question
from docqa.metrics import METRICS, resolve_options
from docqa.metrics.judge import (
    CODE_PROMPT,
    PROMPT_FILES,
    judge_request,
    parse_verdict,
)

# sha256 of Anni-Zou/DocBench evaluation_prompt.txt at 774227ecd6299606c25ecabfbee9df12f924fa28
DOCBENCH_SHA256 = "784a6d6cf4f8151765b169c633f46e62d12dcd77f8941172e72edbf8b30f9bde"
DOCBENCH_TAIL = (
    "Question: {{question}}\nUser Answer: {{sys_ans}}\nReference Answer: {{ref_ans}}\n"
    "Reference Text: {{ref_text}}\n\nEvaluation Form (score ONLY):\n- Correctness: "
)


def finragbench_v_original(query_text: str, expected_answer: str, actual_answer: str) -> str:
    """zhaosuifeng/FinRAGBench-V 4de6374, FinRAGBench-V/eval/eval_generation.py, the f-string
    of evaluate_answer_correctness, as written there."""
    return (
        f"Question: {query_text}\n"
        f"Ground_truth: {expected_answer}\n"
        f"Model_answer: {actual_answer}\n"
        f"Is the model answer correct? You only need to output 'true' for correct or 'false' for incorrect. "  # noqa: E501
        f"If the model answer does not contain any information, it should be judged as 'false'."
    )


# sha256 of aiming-lab/MDocAgent config/agent/base.yaml `eval_system_prompt` at df34e4c, the
# YAML literal block's value (yaml.safe_load), before str.format fills it
MDOCAGENT_CODE_SHA256 = "8324753c93210e182a10ef692f71bdfd75b2e2bb23afd61ed6d0c94efafb14f3"


def test_mdocagent_code_prompt_is_the_original_value() -> None:
    """mdocagent_main.yaml judges with prompt: code; docs/fidelity.md says it is byte for byte."""
    assert hashlib.sha256(CODE_PROMPT.encode("utf-8")).hexdigest() == MDOCAGENT_CODE_SHA256
    filled = judge_request("Q?", "A", "G", "code").messages[0].text
    assert filled.startswith("Question: Q?\nPredicted Answer: A\nGround Truth Answer: G\n\n")
    assert filled.endswith('e.g. {"binary_correctness": 1}\n')


def test_docbench_prompt_is_the_original_file() -> None:
    data = (PROMPT_FILES / "docbench_evaluation_prompt.txt").read_bytes()
    assert hashlib.sha256(data).hexdigest() == DOCBENCH_SHA256
    assert data.decode().endswith(DOCBENCH_TAIL)  # the fields evaluate.py replaces


def test_docbench_request_replaces_the_fields_after_its_system_message() -> None:
    request = judge_request("Q {{x}}?", "42", "forty-two", "docbench", reference="p. 3 says 42")
    system, user = request.messages
    assert (system.role, system.text) == ("system", "You are a helpful evaluator.")
    original = (PROMPT_FILES / "docbench_evaluation_prompt.txt").read_text()
    expected = (
        original.replace("{{question}}", "Q {{x}}?")
        .replace("{{sys_ans}}", "42")
        .replace("{{ref_ans}}", "forty-two")
        .replace("{{ref_text}}", "p. 3 says 42")
    )
    assert user.text == expected


@pytest.mark.parametrize(
    ("reply", "score"),
    [("1", 1.0), ("- Correctness: 1", 1.0), ("0", 0.0), ("", 0.0), ("0" * 20 + "1", 0.0)],
)
def test_docbench_reply_is_correct_when_1_is_in_its_first_20_characters(
    reply: str, score: float
) -> None:
    assert parse_verdict(reply, "docbench").correct == score


def test_finragbench_v_prompt_renders_as_the_original_f_string() -> None:
    request = judge_request("What was revenue?", "1.2bn", "$1.2 billion", "finragbench_v")
    (user,) = request.messages
    assert user.text == finragbench_v_original("What was revenue?", "$1.2 billion", "1.2bn")


@pytest.mark.parametrize(("reply", "score"), [("True", 1.0), ("false", 0.0), ("untrue", 1.0)])
def test_finragbench_v_reply_is_correct_when_it_contains_true(reply: str, score: float) -> None:
    # the original's own rule: "true" anywhere in the lower-cased reply ("untrue" included)
    assert parse_verdict(reply, "finragbench_v").correct == score


def test_benchmark_judges_are_metrics_with_their_prompt_by_default() -> None:
    import asyncio

    from docqa.backends.client import ModelClient
    from docqa.core.prediction import Prediction

    metric = METRICS.get("docbench_judge")
    options = resolve_options("docbench_judge", {"model": "judge"})
    assert options.model_dump()["prompt"] == "docbench"
    assert resolve_options("finragbench_v_judge", {}).model_dump()["prompt"] == "finragbench_v"
    question = Question(
        "q", "d", "How many?", "3", "Str", original={"evidence": "three items are listed"}
    )
    backend = ScriptedBackend(lambda request: "1")

    async def judge() -> list:
        client = ModelClient(backend)
        try:
            return await metric.prepare([question], ["3"], options, client)
        finally:
            await client.close()

    (verdict,) = asyncio.run(judge())
    assert verdict["score"] == 1.0
    assert "Reference Text: three items are listed" in backend.requests[0].messages[1].text
    assert metric.score(question, Prediction("q", "3"), verdict, options)["score"] == 1.0
