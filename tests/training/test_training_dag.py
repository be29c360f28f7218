"""The offline training DAG end to end: a scripted gold teacher drives DocPilot on synthslides
training decks; the trajectories are filtered, turned into SFT data and train a tiny random
student (LoRA) in two stages; the stage-2 adapter is a model entry that the infer stage runs
on other decks, and the run is scored — all through Snakemake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.tiny_student import build_tiny_student
from helpers.training import training_config
from helpers.workflow import snakemake, workflow_copy

pytestmark = pytest.mark.slow

TARGETS = (
    "results/training/tiny/loss.png",
    "results/training/tiny/actions.png",
    "results/scores/synthslides/docpilot/tiny-trained.json",
)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("training-dag")
    student = build_tiny_student(base / "student")
    work = workflow_copy(base, training_config(student))
    result = snakemake(work, *TARGETS)
    assert result.returncode == 0, result.stderr[-6000:]
    return work


def test_synthesis_filter_and_sft_data_are_written(trained: Path) -> None:
    root = trained / "results/training/tiny"
    path = root / "trajectories/synthslides_train.jsonl"
    trajectories = [json.loads(line) for line in path.open()]
    assert len(trajectories) == 4
    report = json.loads((root / "filtered/report.json").read_text())
    assert report["multi"]["kept"] + sum(report["multi"]["dropped"].values()) == 4
    assert report["multi"]["kept"] >= 1
    counts = json.loads((root / "sft/counts.json").read_text())
    assert counts["single"] == report["single"]["kept"] > 0
    first = json.loads((root / "sft/multi.jsonl").open().readline())
    assert [message["role"] for message in first["messages"]] == ["user", "assistant"]


def test_both_stages_train_and_stage_two_starts_from_stage_one(trained: Path) -> None:
    root = trained / "results/training/tiny"
    one = json.loads((root / "stage1/train.json").read_text())
    two = json.loads((root / "stage2/train.json").read_text())
    assert one["steps"] == two["steps"] == 6
    assert two["init_from"].endswith("stage1")
    losses = [row["loss"] for row in one["losses"]]
    assert losses[-1] < losses[0]
    assert (root / "stage2/adapter/adapter_config.json").is_file()
    assert (root / "loss.png").stat().st_size > 1000


def test_the_adapter_runs_in_the_infer_stage_and_is_scored(trained: Path) -> None:
    card = json.loads((trained / "results/models/tiny-trained/model.json").read_text())
    assert card["adapter"]["path"].endswith("stage2/adapter")
    assert card["identity"]["adapter_sha256"]
    run = trained / "results/runs/synthslides/docpilot/tiny-trained/predictions.jsonl"
    predictions = [json.loads(line) for line in run.open()]
    assert len(predictions) == 4
    assert all(not p["error"] for p in predictions)
    assert all(p["trace"][-1]["step"] == "summary" for p in predictions)
    scores = json.loads(
        (trained / "results/scores/synthslides/docpilot/tiny-trained.json").read_text()
    )
    assert scores["summary"]["questions"] == 4
    table = json.loads((trained / "results/training/tiny/actions.json").read_text())
    assert set(table) == {"tiny", "tiny-trained"}
    comparison = json.loads((trained / "results/training/tiny/comparison.json").read_text())
    assert comparison["baseline"] == "tiny"
    test = comparison["models"]["tiny-trained"]
    assert test["questions"] == 4
    assert 0 < test["p_value"] <= 1
