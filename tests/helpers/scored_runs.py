"""Score files made by the score stage itself (docqa.stages.score) from a few hand-written questions
and answers, for the report tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.core.jsonl import write_jsonl
from docqa.stages.score import score_run, write_scores

QUESTIONS = [
    {
        "question_id": f"q{i}",
        "doc_id": "d",
        "question": "?",
        "answer": answer,
        "answer_format": fmt,
        "evidence_pages": [i],
        "tags": {"kind": kind, "evidence_sources": [source]},
    }
    for i, (answer, fmt, kind, source) in enumerate(
        [
            ("17", "Int", "chart_value", "Figure"),
            ("42", "Int", "table_cell", "Table"),
            ("blue whale", "Str", "text", "Text"),
            ("3", "Int", "counting", "Layout"),
            ("2019", "Int", "table_cell", "Table"),
            ("red", "Str", "text", "Text"),
        ]
    )
]


def scored_run(
    root: Path,
    dataset: str,
    method: str,
    model: str,
    answers: list[str],
    *,
    calls: int = 1,
    seconds: float = 0.5,
    tokens_out: int = 10,
    peak_memory_mb: float = 0.0,
    traces: list[list[dict[str, Any]]] | None = None,
) -> Path:
    """Write questions, predictions (answer i to question i, reading page i) and the score file
    ``root/results/scores/{dataset}/{method}/{model}.json``; returns the score file."""
    run = root / "results" / "runs" / dataset / method / model
    run.mkdir(parents=True, exist_ok=True)
    write_jsonl(run / "questions.jsonl", QUESTIONS)
    write_jsonl(
        run / "predictions.jsonl",
        [
            {
                "question_id": q["question_id"],
                "answer": answer,
                "pages": [i],
                "trace": traces[i] if traces else [],
                "usage": {
                    "calls": calls,
                    "tokens_in": 100,
                    "tokens_out": tokens_out,
                    "seconds": seconds,
                    "peak_memory_mb": peak_memory_mb,
                },
            }
            for i, (q, answer) in enumerate(zip(QUESTIONS, answers, strict=True))
        ],
    )
    scores = score_run(
        run / "questions.jsonl",
        run / "predictions.jsonl",
        "slideagent",
        {},
        {"dataset": dataset, "method": method, "model": model},
    )
    path = root / "results" / "scores" / dataset / method / f"{model}.json"
    write_scores(scores, path)
    return path
