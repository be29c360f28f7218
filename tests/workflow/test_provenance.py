"""provenance.json and the split of run-varying measurements out of predictions.jsonl."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import torch

from docqa import __version__
from docqa.core.jsonl import write_jsonl
from docqa.core.prediction import (
    join_run_varying,
    read_predictions_with_timings,
    read_timings,
    split_run_varying,
    write_predictions,
)
from docqa.workflow.provenance import (
    build_provenance,
    config_hash,
    merge_shard_provenance,
    read_provenance,
    sha256_of,
    write_provenance,
)

ROW = {
    "question_id": "q1",
    "answer": "42",
    "pages": [2],
    "trace": [
        {"step": 0, "usage": {"calls": 1, "tokens_in": 9, "seconds": 1.5, "peak_memory_mb": 80.0}},
        {"step": 1, "details": {"sandbox": {"kind": "ok", "seconds": 0.02}}},
    ],
    "usage": {"calls": 1, "tokens_in": 9, "seconds": 1.5, "peak_memory_mb": 80.0},
    "error": "",
}


def test_run_varying_values_leave_the_row_and_come_back() -> None:
    stable, measured = split_run_varying(ROW)
    assert "seconds" not in json.dumps(stable)
    assert "peak_memory_mb" not in json.dumps(stable)
    assert measured == {
        "trace.0.usage.seconds": 1.5,
        "trace.0.usage.peak_memory_mb": 80.0,
        "trace.1.details.sandbox.seconds": 0.02,
        "usage.seconds": 1.5,
        "usage.peak_memory_mb": 80.0,
    }
    assert stable["usage"] == {"calls": 1, "tokens_in": 9}
    assert join_run_varying(stable, measured) == ROW


def test_predictions_are_written_without_timings_and_read_back_with_them(tmp_path: Path) -> None:
    out = tmp_path / "predictions.jsonl"
    write_predictions(
        out, [ROW, {**ROW, "question_id": "q2", "usage": {**ROW["usage"], "seconds": 9.0}}]
    )
    assert b"seconds" not in out.read_bytes()
    assert read_timings(out)["q2"]["usage.seconds"] == 9.0
    first, second = read_predictions_with_timings(out)
    assert (first.usage.seconds, second.usage.seconds, first.usage.peak_memory_mb) == (
        1.5,
        9.0,
        80.0,
    )
    (tmp_path / "predictions.timings.jsonl").unlink()
    with pytest.raises(FileNotFoundError, match="predictions.timings.jsonl is missing.*forcerun"):
        read_timings(out)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def run_inputs(tmp_path: Path) -> dict[str, Path]:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "requirements.lock").write_text("torch==2.14.1\n")
    git(repo, "init", "-q")
    git(repo, "add", "requirements.lock")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "lock")
    model = tmp_path / "models" / "m"
    model.mkdir(parents=True)
    (model / "model.json").write_text(json.dumps({"id": "tiny", "revision": "a" * 40}))
    manifest = tmp_path / "downloads" / "d" / "manifest.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"repo": "org/data", "commit": "b" * 40, "files": {}}))
    write_jsonl(tmp_path / "questions.jsonl", [{"question_id": "q1"}])
    write_jsonl(tmp_path / "documents.jsonl", [{"doc_id": "d1"}])
    write_predictions(tmp_path / "run" / "predictions.jsonl", [ROW])
    return {"repo": repo, "model": model, "manifest": manifest, "root": tmp_path}


def provenance_of(inputs: dict[str, Path], config_slice: dict) -> dict:
    root = inputs["root"]
    return build_provenance(
        run={"dataset": "d", "method": "x", "model": "m", "shards": 1},
        config_slice=config_slice,
        predictions=root / "run" / "predictions.jsonl",
        questions=root / "questions.jsonl",
        documents=root / "documents.jsonl",
        manifests=[inputs["manifest"]],
        model_dir=inputs["model"],
        root=inputs["repo"],
    )


def test_provenance_records_code_pins_config_data_model_and_hardware(
    run_inputs: dict[str, Path],
) -> None:
    provenance = provenance_of(run_inputs, {"method": {"type": "text_rag"}})
    assert provenance["code"] == {
        "commit": git(run_inputs["repo"], "rev-parse", "HEAD"),
        "dirty": False,
    }
    assert provenance["packages"]["docqa_version"] == __version__
    assert len(provenance["packages"]["requirements_lock_sha256"]) == 64
    assert provenance["config"]["sha256"] == config_hash({"method": {"type": "text_rag"}})
    assert provenance["dataset"]["source"]["commit"] == "b" * 40
    assert provenance["model"]["card"]["revision"] == "a" * 40
    assert provenance["hardware"]["torch"] == torch.__version__
    assert provenance["hardware"]["cpu_count"] >= 1
    assert provenance["usage"] == {
        "questions": 1,
        "seconds": 1.5,
        "peak_memory_mb": 80.0,
        "cached_calls": 0,
    }

    (run_inputs["repo"] / "requirements.lock").write_text("torch==2.13.0\n")
    changed = provenance_of(run_inputs, {"method": {"type": "text_rag", "top_k": 2}})
    assert changed["code"]["dirty"] is True
    assert changed["packages"] != provenance["packages"]
    assert changed["config"]["sha256"] != provenance["config"]["sha256"]


def test_a_sharded_run_keeps_each_shard_jobs_hardware(run_inputs: dict[str, Path]) -> None:
    root = run_inputs["root"]
    parts = []
    for index in (1, 2):
        part = provenance_of(run_inputs, {})
        part["run"] |= {"shards": 2, "shard": f"{index}-of-2"}
        parts.append(root / f"{index}-of-2.provenance.json")
        write_provenance(parts[-1], part)
    merged = merge_shard_provenance(parts, root / "run" / "predictions.jsonl")
    assert merged["run"] == {"dataset": "d", "method": "x", "model": "m", "shards": 2}
    assert [job["shard"] for job in merged["shard_jobs"]] == ["1-of-2", "2-of-2"]
    write_provenance(root / "run" / "provenance.json", merged)
    assert read_provenance(root / "run") == merged
    with pytest.raises(FileNotFoundError, match="provenance.json is missing.*forcerun"):
        read_provenance(root)


def test_the_pins_are_those_of_the_checkout_docqa_runs_from(run_inputs: dict[str, Path]) -> None:
    """Left to its default, provenance hashes this checkout's requirements.lock (not src/'s)."""
    root = run_inputs["root"]
    provenance = build_provenance(
        run={"dataset": "d", "method": "x", "model": "m", "shards": 1},
        config_slice={},
        predictions=root / "run" / "predictions.jsonl",
        questions=root / "questions.jsonl",
        documents=root / "documents.jsonl",
        manifests=[run_inputs["manifest"]],
        model_dir=run_inputs["model"],
    )
    lock = Path(__file__).resolve().parents[2] / "requirements.lock"
    assert provenance["packages"]["requirements_lock_sha256"] == sha256_of(lock)
