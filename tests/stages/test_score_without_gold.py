"""Questions without a gold answer (your own documents): answered and listed, but left out of
the answer metrics, and counted in ``summary.skipped``; the page scores use the questions that
have evidence pages, whatever their answer."""

from __future__ import annotations

from pathlib import Path

from helpers.score_files import META, p, q, write

from docqa.report.tables import results_table, to_markdown
from docqa.stages.score import score_run, write_scores

QUESTIONS = [
    q("a", "17", "Int", [0], "chart", []),
    q("b", "", "Str", [1], "text", []),  # no gold answer, evidence page known
    q("c", "", "Str", [], "text", []),  # neither
    q("d", "blue", "Str", [], "text", []),
]
PREDICTIONS = [
    p("a", "17", [0]),
    p("b", "whatever", [1]),
    p("c", "something", [2]),
    p("d", "red", [3]),
]


def test_answer_metrics_cover_only_questions_with_gold(tmp_path: Path) -> None:
    scores = score_run(*write(tmp_path, QUESTIONS, PREDICTIONS), "slideagent", {}, META)
    summary = scores["summary"]
    assert summary["questions"] == 4
    assert summary["skipped"] == {"answer": 2, "pages": 2}
    # a: Num 1, Overall 1; d: wrong. Only a and d count: Overall 50%, not 25%
    assert summary["overall"] == 50.0
    assert summary["num_questions"] == 1
    assert summary["f1_questions"] == 1
    # page recall over a and b (both right), c and d have no evidence pages
    assert summary["page_recall"] == 100.0
    rows = {row["question_id"]: row for row in scores["per_question"]}
    assert rows["b"]["score"] is None
    assert rows["b"]["skipped"] == "no gold answer"
    assert rows["b"]["answer"] == "whatever"
    assert rows["b"]["page_recall"] == 1.0
    assert "skipped" not in rows["a"]
    assert rows["a"]["score"] == 1.0
    assert sum(group["questions"] for group in scores["breakdown"]["kind"].values()) == 2


def test_a_run_without_any_gold_answer_has_no_answer_scores(tmp_path: Path) -> None:
    questions = [q("b", "", "Str", [1], "text", [])]
    scores = score_run(*write(tmp_path, questions, [p("b", "x", [1])]), "slideagent", {}, META)
    assert scores["summary"]["overall"] is None
    assert scores["summary"]["num"] is None
    assert scores["summary"]["skipped"]["answer"] == 1
    assert scores["summary"]["page_recall"] == 100.0


def test_the_results_table_says_how_many_questions_had_no_gold(tmp_path: Path) -> None:
    scores = score_run(*write(tmp_path, QUESTIONS, PREDICTIONS), "slideagent", {}, META)
    write_scores(scores, tmp_path / "scores.json")
    text = to_markdown(results_table([tmp_path / "scores.json"], []))
    notes = text.split("How answers were scored:\n\n")[1].splitlines()
    assert notes == [
        "- tiny / vanilla / m: 2 of 4 question(s) have no gold answer: answered (see the "
        "traces), left out of the answer scores"
    ]
