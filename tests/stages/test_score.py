import json
from pathlib import Path
from typing import Any

import pytest
from helpers.score_files import META, p, q, write
from helpers.scripted_backend import ScriptedBackend

from docqa.core.jsonl import write_jsonl
from docqa.metrics import METRICS, resolve_options
from docqa.stages.score import score_run, write_scores

QUESTIONS = [
    q("q1", "17k", "Int", [0, 1], "chart", ["Chart"]),
    q("q2", "25%", "Float", [2], "chart", ["Chart", "Table"]),
    q("q3", "revenue grew", "Str", [3], "text", ["Text"]),
    q("q4", "3", "Int", [4], "table", ["Table"]),
    q("q5", "Not answerable", "None", [], "text", []),
]
CUT = {"page": 3, "chars": 9000, "read": [[0, 1400]], "left_out": 7600}
CUT_STEPS = [{"step": "read", "text_cut": [CUT, {**CUT, "page": 6}]}, {"text_cut": [CUT]}]
PREDICTIONS = [
    p("q1", "The revenue was 17,000.", [0, 5]),  # num 1; recall 1/2, precision 1/2
    # num 0 (25 is not 25%); recall 1, prec 1; pages left out and sent smaller (vanilla)
    {**p("q2", "25", [2]), "pages_truncated": 2, "pages_downscaled": 3},
    # f1 0.8; two steps read page 3 only in part, one of them page 6 too: 2 pages cut
    {**p("q3", "The revenue grew quickly", [3], calls=2), "trace": CUT_STEPS},
    # q4 has no prediction: num 0, recall 0
    p("q5", "", [1], error="backend timed out"),  # would be wrong anyway; f1 0, error
]


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, Path]:
    return write(tmp_path, QUESTIONS, PREDICTIONS)


def test_summary_by_hand(run: tuple[Path, Path]) -> None:
    scores = score_run(*run, "slideagent", {}, META)
    assert list(scores) == [
        "dataset",
        "method",
        "model",
        "metric",
        "options",
        "bootstrap",
        "summary",
        "aggregate",
        "aggregate_intervals",
        "breakdown",
        "per_question",
    ]
    assert scores["options"] == {"overall": "per_question", "rel_tol": 0.0}
    summary = dict(scores["summary"])
    intervals = summary.pop("intervals")
    assert summary == {
        "questions": 5,
        "predictions": 4,
        "errors": 2,
        "missing": 1,
        "infrastructure_errors": 0,
        # Num over q1 q2 q4: 1, 0, 0
        "num": 33.33,
        "num_questions": 3,
        # F1 over q3 q5: 0.8, 0 (error)
        "f1": 40.0,
        "f1_questions": 2,
        # (1 + 0 + 0.8 + 0 + 0) / 5
        "overall": 36.0,
        # pages over q1..q4 (q5 has no evidence); precision over q1..q3 (q4 used none)
        "page_recall": 62.5,
        "page_precision": 83.33,
        "page_f1": 62.5,
        "page_mrr": 75.0,
        "page_recall@1": 62.5,
        "page_recall@3": 62.5,
        "page_recall@5": 62.5,
        "calls": 5,
        "tokens_in": 400,
        "tokens_out": 40,
        "image_tokens": 0,
        "images_as_text": 0,
        "fallbacks": 0,
        "budget_retries": 0,
        "pages_truncated": 2,
        "pages_downscaled": 3,
        "agent": {},
        # every question has a gold answer; q5 has no evidence pages
        "skipped": {"answer": 0, "pages": 1},
        "scorer": {},
        "pages_cut": 2,
    }
    assert set(intervals) == {
        "overall",
        "num",
        "f1",
        "page_recall",
        "page_precision",
        "page_f1",
        "page_mrr",
        "page_recall@1",
        "page_recall@3",
        "page_recall@5",
    }
    low, high = intervals["overall"]
    assert low <= 36.0 <= high
    assert low < high
    assert scores["bootstrap"] == {
        "method": "percentile",
        "resamples": 1000,
        "seed": 0,
        "level": 0.95,
    }


def test_per_question_rows(run: tuple[Path, Path]) -> None:
    scores = score_run(*run, "slideagent", {}, META)
    rows = {row["question_id"]: row for row in scores["per_question"]}
    assert list(rows) == ["q1", "q2", "q3", "q4", "q5"]
    assert rows["q1"] == {
        "question_id": "q1",
        "kind": "chart",
        "answer_format": "Int",
        "num": 1.0,
        "f1": None,
        "overall": 1.0,
        "score": 1.0,
        "page_precision": 0.5,
        "page_recall": 0.5,
        "page_f1": 0.5,
        "page_recall@1": 0.5,
        "page_recall@3": 0.5,
        "page_recall@5": 0.5,
        "page_mrr": 1.0,
        "answer": "The revenue was 17,000.",
        "pred": "The revenue was 17,000.",
        "gold": "17k",
        "error": "",
        "error_kind": "",
        "doc_id": "d",
        "evidence_pages": [0, 1],
        "page_window": [],  # the whole document: the question has no window
        "tags": {"kind": "chart", "evidence_sources": ["Chart"]},
    }
    assert rows["q3"]["f1"] == 0.8
    assert rows["q3"]["num"] is None
    missing = rows["q4"]
    assert (missing["score"], missing["num"], missing["answer"]) == (0.0, 0.0, "")
    assert missing["error"] == "missing prediction"
    assert (missing["page_recall"], missing["page_precision"]) == (0.0, None)
    errored = rows["q5"]
    assert (errored["score"], errored["f1"], errored["error"]) == (0.0, 0.0, "backend timed out")


def test_a_correct_answer_with_an_error_still_scores_zero(tmp_path: Path) -> None:
    paths = write(tmp_path, QUESTIONS[:1], [p("q1", "17k", [0], error="parse failed")])
    scores = score_run(*paths, "slideagent", {}, META)
    assert scores["per_question"][0]["score"] == 0.0
    assert (scores["summary"]["errors"], scores["summary"]["missing"]) == (1, 0)


def test_breakdowns_have_intervals(run: tuple[Path, Path]) -> None:
    breakdown = score_run(*run, "slideagent", {}, META)["breakdown"]
    assert {group: (v["questions"], v["overall"]) for group, v in breakdown["kind"].items()} == {
        "chart": (2, 50.0),
        "table": (1, 0.0),
        "text": (2, 40.0),
    }
    # q2 counts under Chart and under Table; q5 has no source
    assert breakdown["evidence_source"]["Table"]["questions"] == 2
    assert breakdown["evidence_source"]["Text"] == {
        "questions": 1,
        "overall": 80.0,
        "interval": [80.0, 80.0],
    }
    assert breakdown["answer_format"]["Int"]["overall"] == 50.0
    assert breakdown["kind"]["chart"]["interval"] == [0.0, 100.0]


def test_mean_of_num_and_f1_option(run: tuple[Path, Path]) -> None:
    summary = score_run(*run, "slideagent", {"overall": "mean_of_num_and_f1"}, META)["summary"]
    # (Num 1/3 + F1 0.4) / 2
    assert summary["overall"] == 36.67


def test_mmlongbench_doc_extracts_by_rules_and_reports_its_own_aggregates(
    run: tuple[Path, Path],
) -> None:
    scores = score_run(*run, "mmlongbench_doc", {}, META)
    rows = {row["question_id"]: row for row in scores["per_question"]}
    # '17,000.' → rules extract '17000'; the gold '17k' is not an integer: 0 (as the original)
    assert (rows["q1"]["pred"], rows["q1"]["score"]) == ("17000", 0.0)
    assert (rows["q2"]["pred"], rows["q2"]["score"]) == ("25", 1.0)  # 25 against 25%
    assert rows["q2"]["extracted_format"] == "Float"
    assert scores["summary"]["scorer"] == {"extractor": "rules", "step_failures": 0}
    assert scores["summary"]["overall"] == scores["aggregate"]["acc"] == 20.0
    assert set(scores["aggregate"]) == {"acc", "recall", "precision", "f1", "questions"}
    assert set(scores["aggregate_intervals"]) == {"acc", "recall", "precision", "f1"}
    assert set(scores["breakdown"]["evidence_pages"]) == {
        "single-page",
        "cross-page",
        "unanswerable",
    }
    assert scores["breakdown"]["evidence_pages"]["single-page"]["questions"] == 3


def test_the_benchmarks_own_gold_is_scored(tmp_path: Path) -> None:
    """LongDocURL golds are JSON values; adapters keep the row in ``original``."""
    questions = [
        q(
            "q1",
            "17.0",
            "Int",
            [1],
            "x",
            ["Text"],
            original={"answer": 17.0, "answer_format": "Integer"},
        )
    ]
    paths = write(tmp_path, questions, [p("q1", "17", [1])])
    assert score_run(*paths, "longdocurl", {}, META)["per_question"][0]["score"] == 0.0
    corrected = score_run(*paths, "longdocurl", {"variant": "corrected"}, META)
    assert corrected["per_question"][0]["score"] == 1.0


def test_slidevqa_scores_answers_and_evidence(run: tuple[Path, Path]) -> None:
    scores = score_run(*run, "slidevqa", {}, META)
    q3 = scores["per_question"][2]
    assert (q3["f1"], q3["em"], q3["es_f1"], q3["score"]) == (0.8, 0.0, 1.0, 0.8)
    # EM: only q2, whose "25%" and "25" both normalise to "25"
    assert scores["summary"]["em"] == 20.0
    assert scores["summary"]["f1"] == 36.0
    assert {"es_f1", "joint_f1", "joint_em"} <= set(scores["aggregate"])


def judge_reply(request) -> str:
    text = request.messages[0].text
    if "Predicted Answer: The revenue grew quickly" in text:
        return "no idea"
    correct = "Predicted Answer: 25\n" in text
    return f'{{"correctness": {int(correct)}}}'


def test_judge_scores_through_a_model_and_reports_what_it_could_not_read(
    run: tuple[Path, Path], tmp_path: Path
) -> None:
    backend = ScriptedBackend(judge_reply)
    scores = score_run(
        *run,
        "judge",
        {"model": "judge-llm"},
        META,
        backend=backend,
        cache=tmp_path / "cache.sqlite",
    )
    rows = {row["question_id"]: row for row in scores["per_question"]}
    assert len(backend.requests) == 3  # q4 (missing) and q5 (error) are not sent
    assert [rows[i]["score"] for i in ("q1", "q2", "q3", "q4", "q5")] == [0.0, 1.0, 0.0, 0.0, 0.0]
    assert rows["q3"]["judge_status"] == "unparseable"
    assert rows["q3"]["judge_output"] == "no idea"
    scorer = scores["summary"]["scorer"]
    assert scorer["judge"] == "judge-llm"
    assert scorer["model_identity"] == backend.identity
    assert len(scorer["prompt_sha256"]) == 64
    assert scorer["step_failures"] == 1
    assert scores["aggregate"] == {
        "accuracy": 20.0,
        "questions": 5,
        "judged": 2,
        "unparseable": 1,
        "failed_calls": 0,
    }
    # the replies were cached: scoring again asks the model nothing
    again = ScriptedBackend(judge_reply)
    score_run(
        *run, "judge", {"model": "judge-llm"}, META, backend=again, cache=tmp_path / "cache.sqlite"
    )
    assert again.requests == []


def test_model_step_needs_a_backend(run: tuple[Path, Path]) -> None:
    with pytest.raises(ValueError, match="model 'judge-llm'.*no backend"):
        score_run(*run, "judge", {"model": "judge-llm"}, META)
    with pytest.raises(ValueError, match="needs a judge model: set metrics.judge.model"):
        score_run(*run, "judge", {}, META)
    with pytest.raises(ValueError, match="model 'x'.*no backend"):
        score_run(*run, "mmlongbench_doc", {"model": "x"}, META)


def test_model_extraction(run: tuple[Path, Path]) -> None:
    backend = ScriptedBackend(lambda request: "Extracted answer: 3\nAnswer format: Integer")
    scores = score_run(*run, "mmlongbench_doc", {"model": "gpt"}, META, backend=backend)
    assert [row["pred"] for row in scores["per_question"][:3]] == ["3", "3", "3"]
    assert scores["summary"]["scorer"]["extractor"] == "model"
    assert scores["summary"]["scorer"]["prompt_sha256"].startswith("96a22c30")


@pytest.mark.parametrize("metric", ["slideagent", "mmlongbench_doc", "longdocurl", "slidevqa"])
def test_aggregates_can_be_recomputed_from_the_score_file(
    run: tuple[Path, Path], metric: str
) -> None:
    """Tables are regenerated from the file: its rows give back its aggregates."""
    scores = json.loads(json.dumps(score_run(*run, metric, {}, META)))
    METRICS.load_all()
    again = METRICS.get(metric).aggregate(
        scores["per_question"], resolve_options(metric, scores["options"])
    )
    again.pop("breakdown", None)
    assert {k: round(100 * v, 2) if isinstance(v, float) else v for k, v in again.items()} == (
        scores["aggregate"]
    )


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
    with pytest.raises(ValueError, match=r"metrics.mmlongbench_doc.variant: .*\(got 'fixed'\)"):
        score_run(*run, "mmlongbench_doc", {"variant": "fixed"}, META)
    with pytest.raises(KeyError, match="unknown metric 'bleu'"):
        score_run(*run, "bleu", {}, META)
    with pytest.raises(ValueError, match="model"):
        score_run(*run, "slideagent", {}, {"dataset": "tiny", "method": "vanilla"})


def test_empty_run_has_undefined_scores(tmp_path: Path) -> None:
    scores = score_run(*write(tmp_path, [], []), "slideagent", {}, META)
    summary = scores["summary"]
    assert summary["questions"] == 0
    assert summary["overall"] is None
    assert summary["num"] is None
    assert summary["page_recall"] is None
    assert summary["intervals"]["overall"] is None


def test_write_scores_round_trips(run: tuple[Path, Path], tmp_path: Path) -> None:
    scores = score_run(*run, "slideagent", {}, META)
    out = tmp_path / "scores" / "tiny" / "vanilla" / "m.json"
    write_scores(scores, out)
    assert json.loads(out.read_text(encoding="utf-8")) == scores
    assert [path.name for path in out.parent.iterdir()] == ["m.json"]


def test_usage_and_agent_measures_are_summed_per_run(tmp_path: Path) -> None:
    """Fallbacks, cached calls and peak memory reach the summary; a DocPilot-style trace
    summary gives recall by navigation round (a question that stopped early keeps its last
    recall) and mean calls per action."""

    def agent(qid: str, recall: list[float], calls: dict[str, int], **usage: Any) -> dict:
        row = p(qid, "x", [0])
        row["usage"].update(usage)
        row["trace"] = [
            {"step": "navigate"},
            {
                "step": "summary",
                "recall_by_round": recall,
                "calls_per_action": calls,
                "steps": 4,
                "navigation_rounds": len(recall),
                "pages_retrieved": 2,
            },
        ]
        return row

    questions, predictions = write(
        tmp_path,
        QUESTIONS[:3],
        [
            agent("q1", [0.5, 1.0], {"navigate": 2, "focus": 1}, fallbacks=2, peak_memory_mb=900.0),
            agent("q2", [0.0, 0.0, 1.0], {"navigate": 3}, cached_calls=1, peak_memory_mb=1200.0),
            agent("q3", [], {"navigate": 1, "focus": 0}, fallbacks=1),
        ],
    )
    summary = score_run(questions, predictions, "slideagent", {}, META)["summary"]
    assert summary["fallbacks"] == 3
    assert "cached_calls" not in summary
    assert "peak_memory_mb" not in summary
    assert summary["agent"] == {
        "questions": 3,
        "recall_questions": 2,
        # round 1: (0.5 + 0) / 2; round 2: (1 + 0) / 2; round 3: q1 keeps 1.0, q2 reaches 1
        "recall_by_round": [25.0, 50.0, 100.0],
        "calls_per_action": {"focus": round(1 / 3, 3), "navigate": 2.0},
        "steps": 4.0,
        "navigation_rounds": round(5 / 3, 3),
        "pages_retrieved": 2.0,
    }
