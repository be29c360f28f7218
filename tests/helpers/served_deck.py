"""A three-slide deck in the files the infer stage reads (pages, text lines, questions), for the
tests that run the infer stage against a served model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from docqa.backends.model_spec import ModelSpec
from docqa.stages.infer import run_inference

SLIDES = [
    ["Acme Corp", "Annual review 2021"],
    ["Revenue by year", "2020: 42 million", "2021: 50 million"],
    ["Costs by year", "2020: 17 million", "2021: 19 million"],
]
QUESTIONS = [
    ("q1", "What was the revenue in 2020?", "42 million", [1]),
    ("q2", "What were the costs in 2021?", "19 million", [2]),
    ("q3", "Which company is this review about?", "Acme Corp", [0]),
    ("q4", "How much did revenue grow from 2020 to 2021?", "8 million", [1]),
]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def dataset(folder: Path) -> dict[str, Path]:
    """One three-slide deck in the files the infer stage reads: pages, OCR lines, questions."""
    folder.mkdir(parents=True, exist_ok=True)
    pages, elements = [], []
    for index, lines in enumerate(SLIDES):
        image = Image.new("RGB", (320, 180), "white")
        ImageDraw.Draw(image).multiline_text((8, 8), "\n".join(lines), fill="black")
        image.save(folder / f"page-{index}.png")
        pages.append(
            {"doc_id": "deck", "index": index, "image": str(folder / f"page-{index}.png"),
             "width": 320, "height": 180, "dpi": 72}
        )  # fmt: skip
        elements += [
            {"doc_id": "deck", "page": index, "kind": "line", "text": text,
             "bbox": [8, 8 + 12 * order, 200, 20 + 12 * order], "order": order, "conf": 95.0}
            for order, text in enumerate(lines)
        ]  # fmt: skip
    questions = [
        {"question_id": qid, "doc_id": "deck", "question": question, "answer": answer,
         "answer_format": "Str", "evidence_pages": evidence}
        for qid, question, answer, evidence in QUESTIONS
    ]  # fmt: skip
    return {
        "questions": write_jsonl(folder / "questions.jsonl", questions),
        "documents": write_jsonl(
            folder / "documents.jsonl", [{"doc_id": "deck", "path": "deck.pdf", "num_pages": 3}]
        ),
        "pages": write_jsonl(folder / "pages.jsonl", pages),
        "elements": write_jsonl(
            folder / "elements.jsonl", [{"doc_id": "deck", "elements": elements}]
        ),
    }


def infer(
    files: dict[str, Path], model: ModelSpec, out: Path, concurrency: int = 4, **options: Any
) -> list[dict[str, Any]]:
    """The infer stage with oracle_pages on ``model`` over the deck; its predictions."""
    run_inference(
        **files,
        index_dirs={},
        failures=out.parent / "failures.jsonl",
        method_config={"type": "oracle_pages", "max_new_tokens": 8},
        retriever_configs={},
        model=model,
        role_models={},
        cache=out.parent / "responses.sqlite",
        out=out,
        concurrency=concurrency,
        **options,
    )
    return [json.loads(line) for line in out.read_text().splitlines()]
