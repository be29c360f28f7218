"""docqa.stages.shards: shards cover the questions once, in order; the merge reproduces the
unsharded files byte for byte and refuses shards that do not add up; the DAG plans shard jobs.
(The real sharded run against an unsharded one is in test_reproducible.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.workflow import default_config, snakemake, workflow_copy

from docqa.core.jsonl import write_jsonl
from docqa.core.prediction import timings_path, write_predictions
from docqa.stages.shards import Shard, merge_shards, shard_counts, sharded_runs_pattern


def prediction_rows(count: int) -> list[dict]:
    return [
        {
            "question_id": f"q{i}",
            "answer": f"answer {i}",
            "pages": [i % 3],
            "trace": [{"step": 0, "usage": {"calls": 1, "seconds": 0.25 * i}}],
            "usage": {"calls": 1, "seconds": 0.5 * i, "peak_memory_mb": 100.0 + i},
            "error": "",
        }
        for i in range(count)
    ]


@pytest.mark.parametrize(("items", "count"), [(10, 3), (7, 7), (2, 5), (0, 2), (11, 1)])
def test_the_shards_cover_every_item_once_in_order(items: int, count: int) -> None:
    blocks = [Shard(i, count).select(list(range(items))) for i in range(1, count + 1)]
    assert [item for block in blocks for item in block] == list(range(items))
    assert max(map(len, blocks)) - min(map(len, blocks)) <= 1


def test_a_shard_outside_its_count_is_refused() -> None:
    with pytest.raises(ValueError, match="shard 4-of-3"):
        Shard(4, 3)


def test_merged_shards_are_the_unsharded_bytes(tmp_path: Path) -> None:
    rows = prediction_rows(10)
    write_predictions(tmp_path / "whole.jsonl", rows)
    shards = []
    for index in range(1, 4):
        shard = Shard(index, 3)
        shards.append(tmp_path / "shards" / f"{shard.name}.jsonl")
        write_predictions(shards[-1], shard.select(rows))
    questions = tmp_path / "questions.jsonl"
    write_jsonl(questions, [{"question_id": row["question_id"]} for row in rows])
    merge_shards(shards, questions, tmp_path / "predictions.jsonl")
    whole = (tmp_path / "whole.jsonl").read_bytes()
    assert (tmp_path / "predictions.jsonl").read_bytes() == whole
    assert timings_path(tmp_path / "predictions.jsonl").read_bytes() == (
        timings_path(tmp_path / "whole.jsonl").read_bytes()
    )


def test_shards_that_miss_a_question_are_refused(tmp_path: Path) -> None:
    rows = prediction_rows(4)
    write_predictions(tmp_path / "1-of-2.jsonl", rows[:2])
    write_predictions(tmp_path / "2-of-2.jsonl", rows[3:])
    questions = tmp_path / "questions.jsonl"
    write_jsonl(questions, [{"question_id": row["question_id"]} for row in rows])
    out = tmp_path / "run" / "predictions.jsonl"
    with pytest.raises(ValueError, match=r"missing \['q2'\].*delete"):
        merge_shards([tmp_path / "1-of-2.jsonl", tmp_path / "2-of-2.jsonl"], questions, out)
    assert not out.exists()


def test_shard_counts_come_from_the_experiments_and_must_agree() -> None:
    config = {
        "experiments": [
            {"datasets": ["d"], "methods": ["a", "b"], "models": ["m"], "shards": 4},
            {"datasets": ["d"], "methods": ["c"], "models": ["m"]},
        ]
    }
    assert shard_counts(config) == {("d", "a", "m"): 4, ("d", "b", "m"): 4, ("d", "c", "m"): 1}
    pattern = re.compile(sharded_runs_pattern(config))
    assert pattern.fullmatch("d/a/m")
    assert not pattern.fullmatch("d/c/m")
    assert not re.fullmatch(sharded_runs_pattern({"experiments": []}), "d/a/m")
    config["experiments"].append({"datasets": ["d"], "methods": ["a"], "models": ["m"]})
    with pytest.raises(ValueError, match="d/a/m is asked for with shards: 4.*experiment 3"):
        shard_counts(config)


def test_the_dag_runs_a_sharded_experiment_as_shard_jobs_and_one_merge(tmp_path: Path) -> None:
    config = default_config()
    config["experiments"] = [
        {
            "datasets": ["synthslides"],
            "methods": ["oracle_pages"],
            "models": ["gemma3-270m"],
            "shards": 3,
        },
        {"datasets": ["synthslides"], "methods": ["text_rag_top1"], "models": ["gemma3-270m"]},
    ]
    done = snakemake(workflow_copy(tmp_path, config), "-n", timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    planned = re.findall(r"^rule (\w+):\n(?:.*\n)*?\s+output: (\S+?),?\s", done.stdout, re.M)
    outputs = {(rule, path) for rule, path in planned}
    run = "results/runs/synthslides/oracle_pages/gemma3-270m"
    for index in range(1, 4):
        assert ("infer_shard", f"{run}/shards/{index}-of-3.jsonl") in outputs
    assert ("merge_shards", f"{run}/predictions.jsonl") in outputs
    unsharded = "results/runs/synthslides/text_rag_top1/gemma3-270m/predictions.jsonl"
    assert ("infer", unsharded) in outputs
    assert not any(rule == "infer" and path.startswith(run) for rule, path in outputs)
