"""The ``local`` adapter on real PDFs (pypdf's test files, tests/data/real_pdfs/): a CSV or
JSON Lines question file, rows with and without answers, and every kind of bad row recorded
with its line and fix while the rest is converted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from docqa.core.failures import read_failures
from docqa.core.jsonl import read_jsonl
from docqa.core.question import Question
from docqa.datasets import prepare as prepare_dataset

REAL = Path(__file__).resolve().parents[1] / "data" / "real_pdfs"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "mine"
    root.mkdir()
    shutil.copy(REAL / "local_crazyones.pdf", root / "crazyones.pdf")
    shutil.copy(REAL / "local_vicksburg.pdf", root / "vicksburg.pdf")
    return root


def prepare(root: Path, out: Path, **options: object) -> tuple[list[Question], list[dict]]:
    prepare_dataset("local", out, {"root": str(root), **options})
    questions = [Question.from_dict(row) for row in read_jsonl(out / "questions.jsonl")]
    return questions, [row.to_dict() for row in read_failures(out / "failures.jsonl")]


def test_csv_rows_with_and_without_answers_and_bad_rows(folder: Path, tmp_path: Path) -> None:
    (folder / "notes.txt").write_text("not a document\n")
    (folder / "questions.csv").write_text(
        "id,question,document,answer,evidence_pages,reviewer\n"
        'q1,When was The Crazy Ones written?,crazyones.pdf,"October 14, 1998",1,ann\n'
        'q2,What city was under siege?,vicksburg,Vicksburg,"2,3",\n'
        "q3,What is on the last page?,vicksburg.pdf,,,bob\n"
        ",What is missing?,missing.pdf,x,,\n"
        "q5,Read the notes,notes.txt,x,,\n"
        "q6,,crazyones.pdf,x,,\n"
        "q1,Duplicate id?,crazyones.pdf,x,,\n"
        "q8,Out of range?,vicksburg.pdf,x,7,\n"
    )
    out = tmp_path / "data"
    questions, failures = prepare(folder, out)

    assert [q.question_id for q in questions] == ["q1", "q2", "q3"]
    q1, q2, q3 = questions
    assert (q1.doc_id, q1.answer, q1.answer_format, q1.evidence_in(q1.doc_id)) == (
        "crazyones",
        "October 14, 1998",
        "Str",
        [0],
    )
    assert q1.tags == {"reviewer": "ann"}  # a column that is not docqa's is a tag
    assert q2.doc_id == "vicksburg"
    assert q2.evidence_in(q2.doc_id) == [1, 2]
    assert q3.answer == ""
    assert not q3.has_gold
    assert q3.evidence == []
    assert q1.has_gold

    by_line = {f["path"].rsplit(" line ", 1)[1]: f for f in failures}
    assert sorted(by_line) == ["5", "6", "7", "8", "9"]
    assert "missing.pdf" in by_line["5"]["error"]
    assert "crazyones.pdf" in by_line["5"]["error"]
    assert "neither a PDF nor an image" in by_line["6"]["error"]
    assert "no question" in by_line["7"]["error"]
    assert "already used on line 2" in by_line["8"]["error"]
    assert "out of range" in by_line["9"]["error"]
    assert "1..6" in by_line["9"]["error"]
    assert "page_base: 0" in by_line["9"]["fix"]
    assert all(f["fix"] and f["stage"] == "data" for f in failures)

    documents = {row["doc_id"]: row for row in read_jsonl(out / "documents.jsonl")}
    assert set(documents) == {"crazyones", "vicksburg"}
    assert documents["vicksburg"]["num_pages"] == 6
    assert Path(documents["vicksburg"]["path"]).resolve() == (folder / "vicksburg.pdf").resolve()


def test_jsonl_zero_based_pages_lists_tags_and_image_folders(folder: Path, tmp_path: Path) -> None:
    scan = folder / "scan"
    scan.mkdir()
    for number in (10, 2, 1):  # natural order: 1, 2, 10
        Image.new("RGB", (40, 30), (number, 0, 0)).save(scan / f"p{number}.png")
    rows = [
        {"question": "Q?", "document": ["crazyones.pdf"], "answer": ["a", "b"], "tags": {"k": 1}},
        {"question": "Q2?", "document": "scan", "evidence_pages": [0, 2], "kind": "layout"},
        {"question": "Q3?", "document": ["a.pdf", "b.pdf"]},
        {"question": "Q4?", "document": "vicksburg.pdf", "evidence_pages": [6]},
    ]
    (folder / "questions.jsonl").write_text(
        "\n".join(json.dumps(row) for row in rows) + "\n{not json\n"
    )
    questions, failures = prepare(folder, tmp_path / "data", page_base=0)

    assert [q.question_id for q in questions] == ["line1", "line2"]
    assert questions[0].answer == ["a", "b"]
    assert questions[0].answer_format == "List"
    assert questions[0].tags == {"k": "1"}
    assert questions[1].doc_id == "scan"
    assert questions[1].evidence_in(questions[1].doc_id) == [0, 2]
    assert questions[1].tags == {"kind": "layout"}
    pages = sorted((tmp_path / "data" / "docs" / "scan").iterdir())
    assert [Image.open(p).getpixel((0, 0))[0] for p in pages] == [1, 2, 10]
    errors = {f["path"].rsplit(" line ", 1)[1]: f["error"] for f in failures}
    assert "'a.pdf' is not in" in errors["3"]
    assert "0-based: 0..5" in errors["4"]
    assert "not JSON" in errors["5"]


def test_a_row_over_several_documents(folder: Path, tmp_path: Path) -> None:
    crazy, siege = "crazyones.pdf", "vicksburg.pdf"
    rows = [
        {  # crazyones named twice (with and without .pdf): it counts once
            "id": "both",
            "question": "Which is older, the siege or the Crazy Ones?",
            "document": [crazy, siege, "crazyones"],
            "answer": "the siege",
            "evidence_pages": [
                {"document": siege, "page": 2},
                {"document": "crazyones", "page": 1},
            ],
        },
        {
            "id": "one",
            "question": "Q?",
            "document": siege,
            "evidence_pages": [{"document": siege, "page": 4}],
        },
        {"id": "unnamed", "question": "Q?", "document": [crazy, siege], "evidence_pages": [1]},
        {
            "id": "stray",
            "question": "Q?",
            "document": [siege],
            "evidence_pages": [{"document": crazy, "page": 1}],
        },
        {
            "id": "range",
            "question": "Q?",
            "document": [crazy, siege],
            "evidence_pages": [{"document": siege, "page": 7}],
        },
    ]
    (folder / "questions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "data"
    questions, failures = prepare(folder, out)

    both, one = questions
    assert (both.doc_id, both.doc_ids) == ("crazyones", ["crazyones", "vicksburg"])
    assert both.evidence == [("crazyones", 0), ("vicksburg", 1)]
    assert (one.doc_ids, one.evidence_in(one.doc_id)) == ([], [3])
    documents = [row["doc_id"] for row in read_jsonl(out / "documents.jsonl")]
    assert documents == ["crazyones", "vicksburg"]  # each once
    errors = {f["path"].rsplit(" line ", 1)[1]: f for f in failures}
    assert "does not say which of the row's 2 documents" in errors["3"]["error"]
    assert "not one of the row's documents" in errors["4"]["error"]
    assert "1..6" in errors["5"]["error"]
    assert errors["5"]["doc_id"] == f"{crazy}, {siege}"


def test_csv_rows_over_several_documents_and_max_pages(folder: Path, tmp_path: Path) -> None:
    (folder / "questions.csv").write_text(
        "id,question,document,evidence_pages\n"
        'near,Q?,"[""crazyones.pdf"", ""vicksburg.pdf""]","[{""document"": ""vicksburg.pdf"", '
        '""page"": 2}]"\n'
        'far,Q?,"[""crazyones.pdf"", ""vicksburg.pdf""]","[{""document"": ""crazyones.pdf"", '
        '""page"": 1}, {""document"": ""vicksburg.pdf"", ""page"": 6}]"\n'
    )
    questions, failures = prepare(folder, tmp_path / "data", max_pages=2)

    assert not failures
    # far's first pair fits; its page 6 of vicksburg does not
    assert [(q.question_id, q.evidence) for q in questions] == [("near", [("vicksburg", 1)])]
    assert questions[0].documents == ["crazyones", "vicksburg"]


def test_a_file_without_usable_rows_stops_with_the_reason(folder: Path, tmp_path: Path) -> None:
    (folder / "questions.csv").write_text("question,document\nQ?,nowhere.pdf\n")
    with pytest.raises(ValueError, match="failures.jsonl"):
        prepare(folder, tmp_path / "data")
    with pytest.raises(ValueError, match="options.metric: adapter local takes no option"):
        prepare(folder, tmp_path / "data", metric="slideagent")
