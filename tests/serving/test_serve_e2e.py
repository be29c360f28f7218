"""The served flow end to end: ``docqa serve`` as a subprocess on 127.0.0.1, the infer stage
(``run_inference``) with a ``backend: openai`` model entry pointing at it, against the same
stage on the model loaded directly. On a tiny random model (fast) and on the embedded default,
Gemma 3 270M (slow: it is prepared first, about two minutes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.served_deck import QUESTIONS, dataset, infer
from helpers.serving import docqa_serve, get
from helpers.tiny_models import tiny_embedded

from docqa.backends.model_spec import ModelSpec
from docqa.backends.preparation import prepare_model


def check_served_flow(name: str, model_dir: Path, tmp_path: Path) -> None:
    files = dataset(tmp_path / "data")
    entry = {"backend": "embedded", "max_batch_size": 4, "threads": 2}
    direct = infer(files, ModelSpec(entry, model_dir), tmp_path / "direct" / "predictions.jsonl")

    with docqa_serve(name, entry, model_dir, tmp_path) as (base_url, log):
        # the entry docqa serve announces for a base model: few-shot prompts, as directly
        served_entry = {
            "backend": "openai",
            "base_url": base_url,
            "model": name,
            "vision": False,
            "prompt_format": "raw",
        }
        served_dir = tmp_path / "served-model"
        prepare_model(f"{name}-served", served_entry, served_dir)
        served_out = tmp_path / "served" / "predictions.jsonl"
        served = infer(files, ModelSpec(served_entry, served_dir), served_out)
        health = get(base_url.removesuffix("/v1") + "/health")

    announced = log.read_text()
    assert f"serving {name} at {base_url}" in announced
    assert "prompt_format: raw" in announced
    assert "vision: false" in announced
    assert health["requests"] == len(QUESTIONS)
    assert health["failed"] == 0
    assert [row["question_id"] for row in served] == [row["question_id"] for row in direct]
    assert all(not row["error"] for row in served + direct), served + direct
    assert [row["answer"] for row in served] == [row["answer"] for row in direct]
    for mine, theirs in zip(served, direct, strict=True):
        assert mine["usage"]["calls"] == 1
        assert mine["usage"]["tokens_in"] > 0
        assert mine["usage"]["tokens_in"] == theirs["usage"]["tokens_in"]
        assert mine["usage"]["tokens_out"] == theirs["usage"]["tokens_out"]


def test_the_infer_stage_through_docqa_serve_on_a_tiny_model(tmp_path: Path) -> None:
    check_served_flow("tiny", tiny_embedded(tmp_path / "tiny"), tmp_path)


@pytest.mark.slow
def test_the_infer_stage_through_docqa_serve_on_the_embedded_default(tmp_path: Path) -> None:
    folder = tmp_path / "gemma3-270m"
    prepare_model("gemma3-270m", {"backend": "embedded"}, folder)
    check_served_flow("gemma3-270m", folder, tmp_path)
