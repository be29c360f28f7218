import json
from pathlib import Path

import pytest

from docqa.core.jsonl import write_jsonl
from docqa.report.inputs import load_failed_documents, load_recall, load_scores


def test_score_file_missing_field_names_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text(
        json.dumps(
            {
                "dataset": "d",
                "method": "x",
                "model": "m",
                "per_question": [],
                "summary": {"questions": 1, "errors": 0},
            }
        )
    )
    with pytest.raises(ValueError, match=r"m\.json: summary: missing field\(s\) missing"):
        load_scores(path)


def test_broken_json_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "recall.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match="recall.json: not valid JSON"):
        load_recall(path)


def test_recall_lists_must_align(tmp_path: Path) -> None:
    path = tmp_path / "recall.json"
    path.write_text(
        json.dumps(
            {
                "dataset": "d",
                "retriever": "bm25",
                "questions": 3,
                "k": [1, 2],
                "recall": [10.0, 20.0],
                "random": [5.0],
            }
        )
    )
    with pytest.raises(ValueError, match="same length"):
        load_recall(path)


def test_failed_documents_take_dataset_from_folder(tmp_path: Path) -> None:
    path = tmp_path / "pages" / "synth" / "failures.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(
        '{"stage": "render", "doc_id": "b"}\n\n{"stage": "ocr", "doc_id": "a"}\n'
        '{"stage": "ocr", "doc_id": "b"}\n'
    )
    assert load_failed_documents(path) == ("synth", ["a", "b"])


def test_failure_without_doc_id_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "failures.jsonl"
    path.write_text('{"stage": "render", "error": "boom"}\n')
    with pytest.raises(ValueError, match="without a doc_id"):
        load_failed_documents(path)


def test_a_runs_timings_join_its_scores_when_the_report_reads_them(tmp_path: Path) -> None:
    score = tmp_path / "scores" / "d" / "x" / "m.json"
    score.parent.mkdir(parents=True)
    summary = {"questions": 2, "errors": 0, "missing": 0}
    score.write_text(
        json.dumps(
            {"dataset": "d", "method": "x", "model": "m", "per_question": [], "summary": summary}
        )
    )
    runs = tmp_path / "runs"
    assert "seconds" not in load_scores(score, runs).summary  # no timings file: nothing added
    write_jsonl(
        runs / "d" / "x" / "m" / "predictions.timings.jsonl",
        [
            {"question_id": "q1", "measured": {"usage.seconds": 1.25, "usage.peak_memory_mb": 512}},
            {"question_id": "q2", "measured": {"usage.seconds": 2.5, "trace.0.usage.seconds": 2.5}},
        ],
    )
    joined = load_scores(score, runs).summary
    assert (joined["seconds"], joined["peak_memory_mb"]) == (3.75, 512.0)
    assert "seconds" not in load_scores(score).summary  # without runs_dir: the file as it is
