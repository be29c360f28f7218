"""Your own documents, for real: a folder of real PDFs (pypdf's test files, not made by docqa)
and a CSV of questions, some with answers and some without, through the whole DAG to a report;
then ``docqa ask`` on the same files in a subprocess, twice (the second time from the cache,
without rendering), and refusing broken files with one clear line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.docqa_ask import ask
from helpers.workflow import default_config, snakemake, workflow_copy

pytestmark = pytest.mark.slow

REAL = Path(__file__).resolve().parent / "data" / "real_pdfs"
QUESTIONS = """\
id,question,document,answer,evidence_pages,kind
crazy-date,What date is under the title The Crazy Ones?,crazyones.pdf,"October 14, 1998",1,date
siege-city,Which city is under siege?,vicksburg.pdf,Vicksburg,1,text
no-gold,What regiment offers to do patchwork?,vicksburg.pdf,,5,text
no-gold-no-pages,Who is coming with fifty thousand men?,vicksburg.pdf,,,text
lost,What is on the cover?,annual-report.pdf,,,text
"""


def own_documents(folder: Path) -> Path:
    folder.mkdir()
    shutil.copy(REAL / "local_crazyones.pdf", folder / "crazyones.pdf")
    shutil.copy(REAL / "local_vicksburg.pdf", folder / "vicksburg.pdf")
    (folder / "questions.csv").write_text(QUESTIONS)
    return folder


def config_for(folder: Path) -> dict:
    config = default_config()
    config["datasets"] = {
        "mine": {"adapter": "local", "options": {"root": str(folder)}, "metric": "slideagent"}
    }
    config["experiments"] = [
        {"datasets": ["mine"], "methods": ["text_rag_top1"], "models": ["gemma3-270m"]}
    ]
    # docqa ask answers with the model the run prepared (results/models/gemma3-270m), not
    # with its own default (a second model to prepare)
    config["ask"] = {"model": "gemma3-270m"}
    return config


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("own")
    work = workflow_copy(base, config_for(own_documents(base / "mine")))
    result = snakemake(work)
    assert result.returncode == 0, result.stderr[-5000:]
    return work


def test_the_folder_runs_to_a_report_and_scores_what_it_can(finished_run: Path) -> None:
    work = finished_run
    table = (work / "results/tables/results.md").read_text()
    assert "| mine " in table
    assert "2 of 4 question(s) have no gold answer" in table
    failures = [json.loads(line) for line in (work / "results/data/mine/failures.jsonl").open()]
    assert len(failures) == 1
    assert failures[0]["path"].endswith("questions.csv line 6")
    assert "annual-report.pdf" in failures[0]["error"]
    assert failures[0]["fix"]

    scores = json.loads((work / "results/scores/mine/text_rag_top1/gemma3-270m.json").read_text())
    summary = scores["summary"]
    assert summary["questions"] == 4
    assert summary["errors"] == 0
    assert summary["skipped"] == {"answer": 2, "pages": 1}
    assert summary["num_questions"] + summary["f1_questions"] == 2  # the two with answers
    assert summary["page_recall"] is not None  # three questions have evidence pages
    rows = {row["question_id"]: row for row in scores["per_question"]}
    assert rows["no-gold"]["skipped"] == "no gold answer"
    assert rows["no-gold"]["score"] is None
    assert rows["no-gold"]["page_recall"] is not None
    assert set(scores["breakdown"]["kind"]) == {"date", "text"}

    # questions without a gold answer are answered and listed with their answers
    predictions = [
        json.loads(line)
        for line in (work / "results/runs/mine/text_rag_top1/gemma3-270m/predictions.jsonl").open()
    ]
    assert {p["question_id"] for p in predictions} == set(rows)
    index = (work / "results/traces/mine/text_rag_top1/gemma3-270m/index.html").read_text()
    assert "What regiment offers to do patchwork?" in index
    assert "Who is coming with fifty thousand men?" in index
    assert index.count("<td>(none)</td>") == 2  # their gold column


def test_ask_answers_then_answers_again_from_the_cache(finished_run: Path) -> None:
    work = finished_run
    pdf = str(work.parent / "mine" / "vicksburg.pdf")
    first = ask(work, pdf, "Which city is under siege?", "--json")
    assert first.returncode == 0, first.stderr[-3000:]
    answer = json.loads(first.stdout)
    assert answer["error"] == ""
    assert answer["answer"]
    assert answer["cached"] == []  # rendered, OCRed and indexed this time
    assert all(1 <= page <= 6 for page in answer["pages"])
    assert answer["pages"]
    assert Path(work / answer["trace"]).is_file()
    cache = work / answer["cache"]
    assert cache.parent == work / "results/ask"
    images = sorted((cache / "pages").rglob("page-*.png"))
    assert len(images) == 6
    rendered_at = [image.stat().st_mtime_ns for image in images]

    second = ask(work, pdf, "What regiment offers to do patchwork?")
    assert second.returncode == 0, second.stderr[-3000:]
    assert "render: cached" in second.stderr
    assert "render: running" not in second.stderr
    assert "text: cached" in second.stderr
    assert [image.stat().st_mtime_ns for image in images] == rendered_at
    lines = second.stdout.splitlines()
    assert lines[0].strip()
    assert "pages used:" in second.stdout
    # which model answered, and that it is only meant to check the plumbing
    assert "model: gemma3-270m (a plumbing-grade model" in second.stdout
    assert "model gemma3-270m: prepared by the pipeline" in second.stderr
    assert "trace:" in second.stdout
    stages = json.loads((cache / "stages.json").read_text())
    assert set(stages) == {"render", "text", "index/bm25"}


def test_ask_over_two_documents_answers_once_over_both(finished_run: Path) -> None:
    work = finished_run
    mine = work.parent / "mine"
    vicksburg, crazy = str(mine / "vicksburg.pdf"), str(mine / "crazyones.pdf")
    # the same file twice counts once
    together = ask(work, crazy, vicksburg, crazy, "Which city is under siege?", "--json")
    assert together.returncode == 0, together.stderr[-3000:]
    lines = together.stdout.splitlines()
    assert len(lines) == 1  # one answer over the set
    answer = json.loads(lines[0])
    assert answer["error"] == ""
    assert answer["document"] == f"{crazy}, {vicksburg}"
    assert answer["pages"] == []
    assert answer["document_pages"]
    assert {item["document"] for item in answer["document_pages"]} <= {crazy, vicksburg}
    trace = Path(work / answer["trace"]).read_text()
    assert "page D" in trace  # thumbnails named D1:1, D2:3...
    assert "crazyones" in trace
    assert "vicksburg" in trace
    each = ask(work, crazy, vicksburg, "Which city is under siege?", "--json", "--each")
    assert each.returncode == 0, each.stderr[-3000:]
    assert [json.loads(line)["document"] for line in each.stdout.splitlines()] == [
        crazy,
        vicksburg,
    ]


def test_ask_refuses_broken_files_in_one_line(finished_run: Path, tmp_path: Path) -> None:
    work = finished_run
    encrypted = ask(work, str(REAL / "local_encrypted.pdf"), "What is in it?")
    assert encrypted.returncode == 1
    assert encrypted.stdout == ""
    refusal = [line for line in encrypted.stderr.splitlines() if line.startswith("docqa ask:")]
    assert len(refusal) == 1
    assert "password" in refusal[0]
    assert "local_encrypted.pdf" in refusal[0]

    fake = tmp_path / "report.pdf"
    fake.write_text("this is a text file with a .pdf name\n")
    refused = ask(work, str(fake), "What is in it?", "--json")
    assert refused.returncode == 1
    assert "neither a PDF nor an image" in json.loads(refused.stdout)["error"]
    assert not any((work / "results/ask").glob("*/data/*/source/report.pdf"))


def test_editing_the_question_file_reruns_the_dataset(finished_run: Path) -> None:
    questions = finished_run.parent / "mine" / "questions.csv"
    # the data rule takes the folder's files as inputs (Snakemake compares small files' content,
    # so the edit must change it; touching is not enough)
    with questions.open("a") as handle:
        handle.write("page-49,What page number is printed on page 1?,vicksburg.pdf,49,1,text\n")
    result = snakemake(finished_run, "-n")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "prepare_dataset" in result.stdout
    assert "render_pages" in result.stdout
