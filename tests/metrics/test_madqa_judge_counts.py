"""A MADQA score file counts the judge replies that scored 0 without a verdict.

A thinking judge whose reply runs out of tokens before its JSON (Gemini 2.5 Flash counts its
thinking against ``max_tokens``) scores 0, as the original scores a reply without a call; the
score file must say how many did, or a truncated run passes for MADQA's number."""

from __future__ import annotations

from pathlib import Path

from helpers.score_files import META
from helpers.scripted_backend import ScriptedBackend

from docqa.backends.request import ChatRequest
from docqa.core.jsonl import write_jsonl
from docqa.core.prediction import Prediction, Usage
from docqa.core.question import Question
from docqa.stages.score import score_run

SEMANTIC = {"accuracy": "semantic", "model": "judge"}


def reply(request: ChatRequest) -> str:
    text = request.messages[-1].text
    if "Question: cut?" in text:
        return "Step 1 - the answer does not refuse. Step 2 - comparing the"  # out of tokens
    if "Question: boom?" in text:
        raise ConnectionError("judge unreachable")
    return '{"judgment": "correct", "main_issue": "none", "explanation": "same"}'


def test_unparseable_and_failed_judge_replies_are_counted(tmp_path: Path) -> None:
    texts = {"ok": "fine?", "cut": "cut?", "boom": "boom?", "exact": "exact?"}
    questions = [
        Question(qid, "d1", text, "Paris", "Str", evidence=[("d1", 0)])
        for qid, text in texts.items()
    ]
    answers = {"ok": "Paris, France", "cut": "Paris, France", "boom": "Paris, FR", "exact": "paris"}
    write_jsonl(tmp_path / "q.jsonl", [q.to_dict() for q in questions])
    write_jsonl(
        tmp_path / "p.jsonl",
        [Prediction(qid, answers[qid], [0], usage=Usage(calls=2)).to_dict() for qid in texts],
    )
    scores = score_run(
        tmp_path / "q.jsonl",
        tmp_path / "p.jsonl",
        "madqa",
        SEMANTIC,
        META,
        backend=ScriptedBackend(reply, max_batch_size=1),  # one failed call fails alone
    )
    rows = {row["question_id"]: row for row in scores["per_question"]}
    assert [rows[q]["judge_status"] for q in texts] == ["ok", "unparseable", "failed", "skipped"]
    assert [rows[q]["semantic"] for q in texts] == [1, 0, 0, 1]
    assert scores["aggregate"]["judge_unparseable"] == 1
    assert scores["aggregate"]["judge_failed"] == 1


def test_anls_accuracy_has_no_judge_counts(tmp_path: Path) -> None:
    question = Question("q", "d1", "fine?", "Paris", "Str", evidence=[("d1", 0)])
    write_jsonl(tmp_path / "q.jsonl", [question.to_dict()])
    write_jsonl(tmp_path / "p.jsonl", [Prediction("q", "Paris", [0]).to_dict()])
    scores = score_run(tmp_path / "q.jsonl", tmp_path / "p.jsonl", "madqa", {}, META)
    assert "judge_unparseable" not in scores["aggregate"]
