"""LongDocURL on its real sample rows, in the GitHub, Hub and MDocAgent layouts."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

from helpers.benchmark_files import LONGDOCURL_SAMPLE, pdf

from docqa.core.failures import read_failures
from docqa.core.jsonl import read_jsonl
from docqa.datasets import prepare
from docqa.datasets.convert import ConvertedOptions
from docqa.datasets.longdocurl import load_questions, read

ROWS = [json.loads(line) for line in LONGDOCURL_SAMPLE.read_text().splitlines()]


def test_github_sample_converts_pages_formats_and_answers(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    shutil.copy(LONGDOCURL_SAMPLE, tmp_path / "data" / "LongDocURL.jsonl")
    calc, title, figures = load_questions(tmp_path)

    assert calc.question_id == "free_gemini15_pro_4055915_42_71_8"
    assert calc.doc_id == "4055915"
    assert ROWS[0]["evidence_pages"] == [54]
    assert calc.evidence_in(calc.doc_id) == [53]
    assert ROWS[0]["start_end_idx"] == [42, 71]
    assert calc.page_window == list(range(41, 71))  # a Question field, not a tag
    assert "page_window" not in calc.tags
    assert (calc.answer, calc.answer_format) == ("5", "Int")  # an int answer, 'Integer'
    assert calc.tags["question_type"] == "calculate"
    assert calc.tags["task_tag"] == "Reasoning"
    assert calc.tags["evidence_sources"] == ["Table"]

    assert title.answer_format == "Str"
    assert title.evidence_in(title.doc_id) == [14, 15]
    assert figures.answer_format == "List"
    assert figures.answer == ROWS[2]["answer"]
    # the authors' absolute paths stay in the original row, untouched
    assert figures.original["images"] == ROWS[2]["images"]
    assert figures.original["pdf_path"].endswith("/4151603.pdf")


def test_bad_rows_are_recorded_and_skipped(tmp_path: Path) -> None:
    lines = LONGDOCURL_SAMPLE.read_text().splitlines()
    bad_format = {**ROWS[1], "answer_format": "Boolean"}
    out_of_range = {**ROWS[2], "evidence_pages": [0]}  # not a 1-based page
    no_answer = {key: value for key, value in ROWS[0].items() if key != "answer"}
    text = [lines[0], "{not json", json.dumps(bad_format), json.dumps(out_of_range)]
    (tmp_path / "LongDocURL_public.jsonl").write_text("\n".join([*text, json.dumps(no_answer)]))

    loaded = read(tmp_path, ConvertedOptions())
    assert [q.question_id for q in loaded.questions] == [ROWS[0]["question_id"]]
    assert [f.path for f in loaded.skipped] == [
        f"LongDocURL_public.jsonl:{n}" for n in (2, 3, 4, 5)
    ]
    errors = [f.error for f in loaded.skipped]
    assert "not valid JSON" in errors[0]
    assert "'Boolean'" in errors[1]
    assert "page 0 is not a 1-based page" in errors[2]
    assert "'answer' is missing" in errors[3]


def test_hub_layout_unpacks_the_pdf_archive_once(tmp_path: Path) -> None:
    root = tmp_path / "download"
    root.mkdir()
    shutil.copy(LONGDOCURL_SAMPLE, root / "LongDocURL_public.jsonl")
    staging = tmp_path / "staging"
    for row in ROWS[:2]:  # the archive nests PDFs by number range, as the authors' storage
        pdf(staging / "pdf_files" / "4000-4999" / row["doc_no"][:4] / f"{row['doc_no']}.pdf", 90)
    with tarfile.open(root / "pdf_files.tar.gz", "w:gz") as tar:
        tar.add(staging / "pdf_files", arcname="pdf_files")

    out = tmp_path / "data"
    prepare("longdocurl", out, {"root": str(root)})
    assert [d["doc_id"] for d in read_jsonl(out / "documents.jsonl")] == ["4055915", "4127644"]
    assert (out / "docs" / "4055915.pdf").resolve().is_file()
    [missing] = read_failures(out / "failures.jsonl")  # 4151603 is not in the archive
    assert missing.doc_id == "4151603"
    assert len(list(read_jsonl(out / "questions.jsonl"))) == 2

    marker = root / "pdf_files" / ".unpacked-from"
    unpacked_at = marker.stat().st_mtime_ns
    prepare("longdocurl", tmp_path / "again", {"root": str(root), "max_questions": 1})
    assert marker.stat().st_mtime_ns == unpacked_at  # not unpacked twice
    assert len(list(read_jsonl(tmp_path / "again" / "questions.jsonl"))) == 1


def test_mdocagent_copy_reads_samples_json(tmp_path: Path) -> None:
    rows = [{**row, "doc_id": f"{row['doc_no']}.pdf", "page_ids": [40, 41]} for row in ROWS]
    (tmp_path / "samples.json").write_text(json.dumps(rows))
    questions = load_questions(tmp_path)
    assert [q.question_id for q in questions] == [row["question_id"] for row in ROWS]
    assert questions[0].original["page_ids"] == [40, 41]
    assert questions[0].page_window == [40, 41]  # MDocAgent's 0-based page_ids win
