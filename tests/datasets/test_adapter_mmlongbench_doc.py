"""MMLongBench-Doc on its real samples.json and on the Hub's parquet layout, down to render."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers.benchmark_files import (
    MMLONGBENCH_SAMPLES,
    MMLONGBENCH_SCHEMA,
    broken_pdf,
    parquet,
    pdf,
)

from docqa.core.document import Document
from docqa.core.failures import read_failures
from docqa.core.jsonl import read_jsonl
from docqa.core.question import Question
from docqa.datasets import prepare
from docqa.datasets.convert import ConvertedOptions
from docqa.datasets.mmlongbench_doc import load_questions, read
from docqa.stages.render import render_dataset

ROWS = json.loads(MMLONGBENCH_SAMPLES.read_text())


@pytest.fixture(scope="module")
def github(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The GitHub repository's layout: data/samples.json."""
    root = tmp_path_factory.mktemp("mmlongbench-github")
    (root / "data").mkdir()
    shutil.copy(MMLONGBENCH_SAMPLES, root / "data" / "samples.json")
    return root


def test_every_question_of_the_real_file_converts(github: Path) -> None:
    loaded = read(github, ConvertedOptions())
    assert loaded.skipped == []
    assert len(loaded.questions) == len(ROWS) == 1082
    formats = Counter(q.answer_format for q in loaded.questions)
    assert formats == {"Int": 299, "Str": 250, "None": 223, "Float": 159, "List": 151}
    assert all(q.answer == "Not answerable" for q in loaded.questions if q.answer_format == "None")
    assert load_questions(github) == loaded.questions


def test_evidence_pages_become_0_based_and_page_0_is_dropped(github: Path) -> None:
    questions = {q.question_id: q for q in load_questions(github)}
    first = questions["0000"]
    assert ROWS[0]["evidence_pages"] == "[5]"
    assert first.evidence_in(first.doc_id) == [4]
    assert ROWS[1]["evidence_pages"] == "[19, 20]"
    second = questions["0001"]
    assert second.evidence_in(second.doc_id) == [18, 19]
    for index in (144, 189, 938):  # the three rows that list page 0
        question = questions[f"{index:04d}"]
        assert ROWS[index]["evidence_pages"] == "[0]"
        assert question.evidence == []
        assert "page 0" in question.tags["evidence_note"]
    assert all(min(q.evidence_in(q.doc_id), default=0) >= 0 for q in questions.values())


def test_string_encoded_lists_answers_and_tags(github: Path) -> None:
    questions = load_questions(github)
    first = questions[0]
    assert first.doc_id == "PH_2016.06.08_Economy-Final"
    assert first.tags == {"evidence_sources": ["Chart"], "doc_type": ROWS[0]["doc_type"]}
    assert first.original == ROWS[0]
    lists = [q for q in questions if q.answer_format == "List"]
    parsed = [q for q in lists if isinstance(q.answer, list)]
    assert len(parsed) >= 140
    assert all(isinstance(item, str) for q in parsed for item in q.answer)
    # List answers that are not Python lists upstream ('92', '0.66') stay as written
    assert {q.answer for q in lists if isinstance(q.answer, str)} >= {"92", "0.66"}
    padded = [row for row in ROWS if row["answer"] != row["answer"].strip()]
    assert len(padded) == 16
    assert all(q.answer == q.answer.strip() for q in questions if isinstance(q.answer, str))


def test_hub_parquet_layout_records_bad_rows_and_keeps_the_rest(tmp_path: Path) -> None:
    rows = [dict(row) for row in ROWS[:4]]
    rows[1]["question"] = None  # a missing field
    rows[2]["evidence_pages"] = "[5, 'x']"  # not a page number
    rows[3]["answer_format"] = "Integer?"  # not a known format
    parquet(tmp_path / "data" / "train-00000-of-00001.parquet", rows, MMLONGBENCH_SCHEMA)
    loaded = read(tmp_path, ConvertedOptions())
    assert [q.question_id for q in loaded.questions] == ["0000"]
    errors = [failure.error for failure in loaded.skipped]
    assert "'question' is missing" in errors[0]
    assert "not a page number" in errors[1]
    assert "'Integer?'" in errors[2]
    assert all(f.path.startswith("train-00000-of-00001.parquet#row ") for f in loaded.skipped)
    assert all(f.stage == "data" and f.fix for f in loaded.skipped)


def test_prepare_then_render_records_unreadable_and_missing_pdfs(tmp_path: Path) -> None:
    """The Hub layout through the data stage and the render stage, as the pipeline runs it."""
    root = tmp_path / "download"
    rows = [
        {**ROWS[0], "doc_id": "good.pdf", "evidence_pages": "[2]"},
        {**ROWS[1], "doc_id": "good.pdf", "evidence_pages": "[3]"},
        {**ROWS[2], "doc_id": "broken.pdf", "evidence_pages": "[1]"},
        {**ROWS[3], "doc_id": "missing.pdf"},
    ]
    parquet(root / "data" / "train-00000-of-00001.parquet", rows, MMLONGBENCH_SCHEMA)
    pdf(root / "documents" / "good.pdf", pages=4)
    broken_pdf(root / "documents" / "broken.pdf")
    out = tmp_path / "data"
    prepare("mmlongbench_doc", out, {"root": str(root), "max_pages": 2})

    questions = [Question.from_dict(row) for row in read_jsonl(out / "questions.jsonl")]
    documents = [Document.from_dict(row) for row in read_jsonl(out / "documents.jsonl")]
    # page cap 2: the question on page index 2 of good.pdf is dropped, the one on 1 kept
    assert [(q.doc_id, q.evidence_in(q.doc_id)) for q in questions] == [
        ("good", [1]),
        ("broken", [0]),
    ]
    assert [d.doc_id for d in documents] == ["good", "broken"]
    good, broken = documents
    assert good.num_pages == 2
    assert not Path(good.path).is_symlink()
    assert Path(broken.path).is_symlink()
    assert broken.num_pages is None
    assert os.readlink(broken.path).startswith("..")  # relative: results/ can move
    [missing] = read_failures(out / "failures.jsonl")
    assert missing.doc_id == "missing"
    assert "missing from the download" in missing.error

    pages_dir = tmp_path / "pages"
    render_dataset(out / "documents.jsonl", pages_dir, dpi=50)
    assert [p["index"] for p in read_jsonl(pages_dir / "pages.jsonl")] == [0, 1]
    [unreadable] = read_failures(pages_dir / "failures.jsonl")
    assert unreadable.doc_id == "broken"
    assert "not a valid PDF" in unreadable.error


def test_max_questions_and_unknown_options(github: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="adapter mmlongbench_doc takes no option 'split'"):
        prepare("mmlongbench_doc", tmp_path / "x", {"root": str(github), "split": "test"})
    with pytest.raises(ValueError, match="options.max_questions: must be at least 1"):
        prepare("mmlongbench_doc", tmp_path / "x", {"root": str(github), "max_questions": 0})
    with pytest.raises(ValueError, match="option 'root' is missing"):
        prepare("mmlongbench_doc", tmp_path / "x", {})
