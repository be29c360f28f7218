"""MADQA's official evaluation agrees with the original code on its casebook, and its semantic
judge runs offline against a scripted model.

``tests/data/madqa_casebook.json`` holds the cases and what OxRML/MADQA's own
``eval/metrics.py`` and ``eval/evaluate.py`` (``evaluate_single``, ``aggregate_metrics``, the
Kuiper, wasted-effort and bias-correction functions) gave on them, run outside this repository
with the judge replaced by each case's scripted verdict. Here the same cases go through docqa's
``madqa`` metric, and every value must agree (floats to 1e-9).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.score_files import META
from helpers.scripted_backend import ScriptedBackend

from docqa.backends.client import ModelClient
from docqa.backends.request import ChatRequest
from docqa.core.jsonl import write_jsonl
from docqa.core.prediction import Prediction, Usage
from docqa.core.question import Question, documents_fields
from docqa.metrics import METRICS, madqa, madqa_judge, resolve_options
from docqa.stages.score import score_run

BOOK = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "madqa_casebook.json").read_text("utf-8")
)
CASES = {case["id"]: case for case in BOOK["questions"]}
METRIC = METRICS.get("madqa")
ANLS = resolve_options("madqa", {})
SEMANTIC_ENTRY = {"accuracy": "semantic", "model": "judge"}
SEMANTIC = resolve_options("madqa", SEMANTIC_ENTRY)
# sha256 of _GEVAL_PROMPT_TEMPLATE's value in OxRML/MADQA eval/metrics.py at 978fa76
GEVAL_SHA256 = "1e1ecd382a0ef4999e1a183e78a4870ef79301cfedc6873bfd08adefce4efab4"
TOL = 1e-9


def question_of(case: dict[str, Any]) -> Question:
    fields = documents_fields(case["doc_ids"], [tuple(ref) for ref in case["evidence"]])
    answer = case["answer"]
    return Question(
        question_id=case["id"],
        question=case["question"],
        answer=answer,
        answer_format="List" if isinstance(answer, list) else "Str",
        tags={"document_category": case["category"], "domain": case["domain"]},
        original={"answer_variants": case["variants"]} if case["keep_original"] else {},
        **fields,
    )


def prediction_of(case: dict[str, Any], question: Question) -> Prediction:
    """The case's answer (a list, which the original was given as a list, as the JSON list a
    method writes); citations as pages of the question's document where they all are."""
    refs = [(doc, page) for doc, page in case["citations"]]
    own = not question.over_several and all(doc == question.doc_id for doc, _ in refs)
    pred = case["pred"]
    return Prediction(
        case["id"],
        json.dumps(pred) if isinstance(pred, list) else pred or "",
        pages=[page for _, page in refs] if own else [],
        page_refs=[] if own else refs,
        usage=Usage(calls=case["effort"]),
    )


def asked_question(request: ChatRequest) -> str:
    """The question a judge request is about, read back from the filled G-Eval prompt."""
    text = request.messages[-1].text
    return text.split("Question: ", 1)[1].split("\nPredicted Answer: ", 1)[0]


def judge_reply(request: ChatRequest) -> str:
    """Each case's scripted verdict, after some reasoning with a brace in it; 'garbage' is a
    reply without a judgment, which the original scores 0 as a reply without a call."""
    question = asked_question(request)
    verdict = next(c["verdict"] for c in CASES.values() if c["question"].strip() == question)
    if verdict == "garbage":
        return "I would need to see the document first."
    call = {"judgment": verdict, "main_issue": "none", "explanation": "scripted"}
    return f'Step 2: the gold {{"variants": 1}} was compared.\n{json.dumps(call)}'


def judged(questions: list[Question], answers: list[str]) -> tuple[list[dict], ScriptedBackend]:
    backend = ScriptedBackend(judge_reply)

    async def run() -> list[dict]:
        client = ModelClient(backend)
        try:
            assert METRIC.prepare is not None
            return await METRIC.prepare(questions, answers, SEMANTIC, client)
        finally:
            await client.close()

    return asyncio.run(run()), backend


def rows_of(ids: list[str], semantic: bool) -> list[dict[str, Any]]:
    """The cases' rows as the score stage builds them: the step's result, then the scores."""
    questions = [question_of(CASES[i]) for i in ids]
    predictions = [prediction_of(CASES[i], q) for i, q in zip(ids, questions, strict=True)]
    prepared: list[dict[str, Any]] = [{} for _ in ids]
    if semantic:
        prepared, _ = judged(questions, [p.answer for p in predictions])
    options = SEMANTIC if semantic else ANLS
    return [
        {**step, **METRIC.score(q, p, step, options), "tags": q.tags}
        for q, p, step in zip(questions, predictions, prepared, strict=True)
    ]


def close(got: Any, expected: Any) -> bool:
    if expected is None or got is None:
        return got is expected
    return abs(float(got) - float(expected)) <= TOL


# --- the prompt ------------------------------------------------------------------------------


def test_geval_prompt_is_the_original_byte_for_byte() -> None:
    data = (
        Path(madqa_judge.__file__).with_name("prompt_files") / "madqa_geval_prompt.txt"
    ).read_bytes()
    assert hashlib.sha256(data).hexdigest() == GEVAL_SHA256 == madqa_judge.prompt_sha256()
    assert sorted(re.findall(r"\{(\w+)\}", data.decode())) == [
        "gold_variants",
        "predicted",
        "question",
    ]


def test_judge_request_fills_the_prompt_as_the_original_and_asks_for_the_tool_as_json() -> None:
    request = madqa_judge.judge_request("Same state?", "No — MA", [["No"], ["no", "x"]])
    system, user = request.messages
    assert user.text == madqa_judge.PROMPT.format(
        question="Same state?",
        predicted='"No \\u2014 MA"',  # json.dumps, ASCII-escaped as the original sends it
        gold_variants='[["No"], ["no", "x"]]',
    )
    assert system.role == "system"
    for name in ("submit_judgment", '"judgment"', '"main_issue"', '"explanation"', '"partial"'):
        assert name in system.text
    assert request.generation.temperature == 0.0


@pytest.mark.parametrize(
    ("reply", "score", "status"),
    [
        ('{"judgment": "correct", "main_issue": "none", "explanation": "ok"}', 1.0, "ok"),
        (
            'Reasoning...\n```json\n{"judgment": "partial", "main_issue": "list_format"}\n```',
            0.5,
            "ok",
        ),
        ('{"judgment": "incorrect"} then {"judgment": "Correct "}', 1.0, "ok"),  # the last call
        # a reply shaped as a function call: its arguments are the object with the judgment
        ('{"name": "submit_judgment", "args": {"judgment": "partial"}}', 0.5, "ok"),
        ('{"judgment": "maybe"}', 0.0, "unparseable"),
        ("correct", 0.0, "unparseable"),
        ("{broken", 0.0, "unparseable"),
    ],
)
def test_judgments_are_read_from_the_last_json_call(reply: str, score: float, status: str) -> None:
    judgment = madqa_judge.parse_judgment(reply)
    assert (judgment.score, judgment.status) == (score, status)
    assert bool(judgment.error) == (status != "ok")


# --- the casebook ----------------------------------------------------------------------------


def test_casebook_is_varied() -> None:
    cases = list(CASES.values())
    assert len(cases) >= 40
    hops = {case["expected"]["hop_type"] for case in cases}
    assert hops == {"single", "cross_page", "cross_doc"}
    assert {case["verdict"] for case in cases} >= {"correct", "partial", "incorrect", "garbage"}
    assert any(case["expected"]["judge_asked"] for case in cases)
    assert any(not case["expected"]["judge_asked"] for case in cases)
    assert any(0 < case["expected"]["anls"] < 1 for case in cases)


def test_per_question_scores_agree_with_evaluate_single() -> None:
    for cid, case in CASES.items():
        question = question_of(case)
        got = METRIC.score(question, prediction_of(case, question), {}, ANLS)
        expected = case["expected"]
        for key, theirs in (
            ("anls", "anls"),
            ("citation_doc_f1", "doc_f1"),
            ("citation_page_f1", "page_f1"),
        ):
            assert close(got[key], expected[theirs]), (cid, key, got[key], expected[theirs])
        assert got["correct"] == float(expected["correct"]), cid
        assert got["hop_type"] == expected["hop_type"], cid
        assert got["effort"] == case["effort"], cid


def test_semantic_scores_agree_and_the_judge_is_asked_only_where_the_original_asks() -> None:
    ids = list(CASES)
    questions = [question_of(CASES[i]) for i in ids]
    predictions = [prediction_of(CASES[i], q) for i, q in zip(ids, questions, strict=True)]
    prepared, backend = judged(questions, [p.answer for p in predictions])
    asked = {asked_question(request) for request in backend.requests}
    assert len(backend.requests) == len(asked)  # one call per question asked
    for cid, q, p, step in zip(ids, questions, predictions, prepared, strict=True):
        expected = CASES[cid]["expected"]
        assert (q.question.strip() in asked) == expected["judge_asked"], cid
        got = METRIC.score(q, p, step, SEMANTIC)
        assert close(got["semantic"], expected["semantic"]), (cid, got, expected)
        assert got["correct"] == float(expected["semantic_correct"]), cid
        assert step["judge_status"] in ("skipped", "ok", "unparseable"), cid


def test_unasked_cases_and_partial_verdicts() -> None:
    """ANLS* = 1 and empty answers score without a call; 'partial' is 0.5 and counts correct."""
    ids = ["exact", "empty", "long_2001", "near_0.6"]
    questions = [question_of(CASES[i]) for i in ids]
    answers = [CASES[i]["pred"] for i in ids]
    prepared, backend = judged(questions, answers)
    assert [asked_question(r) for r in backend.requests] == ["Ten letters, four off?"]
    skipped = [(step["judge_status"], step["judge_skipped"], step["semantic"]) for step in prepared]
    assert skipped[:3] == [
        ("skipped", "anls_1", 1.0),
        ("skipped", "empty", 0.0),
        ("skipped", "too_long", 0.0),
    ]
    assert (prepared[3]["judgment"], prepared[3]["semantic"]) == ("partial", 0.5)
    got = METRIC.score(questions[3], Prediction("near_0.6", answers[3]), prepared[3], SEMANTIC)
    assert got["correct"] == 1.0


@pytest.mark.parametrize("mode", ["anls", "semantic"])
def test_aggregates_agree_with_aggregate_metrics(mode: str) -> None:
    semantic = mode == "semantic"
    headline = "mean_semantic" if semantic else "accuracy"
    for entry in BOOK["sets"]:
        got = madqa.aggregate(rows_of(entry["ids"], semantic), semantic)
        expected, hops = entry[mode]["overall"], entry[mode]["by_hop_type"]
        where = (entry["name"], mode)
        assert got["questions"] == expected["n"], where
        pairs = {
            "accuracy": expected["accuracy"],
            "mean_anls": expected["mean_anls"],
            "citation_doc_f1": expected["doc_f1"],
            "citation_page_f1": expected["page_f1"],
            "kuiper": None if expected["kuiper_degenerate"] else expected["kuiper_stat"],
            "wasted_effort_ratio": expected["wasted_effort_ratio"],
            "effort_correct": expected["mean_steps_correct"],
            "effort_incorrect": expected["mean_steps_incorrect"],
            "overall": expected[headline],
            "x_page": hops.get("cross_page", {}).get(headline),
            "x_doc": hops.get("cross_doc", {}).get(headline),
        }
        if semantic:
            low, high = expected["semantic_ci"]
            pairs |= {"semantic_accuracy": expected["mean_semantic"]}
            pairs |= {"semantic_ci_low": low, "semantic_ci_high": high}
        for key, value in pairs.items():
            assert close(got[key], value), (*where, key, got[key], value)
        assert got["x_page_questions"] == hops.get("cross_page", {}).get("n", 0), where


def test_kuiper_and_wasted_effort_agree() -> None:
    for entry in BOOK["efforts"]:
        efforts, correct = entry["efforts"], entry["correct"]
        kuiper = entry["kuiper"]
        expected = None if kuiper["degenerate"] else kuiper["kuiper_stat"]
        assert close(madqa.kuiper(efforts, correct), expected), entry
        if entry["wasted"] is not None:
            got = madqa.wasted_effort(efforts, correct)
            assert close(got["ratio"], entry["wasted"]["ratio"]), entry
            assert close(got["effort_correct"], entry["wasted"]["mean_steps_correct"]), entry
            assert close(got["effort_incorrect"], entry["wasted"]["mean_steps_incorrect"]), entry


def test_bias_correction_and_interval_agree() -> None:
    for entry in BOOK["semantic_aggregates"]:
        got, expected = madqa.semantic_aggregate(entry["scores"]), entry["expected"]
        if not entry["scores"]:  # the original reports zeros for no scores; docqa None
            assert expected["n_samples"] == 0
            assert set(got.values()) == {None}
            continue
        assert close(got["semantic_raw"], expected["raw_score"]), entry
        assert close(got["semantic_accuracy"], expected["adjusted_score"]), entry
        assert close(got["semantic_ci_low"], expected["ci_lower"]), entry
        assert close(got["semantic_ci_high"], expected["ci_upper"]), entry
    for entry in BOOK["intervals"]:
        raw, n, q0, q1, m0, m1 = entry["args"]
        low, high = madqa.confidence_interval(raw, n, q0, q1, m0, m1)
        assert close(low, entry["interval"][0]), entry
        assert close(high, entry["interval"][1]), entry
        assert close(madqa.bias_adjusted(raw, q0, q1), entry["adjusted"]), entry
        assert close(madqa.standard_error(raw, n, q0, q1), entry["se"]), entry


def test_anls_star_agrees_on_list_and_odd_predictions() -> None:
    for entry in BOOK["anls"]:
        got = madqa_judge.anls_star(entry["pred"], entry["variants"])
        assert close(got, entry["expected"]), entry


# --- as a metric of the score stage ----------------------------------------------------------


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="metrics.madqa.model: .*semantic needs a judge"):
        resolve_options("madqa", {"accuracy": "semantic"})
    with pytest.raises(ValueError, match="only used with accuracy: semantic"):
        resolve_options("madqa", {"model": "judge"})
    with pytest.raises(ValueError, match="metrics.madqa.accuracy: must be one of 'anls' or"):
        resolve_options("madqa", {"accuracy": "exact"})


def test_score_run_reports_the_originals_semantic_accuracy_and_hop_types(tmp_path: Path) -> None:
    """The whole set through the score stage: a missing prediction scores 0 unasked, and the
    headline, X-Page and X-Doc are the original's numbers (as percentages)."""
    entry = next(entry for entry in BOOK["sets"] if entry["name"] == "all")
    questions = [question_of(CASES[i]) for i in entry["ids"]]
    predictions = [prediction_of(CASES[i], q) for i, q in zip(entry["ids"], questions, strict=True)]
    write_jsonl(tmp_path / "q.jsonl", [q.to_dict() for q in questions])
    answered = [p.to_dict() for p in predictions if CASES[p.question_id]["pred"] is not None]
    write_jsonl(tmp_path / "p.jsonl", answered)
    backend = ScriptedBackend(judge_reply)
    scores = score_run(
        tmp_path / "q.jsonl", tmp_path / "p.jsonl", "madqa", SEMANTIC_ENTRY, META, backend=backend
    )
    expected, hops = entry["semantic"]["overall"], entry["semantic"]["by_hop_type"]
    assert scores["summary"]["overall"] == round(100 * expected["mean_semantic"], 2)
    assert scores["summary"]["missing"] == 1
    assert scores["aggregate"]["x_doc"] == round(100 * hops["cross_doc"]["mean_semantic"], 2)
    assert scores["aggregate"]["x_page"] == round(100 * hops["cross_page"]["mean_semantic"], 2)
    breakdown = scores["breakdown"]["hop_type"]
    assert breakdown["cross_doc"]["overall"] == scores["aggregate"]["x_doc"]
    assert breakdown["cross_doc"]["questions"] == hops["cross_doc"]["n"]
    assert scores["summary"]["scorer"]["prompt_sha256"] == GEVAL_SHA256
    asked = sum(case["expected"]["judge_asked"] for case in CASES.values())
    assert len(backend.requests) == asked


def test_a_json_list_answer_is_matched_item_by_item() -> None:
    answer_items, anls_star = madqa.answer_items, madqa_judge.anls_star
    assert answer_items('["Alpha", "Beta"]') == ["Alpha", "Beta"]
    assert answer_items("Alpha, Beta") == "Alpha, Beta"
    assert answer_items("[1, 2]") == "[1, 2]"  # not a list of strings: one string
    assert answer_items("[not json") == "[not json"
    gold = [["Alpha", "Beta", "Gamma"]]
    assert anls_star(answer_items('["gamma", "alpha", "beta"]'), gold) == 1.0
    assert anls_star(answer_items("Alpha, Beta and Gamma"), gold) == 0.0
