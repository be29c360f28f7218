"""Question and prediction rows written as the score stage reads them, for the score tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.core.jsonl import write_jsonl

META = {"dataset": "tiny", "method": "vanilla", "model": "m"}


def q(
    qid: str, answer: Any, fmt: str, pages: list[int], kind: str, sources: list[str], **extra: Any
) -> dict:
    return {
        "question_id": qid,
        "doc_id": "d",
        "question": "?",
        "answer": answer,
        "answer_format": fmt,
        "evidence_pages": pages,
        "tags": {"kind": kind, "evidence_sources": sources},
        **extra,
    }


def p(qid: str, answer: str, pages: list[int], error: str = "", calls: int = 1) -> dict:
    return {
        "question_id": qid,
        "answer": answer,
        "pages": pages,
        "error": error,
        "usage": {"calls": calls, "tokens_in": 100, "tokens_out": 10, "seconds": 0.5},
    }


def write(tmp_path: Path, questions: list[dict], predictions: list[dict]) -> tuple[Path, Path]:
    write_jsonl(tmp_path / "questions.jsonl", questions)
    write_jsonl(tmp_path / "predictions.jsonl", predictions)
    return tmp_path / "questions.jsonl", tmp_path / "predictions.jsonl"
