"""Your own documents, for real, as docs/own-documents.md's worked example says: after a small
default run (and its report), the example's first code block runs as it is written (a folder of
real PDFs, pypdf's test files, not made by docqa, and a CSV of questions, some with answers and
some without, through the whole DAG into its own results folder, then its report); the default
run's results and report are left untouched and each report names only its own dataset. Then
``docqa ask`` on the same files in a subprocess, twice (the second time from the cache, without
rendering), and refusing broken files with one clear line."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.docqa_ask import ask
from helpers.tiny_models import build_tiny_vlm, tiny_model_entry
from helpers.workflow import ROOT, default_config, snakemake, workflow_copy

pytestmark = pytest.mark.slow

REAL = ROOT / "tests" / "data" / "real_pdfs"
MINE = "results/mine"  # the worked example's results folder (its config's `results:`)
TINY = "tiny-qwen2-vl"


def worked_example() -> str:
    """The first shell block of the worked example in docs/own-documents.md, as written."""
    section = (ROOT / "docs" / "own-documents.md").read_text().split("## A worked example", 1)[1]
    return section.split("```bash\n", 1)[1].split("```", 1)[0]


def default_run_config(weights: Path) -> dict:
    """The default config, smaller: one deck, one method, a tiny random model (the example's
    gemma3-270m, still in the config, is prepared by the example's run)."""
    config = default_config()
    config["datasets"]["synthslides"]["options"] = {"seed": 5, "decks": 1, "questions_per_deck": 3}
    config["models"][TINY] = tiny_model_entry(weights)
    config["experiments"] = [
        {"datasets": ["synthslides"], "methods": ["text_rag_top1"], "models": [TINY]}
    ]
    # docqa ask answers with the model the run prepared (results/models/gemma3-270m), not
    # with its own default (a second model to prepare); its method stays the default
    config["ask"]["model"] = "gemma3-270m"
    return config


def fingerprints(results: Path) -> dict[str, str]:
    """SHA-256 of every file of the default run's report: its tables, figures, scores, traces
    and report.html."""
    files = [results / "report.html"] + [
        path
        for folder in ("tables", "figures", "scores", "traces")
        for path in (results / folder).rglob("*")
        if path.is_file()
    ]
    return {str(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in files}


@dataclass
class Finished:
    work: Path
    default_results: dict[str, str]  # fingerprints after the default run
    example: subprocess.CompletedProcess[str]  # the worked example's block


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Finished:
    base = tmp_path_factory.mktemp("own")
    work = workflow_copy(base, default_run_config(build_tiny_vlm("qwen2_vl", base / "tiny")))
    # as the repository has them: the example copies from tests/data; the default profile
    # gives --report its cores
    (work / "tests").mkdir()
    (work / "tests" / "data").symlink_to(ROOT / "tests" / "data")
    shutil.copytree(ROOT / "profiles", work / "profiles")
    for args in ((), ("--report", "results/report.html")):
        result = snakemake(work, *args)
        assert result.returncode == 0, result.stderr[-5000:]
    before = fingerprints(work / "results")
    # as written, with the test's own folder in place of /tmp; snakemake and docqa of this Python
    script = worked_example().replace("/tmp/", f"{base}/")
    example = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
    )
    assert example.returncode == 0, example.stdout[-3000:] + example.stderr[-5000:]
    return Finished(work, before, example)


@pytest.fixture(scope="module")
def finished_run(finished: Finished) -> Path:
    return finished.work


def test_the_example_leaves_the_default_results_and_report_untouched(finished: Finished) -> None:
    assert fingerprints(finished.work / "results") == finished.default_results
    assert len(finished.default_results) > 10


def test_the_run_prints_the_report_command_of_the_docs(finished: Finished) -> None:
    script = worked_example().replace("/tmp/", f"{finished.work.parent}/")
    documented = [line for line in script.splitlines() if "--report" in line]
    assert len(documented) == 1
    printed = finished.example.stdout + finished.example.stderr
    assert f"The HTML report of these results: {documented[0]}" in printed


def report_text(report: Path) -> str:
    """What a Snakemake HTML report says: its page, with the text files it embeds (the results
    tables, base64) decoded, less the rules' wildcard constraints (``{dataset,synthslides|mine}``:
    the datasets the merged config defines, not those it ran)."""
    page = report.read_text(errors="replace")
    embedded = re.findall(r"data:text/[^;,]+(?:;[^;,]+)*;base64,([A-Za-z0-9+/=]+)", page)
    assert embedded, f"{report} embeds no table"
    decoded = [base64.b64decode(data).decode("utf-8", "replace") for data in embedded]
    return re.sub(r"\{\w+,[^{}]*\}", "{}", "\n".join([page, *decoded]))


def test_each_report_names_only_its_own_dataset(finished: Finished) -> None:
    # the default report, built again after the example ran
    result = snakemake(finished.work, "--report", "results/report.html")
    assert result.returncode == 0, result.stderr[-3000:]
    default = report_text(finished.work / "results/report.html")
    mine = report_text(finished.work / MINE / "report.html")
    assert f"synthslides / text_rag_top1 / {TINY}" in default  # the link to its traces
    assert "mine / text_rag_top1 / gemma3-270m" in mine
    assert "synthslides" not in mine
    assert not re.search(r"\bmine\b", default)


def test_the_folder_runs_to_a_report_and_scores_what_it_can(finished_run: Path) -> None:
    results = finished_run / MINE
    table = (results / "tables/results.md").read_text()
    assert "| mine " in table
    assert "synthslides" not in table
    assert "2 of 4 question(s) have no gold answer" in table
    failures = [json.loads(line) for line in (results / "data/mine/failures.jsonl").open()]
    assert len(failures) == 1
    assert failures[0]["path"].endswith("questions.csv line 6")
    assert "annual-report.pdf" in failures[0]["error"]
    assert failures[0]["fix"]

    scores = json.loads((results / "scores/mine/text_rag_top1/gemma3-270m.json").read_text())
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
        for line in (results / "runs/mine/text_rag_top1/gemma3-270m/predictions.jsonl").open()
    ]
    assert {p["question_id"] for p in predictions} == set(rows)
    index = (results / "traces/mine/text_rag_top1/gemma3-270m/index.html").read_text()
    assert "What regiment offers to do patchwork?" in index
    assert "Who is coming with fifty thousand men?" in index
    assert index.count("<td>(none)</td>") == 2  # their gold column
    # prepared models are shared by every results folder
    assert (finished_run / "results/models/gemma3-270m/model.json").is_file()
    assert not (results / "models").exists()


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
    method = default_config()["ask"]["method"]
    retriever = default_config()["methods"][method]["retriever"]
    assert set(stages) == {"render", "text", f"index/{retriever}"}


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
    result = snakemake(
        finished_run,
        "-n",
        "--configfile",
        "config/config.yaml",
        str(questions.parent.parent / "mine.yaml"),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "prepare_dataset" in result.stdout
    assert "render_pages" in result.stdout
