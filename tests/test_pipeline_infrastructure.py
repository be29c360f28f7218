"""The pipeline with a model behind ``docqa serve`` on 127.0.0.1 that goes down: the infer job
fails instead of scoring the questions as wrong, a failed rerun with other settings does not
lose the good run's answers, and the rerun after the server is back asks it only the questions
that failed."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
from helpers.serving import free_port, get, served
from helpers.tiny_models import tiny_embedded
from helpers.workflow import default_config, snakemake, workflow_copy

pytestmark = pytest.mark.slow

RUN = "results/runs/synthslides/oracle_pages/served/predictions.jsonl"
CACHE = "results/cache/responses.sqlite"


def config_for(port: int, **model_options: object) -> dict:
    config = default_config()
    config["datasets"]["synthslides"]["options"] = {"seed": 3, "decks": 1, "questions_per_deck": 4}
    config["models"] = {
        "served": {
            "backend": "openai",
            "base_url": f"http://127.0.0.1:{port}/v1",
            "model": "tiny",
            "vision": False,
            "max_retries": 0,
            **model_options,
        }
    }
    config["experiments"] = [
        {"datasets": ["synthslides"], "methods": ["oracle_pages"], "models": ["served"]}
    ]
    return config


def run_with(work: Path, config: dict) -> subprocess.CompletedProcess[str]:
    """Snakemake for the run's predictions, with ``config`` as the workflow's config.yaml."""
    (work / "config" / "config.yaml").write_text(json.dumps(config))
    return snakemake(work, RUN)


def test_a_server_that_goes_down_fails_the_job_and_nothing_answered_is_lost(
    tmp_path: Path,
) -> None:
    model = tiny_embedded(tmp_path / "tiny")
    port = free_port()
    good, edited = config_for(port), config_for(port, timeout_s=30.0)
    work = workflow_copy(tmp_path)

    with served(model, port, tmp_path) as base_url:
        result = run_with(work, good)
        assert result.returncode == 0, result.stderr[-5000:]
        assert get(base_url.removesuffix("/v1") + "/health")["requests"] == 4
    answers = (work / RUN).read_bytes()
    assert len(answers.splitlines()) == 4

    # the server is down; a changed option reruns the job, whose cache has two of the answers
    with sqlite3.connect(work / CACHE) as db:
        db.execute("DELETE FROM responses WHERE rowid IN (SELECT rowid FROM responses LIMIT 2)")
    db.close()
    result = run_with(work, edited)
    assert result.returncode != 0, "a job whose server is down must fail"
    log = (work / "results/logs/infer/synthslides/oracle_pages/served.log").read_text()
    assert "2 question(s) failed for an infrastructure reason" in result.stderr + log
    assert f"no answer from http://127.0.0.1:{port}/v1" in result.stderr + log
    assert not (work / RUN).exists()  # Snakemake removed the failed job's outputs...

    # ...but the good run's checkpoint is kept: its settings, back, need no server at all
    result = run_with(work, good)
    assert result.returncode == 0, result.stderr[-5000:]
    assert (work / RUN).read_bytes() == answers

    # the server is back: the edited run asks it only the two questions that failed
    with served(model, port, tmp_path) as base_url:
        result = run_with(work, edited)
        assert result.returncode == 0, result.stderr[-5000:]
        assert get(base_url.removesuffix("/v1") + "/health")["requests"] == 2
    rows = [json.loads(line) for line in (work / RUN).read_text().splitlines()]
    assert len(rows) == 4
    assert not any(row["error"] for row in rows)
