"""Questions that fail for an infrastructure reason fail the infer job instead of becoming wrong
answers; the answered ones stay checkpointed and the rerun asks only the others.

Real parts: ``docqa serve`` on 127.0.0.1 (stopped, then started again on the same port), a tiny
random Gemma served by it, a real SQLite cache file damaged on disk, and a real HTTP server that
answers 401."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from helpers.served_deck import QUESTIONS, dataset, infer, write_jsonl
from helpers.serving import ENTRY, free_port, get, served
from helpers.status_server import status_server
from helpers.tiny_models import tiny_embedded

from docqa.backends.cache import ResponseCache
from docqa.backends.errors import CacheCorruptError
from docqa.backends.model_spec import ModelSpec
from docqa.backends.preparation import prepare_model
from docqa.core.error_kinds import INFRASTRUCTURE
from docqa.runtime.checkpoint import Checkpoint
from docqa.stages.infer import InfrastructureFailure, run_inference


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_embedded(tmp_path_factory.mktemp("tiny"))


def served_model(folder: Path, port: int) -> ModelSpec:
    entry = {
        "backend": "openai",
        "base_url": f"http://127.0.0.1:{port}/v1",
        "model": "tiny",
        "vision": False,
        "max_retries": 0,
    }
    prepare_model("tiny-served", entry, folder)
    return ModelSpec(entry, folder)


def checkpointed(out: Path) -> list[str]:
    """Question ids in the kept checkpoint files of ``out`` (after each file's fingerprint)."""
    ids = []
    for path in sorted((out.parent / "checkpoints").glob("*.jsonl")):
        ids += [json.loads(line)["question_id"] for line in path.read_text().splitlines()[1:]]
    return ids


def test_a_stopped_server_fails_the_job_and_the_rerun_asks_only_the_failed_questions(
    tiny: Path, tmp_path: Path
) -> None:
    files = dataset(tmp_path / "data")
    all_questions = files["questions"]
    first_two = write_jsonl(
        tmp_path / "data" / "first_two.jsonl",
        [json.loads(line) for line in all_questions.read_text().splitlines()[:2]],
    )
    port = free_port()
    model = served_model(tmp_path / "served-model", port)
    out = tmp_path / "run" / "predictions.jsonl"

    # a run over two questions puts their answers in the response cache
    with served(tiny, port, tmp_path):
        infer({**files, "questions": first_two}, model, tmp_path / "two" / "predictions.jsonl")
    (tmp_path / "run").mkdir()
    (tmp_path / "two" / "responses.sqlite").rename(tmp_path / "run" / "responses.sqlite")

    # the server is down: two questions answered from the cache, two fail on the network
    with pytest.raises(InfrastructureFailure) as failed:
        infer(files, model, out)
    message = str(failed.value)
    assert "no answer from http://127.0.0.1" in message
    assert "check the server" in message
    assert "infrastructure" in message
    assert "rerun" in message
    assert not out.exists(), "a failed job must not leave predictions that look complete"
    assert sorted(checkpointed(out)) == ["q1", "q2"]

    # the server is back on the same address: the rerun asks it only the two failed questions
    with served(tiny, port, tmp_path) as base_url:
        predictions = infer(files, model, out)
        health = get(base_url.removesuffix("/v1") + "/health")
    assert health["requests"] == 2
    assert health["failed"] == 0
    assert [row["question_id"] for row in predictions] == [q[0] for q in QUESTIONS]
    assert all(not row["error"] and not row["error_kind"] for row in predictions), predictions


def test_under_the_threshold_infrastructure_errors_are_recorded_and_counted_apart(
    tmp_path: Path,
) -> None:
    files = dataset(tmp_path / "data")
    model = served_model(tmp_path / "served-model", free_port())  # nothing listens there
    out = tmp_path / "run" / "predictions.jsonl"
    predictions = infer(files, model, out, max_infrastructure_errors=len(QUESTIONS))
    assert len(predictions) == len(QUESTIONS)
    assert all(row["error_kind"] == INFRASTRUCTURE for row in predictions)
    assert all("no answer from" in row["error"] for row in predictions)

    from docqa.report.tables import results_table
    from docqa.stages.score import score_run, write_scores

    meta = {"dataset": "synthetic", "method": "oracle_pages", "model": "served"}
    scores = score_run(files["questions"], out, "slideagent", {}, meta)
    assert scores["summary"]["errors"] == scores["summary"]["infrastructure_errors"] == 4
    write_scores(scores, tmp_path / "scores.json")
    (row,) = results_table([tmp_path / "scores.json"], []).to_dict("records")
    assert (row["errors"], row["infra errors"]) == (4, 4)


def test_a_refused_api_key_fails_the_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with status_server(free_port(), 401) as base_url:  # a hosted model's answer to a wrong key
        monkeypatch.setenv("DOCQA_TEST_KEY", "sk-wrong")
        entry = {
            "backend": "openai",
            "base_url": base_url,
            "model": "gpt-4o-2024-08-06",
            "api_key_env": "DOCQA_TEST_KEY",
        }
        prepare_model("hosted", entry, tmp_path / "hosted")
        out = tmp_path / "run" / "predictions.jsonl"
        with pytest.raises(InfrastructureFailure, match=r"HTTP 401.*DOCQA_TEST_KEY"):
            infer(dataset(tmp_path / "data"), ModelSpec(entry, tmp_path / "hosted"), out)
    assert not out.exists()
    assert checkpointed(out) == []


def filled_cache(tiny: Path, tmp_path: Path) -> tuple[dict[str, Path], Path, Path]:
    """A run of the four questions on the model loaded directly: its files, its output path
    and its response cache (four rows, checkpointed into one SQLite file)."""
    files = dataset(tmp_path / "data")
    out = tmp_path / "run" / "predictions.jsonl"
    infer(files, ModelSpec(ENTRY, tiny), out)
    cache = out.parent / "responses.sqlite"
    responses = ResponseCache(cache)
    assert len(responses) == len(QUESTIONS)
    responses.close()  # the last connection folds the WAL into the file
    assert not Path(f"{cache}-wal").exists()
    return files, out, cache


def damage_page(path: Path, page: int) -> None:
    """Overwrite one page of a SQLite file with bytes that are no b-tree page."""
    with sqlite3.connect(path) as db:
        size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    with open(path, "r+b") as handle:
        handle.seek((page - 1) * size)
        handle.write(b"\xa5" * size)


def test_a_cache_with_a_bad_page_fails_the_job_naming_the_file(tiny: Path, tmp_path: Path) -> None:
    files, out, cache = filled_cache(tiny, tmp_path)
    with sqlite3.connect(cache) as db:
        (index_root,) = db.execute(
            "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'responses'"
        ).fetchone()
    db.close()
    damage_page(cache, index_root)
    (out.parent / "checkpoints").rename(out.parent / "old-checkpoints")  # make it ask again
    out.unlink()

    with pytest.raises(InfrastructureFailure) as failed:
        infer(files, ModelSpec(ENTRY, tiny), out)
    message = str(failed.value)
    assert f"the response cache {cache} is corrupt" in message
    assert "mv " in message
    assert cache.exists(), "the damaged cache must be moved aside by the user, not deleted"
    assert not out.exists()
    assert checkpointed(out) == []


def test_a_wholly_corrupt_cache_names_the_file_and_the_command_that_moves_it_aside(
    tiny: Path, tmp_path: Path
) -> None:
    files, out, cache = filled_cache(tiny, tmp_path)
    cache.write_bytes(b"this is not a database, it was overwritten by something else" * 100)
    (out.parent / "checkpoints").rename(out.parent / "old-checkpoints")
    out.unlink()

    with pytest.raises(CacheCorruptError) as failed:
        infer(files, ModelSpec(ENTRY, tiny), out)
    message = str(failed.value)
    assert f"the response cache {cache} is corrupt" in message
    assert cache.exists()
    command = message.split(": ")[-1]
    assert command.startswith("mkdir "), message
    subprocess.run(["bash", "-c", command], check=True)  # the command the message gives works
    assert not cache.exists()
    assert len(list(cache.parent.glob("responses.sqlite.corrupt-*"))) == 1
    predictions = infer(files, ModelSpec(ENTRY, tiny), out)
    assert all(not row["error"] for row in predictions)


def test_a_kept_checkpoint_outlives_finish_and_runs_with_other_settings(tmp_path: Path) -> None:
    out = tmp_path / "predictions.jsonl"
    good = Checkpoint(out, "good settings", key="question_id", keep=True)
    good.append({"question_id": "q1", "answer": "42"})
    good.finish(["q1"])
    out.unlink()  # as Snakemake removes the outputs of a job it reruns
    other = Checkpoint(out, "a bad option", key="question_id", keep=True)
    assert not other.done("q1")
    other.close()
    again = Checkpoint(out, "good settings", key="question_id", keep=True)
    assert again.done("q1")
    assert again.partial.parent == tmp_path / "checkpoints"
    assert again.finish(["q1"]) == [{"question_id": "q1", "answer": "42"}]


def test_a_question_about_a_missing_document_says_why_and_the_report_lists_it(
    tiny: Path, tmp_path: Path
) -> None:
    files = dataset(tmp_path / "data")
    rows = [json.loads(line) for line in files["questions"].read_text().splitlines()]
    rows[1]["doc_id"] = "ghost"  # a document the dataset does not have
    rows[2]["doc_id"] = "scan"  # a document whose render failed
    write_jsonl(files["questions"], rows)
    with files["documents"].open("a") as handle:
        handle.write(json.dumps({"doc_id": "scan", "path": "scan.pdf", "num_pages": 1}) + "\n")
    out = tmp_path / "runs" / "synthetic" / "oracle_pages" / "tiny" / "predictions.jsonl"
    out.parent.mkdir(parents=True)
    failure = {
        "stage": "render",
        "doc_id": "scan",
        "path": "scan.pdf",
        "error": "the PDF is encrypted with a password",
        "fix": "remove the password",
    }
    (tmp_path / "pages" / "synthetic").mkdir(parents=True)
    failures = write_jsonl(tmp_path / "pages" / "synthetic" / "failures.jsonl", [failure])
    run_inference(
        **files,
        index_dirs={},
        failures=failures,
        method_config={"type": "oracle_pages", "max_new_tokens": 8},
        retriever_configs={},
        model=ModelSpec(ENTRY, tiny),
        role_models={},
        cache=tmp_path / "responses.sqlite",
        out=out,
    )
    predictions = {row["question_id"]: row for row in map(json.loads, out.open())}
    ghost, scan = predictions["q2"], predictions["q3"]
    assert ghost["error_kind"] == scan["error_kind"] == "document"
    assert "document ghost is not in the dataset" in ghost["error"]
    assert "failures.jsonl" not in ghost["error"]  # no pointer to a file that does not name it
    assert "document scan could not be read (render: the PDF is encrypted" in scan["error"]
    assert "fix: remove the password" in scan["error"]

    from docqa.report.tables import results_table, to_markdown
    from docqa.stages.score import score_run, write_scores

    meta = {"dataset": "synthetic", "method": "oracle_pages", "model": "tiny"}
    scores = score_run(files["questions"], out, "slideagent", {}, meta)
    assert scores["summary"]["errors"] == 2
    assert scores["summary"]["infrastructure_errors"] == 0
    write_scores(scores, tmp_path / "scores.json")
    footnote = to_markdown(results_table([tmp_path / "scores.json"], [failures]))
    assert "- synthetic: 1 document failed and were skipped: scan" in footnote
    assert "questions name 1 document(s) that the dataset does not have" in footnote
    assert footnote.rstrip().endswith("ghost")
