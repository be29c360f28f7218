"""The whole DAG on a two-deck config, for real: generation, render, tesseract, BM25, the
embedded Gemma model, scores and the report; then reruns, config edits and a killed job."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from helpers.workflow import default_config, snakemake, workflow_copy

pytestmark = pytest.mark.slow

RUN = "results/runs/synthslides/text_rag_top4/gemma3-270m/predictions.jsonl"


def small_config() -> dict:
    config = default_config()
    config["datasets"]["synthslides"]["options"] = {
        "seed": 7,
        "decks": 2,
        "questions_per_deck": 6,
        "corrupt_decks": 3,
    }
    return config


def planned_jobs(output: str) -> dict[str, int]:
    """Rule → job count from the 'Job stats' table of a dry run."""
    table = output.split("Job stats:", 1)[1].split("total", 1)[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.M)}


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = workflow_copy(tmp_path_factory.mktemp("e2e"), small_config())
    result = snakemake(work)
    assert result.returncode == 0, result.stderr[-5000:]
    return work


def test_the_run_leaves_tables_figures_and_counts_failures(finished_run: Path) -> None:
    work = finished_run
    for name in ("score_by_kind", "retrieval_recall"):
        for ext in ("png", "pdf"):
            assert (work / f"results/figures/{name}.{ext}").stat().st_size > 1000
    failures = [
        json.loads(line) for line in (work / "results/pages/synthslides/failures.jsonl").open()
    ]
    assert len(failures) == 3
    assert all(f["error"] and f["fix"] for f in failures)
    table = (work / "results/tables/results.md").read_text()
    assert "3 documents failed" in table
    scores = json.loads(
        (work / "results/scores/synthslides/oracle_pages/gemma3-270m.json").read_text()
    )
    assert scores["summary"]["questions"] == 2 * 6 + 3
    assert scores["summary"]["errors"] >= 3  # the broken documents' questions, recorded not lost
    recall = json.loads((work / "results/index/synthslides/bm25/recall.json").read_text())
    assert recall["recall"][3] > recall["random"][3] + 20


def test_a_second_run_does_nothing(finished_run: Path) -> None:
    result = snakemake(finished_run, "-n")
    assert result.returncode == 0
    assert "Nothing to be done" in result.stdout + result.stderr


def dry_run_with(work: Path, config: dict) -> dict[str, int]:
    edited = work / "config" / "edited.yaml"
    edited.write_text(yaml.safe_dump(config, sort_keys=False))
    result = snakemake(work, "-n", "--configfile", str(edited))
    assert result.returncode == 0, result.stderr
    return planned_jobs(result.stdout)


def test_a_method_edit_reruns_only_that_methods_jobs(finished_run: Path) -> None:
    config = small_config()
    config["methods"]["text_rag_top4"]["top_k"] = 3
    assert dry_run_with(finished_run, config) == {
        "infer": 1,
        "traces": 1,
        "score": 1,
        "report": 1,
        "all": 1,
    }


def test_a_model_edit_reruns_inference_but_not_render_or_ocr(finished_run: Path) -> None:
    config = small_config()
    config["models"]["gemma3-270m"]["max_batch_size"] = 4
    assert dry_run_with(finished_run, config) == {
        "infer": 3,
        "traces": 3,
        "score": 3,
        "report": 1,
        "all": 1,
    }


def test_a_killed_infer_job_resumes_without_loss_or_duplicates(finished_run: Path) -> None:
    work = finished_run
    before = [json.loads(line)["question_id"] for line in (work / RUN).open()]
    (work / RUN).unlink()
    (work / "results/cache/responses.sqlite").unlink()  # make the rerun do real work
    checkpoints = (work / RUN).parent / "checkpoints"
    shutil.rmtree(checkpoints)  # the finished run's kept checkpoint would answer everything
    partial = None  # the checkpoint file of the rerun, named by its settings' fingerprint
    job = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--cores", "2", RUN],
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.time() + 600
    while time.time() < deadline and job.poll() is None:
        written = sorted(checkpoints.glob("predictions-*.jsonl"))
        if written and len(written[0].read_text().splitlines()) >= 4:  # header + 3 answers
            partial = written[0]
            break
        time.sleep(0.2)
    assert job.poll() is None, "the job finished before it could be killed"
    assert partial is not None
    os.killpg(job.pid, signal.SIGKILL)
    job.wait()
    done_before_kill = {
        row["question_id"]: row["answer"]
        for row in map(json.loads, partial.read_text().splitlines()[1:])
    }
    assert 3 <= len(done_before_kill) < len(before)

    assert snakemake(work, "--unlock").returncode == 0  # the killed run left its lock behind
    result = snakemake(work, "--rerun-incomplete", RUN)
    assert result.returncode == 0, result.stderr[-3000:]
    after = [json.loads(line) for line in (work / RUN).open()]
    assert [row["question_id"] for row in after] == before
    kept = [json.loads(line)["question_id"] for line in partial.read_text().splitlines()[1:]]
    assert sorted(kept) == sorted(before)  # the checkpoint is kept, outside the outputs
    for row in after:
        if row["question_id"] in done_before_kill:
            assert row["answer"] == done_before_kill[row["question_id"]]
