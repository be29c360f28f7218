"""Splitting one infer run into N shard jobs, and merging them back.

An experiment's ``shards: N`` (config) splits each of its runs into N jobs, each answering one
contiguous block of the questions (in questions.jsonl order) into
``results/runs/{dataset}/{method}/{model}/shards/{i}-of-{N}.jsonl`` (i from 1). The merge
concatenates the blocks in order, so predictions.jsonl has the same rows in the same order as
an unsharded run. Each shard job is resumable per question like an unsharded run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from docqa.core.jsonl import read_jsonl
from docqa.core.prediction import join_run_varying, read_timings, write_predictions

T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    """Block ``index`` (1-based) of ``count`` blocks of a run's questions."""

    index: int = 1
    count: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index}-of-{self.count}: need 1 <= index <= count")

    @property
    def name(self) -> str:
        return f"{self.index}-of-{self.count}"

    def select(self, items: Sequence[T]) -> list[T]:
        """This shard's contiguous block of ``items``; the blocks of 1..count cover them all."""
        start = (self.index - 1) * len(items) // self.count
        stop = self.index * len(items) // self.count
        return list(items[start:stop])


def shard_counts(config: dict[str, Any]) -> dict[tuple[str, str, str], int]:
    """(dataset, method, model) → how many shards its experiments ask for (default 1)."""
    counts: dict[tuple[str, str, str], int] = {}
    for number, experiment in enumerate(config["experiments"], start=1):
        count = experiment.get("shards", 1)
        for run in _runs(experiment):
            if counts.setdefault(run, count) != count:
                raise ValueError(
                    f"config experiments: run {'/'.join(run)} is asked for with shards: "
                    f"{counts[run]} and, in experiment {number}, with shards: {count}; "
                    "give it one shard count"
                )
    return counts


def _runs(experiment: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (dataset, method, model)
        for dataset in experiment["datasets"]
        for method in experiment["methods"]
        for model in experiment["models"]
    ]


def sharded_runs_pattern(config: dict[str, Any]) -> str:
    """A regex matching ``{dataset}/{method}/{model}`` of exactly the runs split in shards
    (one that matches nothing when none are)."""
    runs = ["/".join(run) for run, count in shard_counts(config).items() if count > 1]
    return "|".join(re.escape(run) for run in runs) or "(?!)"


def shard_names(count: int) -> list[str]:
    """The names of a run's ``count`` shards, in order (``1-of-3``…), which place their files
    (docqa.workflow.layout)."""
    return [Shard(i, count).name for i in range(1, count + 1)]


def merge_shards(shards: list[Path], questions: Path, out: Path) -> None:
    """Concatenate the shards' predictions (and timings) into ``out`` in shard order, checking
    that together they answer each question of ``questions`` once, in its order."""
    rows = []
    for shard in shards:
        timings = read_timings(shard)
        rows += [
            join_run_varying(row, timings.get(row["question_id"], {})) for row in read_jsonl(shard)
        ]
    expected = [row["question_id"] for row in read_jsonl(questions)]
    got = [row["question_id"] for row in rows]
    if got != expected:
        missing = sorted(set(expected) - set(got))[:5]
        extra = sorted(set(got) - set(expected))[:5]
        raise ValueError(
            f"shards of {out} do not hold each question of {questions} once, in order "
            f"(missing {missing}, unexpected {extra}); delete {out.parent / 'shards'} and rerun"
        )
    write_predictions(out, rows)
