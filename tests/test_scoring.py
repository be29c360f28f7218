import json
from pathlib import Path
from typing import Any

import pytest

from docqa.jsonl import write_jsonl
from docqa.scoring import score_run, write_scores

META = {"dataset": "tiny", "method": "vanilla", "model": "m"}


def q(qid: str, answer: Any, fmt: str, pages: list[int], kind: str, sources: list[str]) -> dict:
    return {
        "question_id": qid, "doc_id": "d", "question": "?", "answer": answer,
        "answer_format": fmt, "evidence_pages": pages,
        "tags": {"kind": kind, "evidence_sources": sources},
    }


def p(qid: str, answer: str, pages: list[int], error: str = "", calls: int = 1) -> dict:
    return {
        "question_id": qid, "answer": answer, "pages": pages, "error": error,
        "usage": {"calls": calls, "tokens_in": 100, "tokens_out": 10, "seconds": 0.5},
    }


QUESTIONS = [
    q("q1", "17k", "Int", [0, 1], "chart", ["Chart"]),
    q("q2", "25%", "Float", [2], "chart", ["Chart", "Table"]),
    q("q3", "revenue grew", "Str", [3], "text", ["Text"]),
    q("q4", "3", "Int", [4], "table", ["Table"]),
    q("q5", "Not answerable", "None", [], "text", []),
]
PREDICTIONS = [
    p("q1", "The revenue was 17,000.", [0, 5]),       # num 1; recall 1/2, precision 1/2
    p("q2", "25", [2]),                                # num 0 (25 is not 25%); recall 1, prec 1
    p("q3", "The revenue grew quickly", [3], calls=2),  # f1 0.8
    # q4 has no prediction: num 0, recall 0
    p("q5", "", [1], error="backend timed out"),       # would be wrong anyway; f1 0, error
]


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, Path]:
    write_jsonl(tmp_path / "questions.jsonl", QUESTIONS)
    write_jsonl(tmp_path / "predictions.jsonl", PREDICTIONS)
    return tmp_path / "questions.jsonl", tmp_path / "predictions.jsonl"


def test_summary_by_hand(run: tuple[Path, Path]) -> None:
    scores = score_run(*run, "slideagent", {}, META)
    assert list(scores) == [
        "dataset", "method", "model", "metric", "options", "summary", "breakdown", "per_question",
    ]
    assert scores["options"] == {"overall": "per_question", "rel_tol": 0.0}
    assert scores["summary"] == {
        "questions": 5, "predictions": 4, "errors": 2, "missing": 1,
        # Num over q1 q2 q4: 1, 0, 0
        "num": 33.33, "num_questions": 3,
        # F1 over q3 q5: 0.8, 0 (error)
        "f1": 40.0, "f1_questions": 2,
        # (1 + 0 + 0.8 + 0 + 0) / 5
        "overall": 36.0,
        # recall over q1..q4 (q5 has no evidence): 0.5, 1, 1, 0
        "page_recall": 62.5,
        # precision over q1..q3 (q4 used no pages, q5 has no evidence): 0.5, 1, 1
        "page_precision": 83.33,
        "calls": 5, "seconds": 2.0, "tokens_in": 400, "tokens_out": 40,
    }


def test_per_question_rows(run: tuple[Path, Path]) -> None:
    scores = score_run(*run, "slideagent", {}, META)
    rows = {row["question_id"]: row for row in scores["per_question"]}
    assert list(rows) == ["q1", "q2", "q3", "q4", "q5"]
    assert rows["q1"] == {
        "question_id": "q1", "kind": "chart", "answer_format": "Int", "numeric": True,
        "score": 1.0, "num": 1, "f1": None, "page_recall": 0.5, "page_precision": 0.5,
        "answer": "The revenue was 17,000.", "gold": "17k", "error": "",
    }
    assert rows["q3"]["f1"] == 0.8 and rows["q3"]["num"] is None
    missing = rows["q4"]
    assert (missing["score"], missing["num"], missing["answer"]) == (0.0, 0, "")
    assert missing["error"] == "missing prediction"
    assert (missing["page_recall"], missing["page_precision"]) == (0.0, None)
    errored = rows["q5"]
    assert (errored["score"], errored["f1"], errored["error"]) == (0.0, 0.0, "backend timed out")


def test_a_correct_answer_with_an_error_still_scores_zero(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "q.jsonl", QUESTIONS[:1])
    write_jsonl(tmp_path / "p.jsonl", [p("q1", "17k", [0], error="parse failed")])
    scores = score_run(tmp_path / "q.jsonl", tmp_path / "p.jsonl", "slideagent", {}, META)
    assert scores["per_question"][0]["score"] == 0.0
    assert (scores["summary"]["errors"], scores["summary"]["missing"]) == (1, 0)


def test_breakdowns(run: tuple[Path, Path]) -> None:
    breakdown = score_run(*run, "slideagent", {}, META)["breakdown"]
    assert breakdown["kind"] == {
        "chart": {"questions": 2, "overall": 50.0},
        "table": {"questions": 1, "overall": 0.0},
        "text": {"questions": 2, "overall": 40.0},
    }
    # q2 counts under Chart and under Table; q5 has no source
    assert breakdown["evidence_source"] == {
        "Chart": {"questions": 2, "overall": 50.0},
        "Table": {"questions": 2, "overall": 0.0},
        "Text": {"questions": 1, "overall": 80.0},
    }
    assert breakdown["answer_format"]["Int"] == {"questions": 2, "overall": 50.0}
    assert breakdown["answer_format"]["None"] == {"questions": 1, "overall": 0.0}


def test_mean_of_num_and_f1_option(run: tuple[Path, Path]) -> None:
    summary = score_run(*run, "slideagent", {"overall": "mean_of_num_and_f1"}, META)["summary"]
    # (Num 1/3 + F1 0.4) / 2
    assert summary["overall"] == 36.67


def test_unknown_question_id_is_an_error_naming_id_and_file(run: tuple[Path, Path]) -> None:
    questions, predictions = run
    write_jsonl(predictions, [*PREDICTIONS, p("q99", "5", [])])
    with pytest.raises(ValueError, match="q99") as error:
        score_run(questions, predictions, "slideagent", {}, META)
    assert str(predictions) in str(error.value)


def test_two_predictions_for_one_question_is_an_error(run: tuple[Path, Path]) -> None:
    questions, predictions = run
    write_jsonl(predictions, [*PREDICTIONS, p("q1", "5", [])])
    with pytest.raises(ValueError, match="'q1' has two predictions"):
        score_run(questions, predictions, "slideagent", {}, META)


def test_bad_metric_option_or_name_or_meta(run: tuple[Path, Path]) -> None:
    with pytest.raises(ValueError, match="composite"):
        score_run(*run, "slideagent", {"composite": "x"}, META)
    with pytest.raises(KeyError, match="unknown metric 'bleu'"):
        score_run(*run, "bleu", {}, META)
    with pytest.raises(ValueError, match="model"):
        score_run(*run, "slideagent", {}, {"dataset": "tiny", "method": "vanilla"})


def test_empty_run_has_undefined_scores(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "q.jsonl", [])
    write_jsonl(tmp_path / "p.jsonl", [])
    scores = score_run(tmp_path / "q.jsonl", tmp_path / "p.jsonl", "slideagent", {}, META)
    summary = scores["summary"]
    assert summary["questions"] == 0
    assert summary["overall"] is None and summary["num"] is None and summary["page_recall"] is None


def test_write_scores_round_trips(run: tuple[Path, Path], tmp_path: Path) -> None:
    scores = score_run(*run, "slideagent", {}, META)
    out = tmp_path / "scores" / "tiny" / "vanilla" / "m.json"
    write_scores(scores, out)
    assert json.loads(out.read_text(encoding="utf-8")) == scores
    assert [path.name for path in out.parent.iterdir()] == ["m.json"]
