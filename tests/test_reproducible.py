"""Deleting results/ and rerunning gives byte-identical predictions and scores on CPU, and a run
split in shards merges into those same bytes: a reduced default config (2 decks, one method,
the embedded model), run for real into fresh result trees."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.workflow import default_config, snakemake, workflow_copy

pytestmark = pytest.mark.slow

RUN = "results/runs/synthslides/text_rag_top4/gemma3-270m"
SCORES = "results/scores/synthslides/text_rag_top4/gemma3-270m.json"


def reduced_config(shards: int = 1) -> dict:
    config = default_config()
    config["datasets"]["synthslides"]["options"] = {
        "seed": 3,
        "decks": 2,
        "questions_per_deck": 5,
        "corrupt_decks": 1,
    }
    config["experiments"] = [
        {
            "datasets": ["synthslides"],
            "methods": ["text_rag_top4"],
            "models": ["gemma3-270m"],
            "shards": shards,
        }
    ]
    return config


def run_into_fresh_tree(root: Path) -> Path:
    work = workflow_copy(root, reduced_config())
    done = snakemake(work, SCORES)
    assert done.returncode == 0, done.stderr[-5000:]
    return work


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_into_fresh_tree(tmp_path_factory.mktemp("first"))


def test_a_rerun_from_nothing_writes_the_same_bytes(
    first: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    second = run_into_fresh_tree(tmp_path_factory.mktemp("second"))
    predictions = (first / RUN / "predictions.jsonl").read_bytes()
    assert predictions == (second / RUN / "predictions.jsonl").read_bytes()
    rows = [json.loads(line) for line in predictions.splitlines()]
    assert len(rows) == 11
    assert sum(1 for row in rows if row["answer"]) >= 5
    # the measurements that differ between runs live beside the predictions, not in them
    assert b'"seconds"' not in predictions
    assert b"peak_memory_mb" not in predictions
    timings = [json.loads(line) for line in (first / RUN / "predictions.timings.jsonl").open()]
    assert [t["question_id"] for t in timings] == [row["question_id"] for row in rows]
    answered = [t for t, row in zip(timings, rows, strict=True) if not row["error"]]
    assert all(t["measured"]["usage.seconds"] > 0 for t in answered)
    provenance = json.loads((first / RUN / "provenance.json").read_text())
    assert provenance["usage"]["questions"] == 11
    assert provenance["usage"]["seconds"] > 0
    assert provenance["model"]["card"]["gguf_sha256"]
    assert provenance["dataset"]["source"] == {"generated": True}
    assert (first / SCORES).read_bytes() == (second / SCORES).read_bytes()


def test_three_shards_merge_into_the_unsharded_bytes(
    first: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # the first run's tree without its runs, scores and response cache: the shards answer
    # every question with the model again, and only infer and score run
    sharded = workflow_copy(tmp_path_factory.mktemp("sharded"), reduced_config(shards=3))
    shutil.copytree(
        first / "results",
        sharded / "results",
        ignore=shutil.ignore_patterns("runs", "scores", "cache", "tables", "figures"),
    )
    shutil.copytree(first / ".snakemake", sharded / ".snakemake")
    done = snakemake(sharded, SCORES)
    assert done.returncode == 0, done.stderr[-5000:]
    log = done.stdout + done.stderr
    assert "rule prepare_model" not in log
    assert "rule infer_shard" in log
    assert sorted(p.name for p in (sharded / RUN / "shards").glob("*-of-3.jsonl")) == [
        "1-of-3.jsonl",
        "2-of-3.jsonl",
        "3-of-3.jsonl",
    ]
    predictions = (sharded / RUN / "predictions.jsonl").read_bytes()
    assert predictions == (first / RUN / "predictions.jsonl").read_bytes()
    provenance = json.loads((sharded / RUN / "provenance.json").read_text())
    assert provenance["run"]["shards"] == 3
    assert len(provenance["shard_jobs"]) == 3
    assert provenance["usage"]["cached_calls"] == 0
    assert provenance["usage"]["seconds"] > 0
    assert (sharded / SCORES).read_bytes() == (first / SCORES).read_bytes()
