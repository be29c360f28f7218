"""MDocAgent's judge, through docqa's client, against a scripted backend."""

import asyncio
import json

import pytest
from helpers.scripted_backend import ScriptedBackend

from docqa.backends.client import ModelClient
from docqa.metrics import judge
from docqa.metrics.judge import (
    aggregate,
    judge_answers,
    judge_request,
    parse_verdict,
    prompt_sha256,
    score,
)


def says(reply: str) -> ScriptedBackend:
    return ScriptedBackend(lambda request: reply)


def test_prompt_is_the_papers_and_is_hashed() -> None:
    request = judge_request("How many?", "5", ["5"])
    text = request.messages[0].text
    assert text.startswith("Question: How many?\nPredicted Answer: 5\nGround Truth Answer: ['5']")
    assert '{"correctness": 1}' in text
    assert request.generation.max_new_tokens == 256
    assert request.generation.temperature == 0.0
    assert prompt_sha256("paper") != prompt_sha256("code")
    assert len(prompt_sha256()) == 64
    assert '{"binary_correctness": 1}' in judge_request("q", "a", "g", "code").messages[0].text
    with pytest.raises(ValueError, match="prompt"):
        judge_request("q", "a", "g", "mine")


@pytest.mark.parametrize(
    ("reply", "correct"),
    [
        ('{"correctness": 1}', 1.0),
        ('Sure! {"correctness": 0} Hope this helps', 0.0),
        ('{"correctness": "1"}', 1.0),
        ('```json\n{"correctness": true}\n```', 1.0),
    ],
)
def test_verdicts(reply: str, correct: float) -> None:
    verdict = parse_verdict(reply)
    assert (verdict.correct, verdict.status, verdict.output) == (correct, "ok", reply)


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("1", "no JSON object"),
        ("{correctness: 1}", "not valid JSON"),
        ('{"binary_correctness": 1}', "no 'correctness' key"),
        ('{"correctness": 0.9}', "not 0 or 1"),
        ('{"correctness": 2}', "not 0 or 1"),
        ("} {", "no JSON object"),
    ],
)
def test_unparseable_replies_have_no_verdict(reply: str, why: str) -> None:
    verdict = parse_verdict(reply)
    assert (verdict.correct, verdict.status) == (None, "unparseable")
    assert why in verdict.error


def test_code_prompt_reads_its_own_key() -> None:
    assert parse_verdict('{"binary_correctness": 1}', "code").correct == 1.0
    assert parse_verdict('{"correctness": 1}', "code").correct is None


def test_score_judges_one_answer() -> None:
    backend = says('{"correctness": 1}')
    got = score("Paris", "paris, France", question="Capital?", backend=backend)
    assert got == {
        "score": 1.0,
        "judge_status": "ok",
        "judge_output": '{"correctness": 1}',
        "step_error": "",
    }
    assert "Predicted Answer: paris, France" in backend.requests[0].messages[0].text


def test_unjudged_answers_count_as_wrong_or_are_left_out() -> None:
    backend = says("I think it is right")
    assert score("a", "a", question="q", backend=backend)["score"] == 0.0
    left_out = score("a", "a", question="q", backend=backend, unjudged="exclude")
    assert left_out["score"] is None
    assert left_out["judge_status"] == "unparseable"


def ask_four(backend: ScriptedBackend) -> list[judge.Verdict]:
    async def run() -> list[judge.Verdict]:
        client = ModelClient(backend)
        try:
            items = [("q", answer, "gold") for answer in ("right", "wrong", "boom", "right")]
            return await judge_answers(client, items)
        finally:
            await client.close()

    return asyncio.run(run())


def test_many_answers_are_asked_together() -> None:
    backend = ScriptedBackend(lambda request: '{"correctness": 1}', max_batch_size=8)
    assert [v.correct for v in ask_four(backend)] == [1.0] * 4
    assert backend.batch_sizes == [4]  # one batch


def test_a_failed_call_is_that_answers_verdict() -> None:
    def reply(request) -> str:
        text = request.messages[0].text
        if "Predicted Answer: boom" in text:
            raise RuntimeError("server down")
        return json.dumps({"correctness": int("Predicted Answer: right" in text)})

    verdicts = ask_four(ScriptedBackend(reply, max_batch_size=1))
    assert [v.correct for v in verdicts] == [1.0, 0.0, None, 1.0]
    assert verdicts[2].status == "failed"
    assert "server down" in verdicts[2].error


def test_aggregate_counts_what_had_no_verdict() -> None:
    rows = [
        judge.verdict_score(parse_verdict(reply), "exclude")
        for reply in ('{"correctness": 1}', '{"correctness": 0}', "???")
    ]
    rows.append({"score": 0.0})  # a failed prediction, never sent to the judge
    assert aggregate(rows) == {
        "accuracy": pytest.approx(1 / 3),
        "questions": 4,
        "judged": 2,
        "unparseable": 1,
        "failed_calls": 0,
    }


def test_the_judge_samples_at_its_metric_temperature() -> None:
    """FinRAGBench-V's judge runs at the API default the original leaves in place (1); the
    other judges decode greedily unless their entry says otherwise."""
    from docqa.core.question import Question
    from docqa.metrics import METRICS, resolve_options

    seen: list[float] = []

    def reply(request) -> str:
        seen.append(request.generation.temperature)
        return "true"

    question = Question.from_dict(
        {"question_id": "q", "doc_id": "d", "question": "q", "answer": "a", "answer_format": "Str"}
    )
    for name, entry, expected in [
        ("finragbench_v_judge", {"model": "gpt-4o"}, 1.0),
        ("judge", {"model": "gpt-4o"}, 0.0),
        ("judge", {"model": "gpt-4o", "temperature": 0.7}, 0.7),
    ]:
        options = resolve_options(name, entry)
        prepare = METRICS.get(name).prepare
        assert prepare is not None

        async def run(prepare=prepare, options=options) -> None:
            client = ModelClient(ScriptedBackend(reply))
            try:
                await prepare([question], ["a"], options, client)
            finally:
                await client.close()

        asyncio.run(run())
        assert seen[-1] == expected, name
