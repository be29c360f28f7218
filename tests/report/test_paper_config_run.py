"""A CPU run of a paper config (mdocagent_main.yaml) with its models swapped for tiny random ones
and its benchmarks for two generated decks: the traces show the paper's prompts, token budgets
and pixel budgets, and the pages are rendered at the paper's dpi."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.experiments import merged
from helpers.tiny_encoders import tiny_colbert, tiny_colpali
from helpers.tiny_models import build_tiny_vlm, tiny_model_entry
from helpers.workflow import default_config, snakemake, workflow_copy

MODEL = "qwen2-vl-7b"  # the paper's name, a tiny random Qwen2-VL behind it
METHODS = ["vanilla", "image_rag_top1", "text_rag_colbert_top1"]


def paper_config_on_tiny_models(root: Path) -> dict:
    config = merged("mdocagent_main.yaml")
    vlm = build_tiny_vlm("qwen2_vl", root / "vlm")
    config["datasets"] = {
        "synthslides": {
            "adapter": "synthslides",
            "options": {"seed": 0, "decks": 2, "questions_per_deck": 1},
            "metric": "slideagent",
        }
    }
    config["metrics"] = {"slideagent": {"overall": "per_question"}}
    config["models"] = {MODEL: tiny_model_entry(vlm, max_pixels=112 * 112)}
    retrievers = config["retrievers"]
    config["retrievers"] = {
        "colbertv2": {
            **retrievers["colbertv2"],
            "model": str(tiny_colbert(root / "colbert")),
            "device": "cpu",
        },
        "colpali_v1_2": {
            **retrievers["colpali_v1_2"],
            "model": str(tiny_colpali(root / "colpali")),
            "device": "cpu",
            "dtype": "float32",
            "attn_implementation": "eager",
        },
    }
    config["methods"] = {name: config["methods"][name] for name in METHODS}
    config["experiments"] = [{"datasets": ["synthslides"], "methods": METHODS, "models": [MODEL]}]
    config["report"] = default_config()["report"]
    return config


@pytest.mark.slow
def test_a_paper_config_runs_its_prompts_and_budgets(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path, paper_config_on_tiny_models(tmp_path / "models"))
    targets = [f"results/runs/synthslides/{m}/{MODEL}/predictions.jsonl" for m in METHODS]
    result = snakemake(work, *targets, timeout=1200)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    reads = {}
    for method in METHODS:
        path = work / "results" / "runs" / "synthslides" / method / MODEL / "predictions.jsonl"
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        assert len(rows) == 2
        assert all(row["error"] == "" for row in rows), rows
        reads[method] = next(step for step in rows[0]["trace"] if step["step"] == "read")
    # MMLongBench-Doc's grids and bare question, MDocAgent's 256 new tokens
    assert (reads["vanilla"]["mode"], reads["vanilla"]["prompt"]) == ("grids", "bare")
    assert reads["vanilla"]["max_new_tokens"] == 256
    # M3DocRAG: its prompt, the MDocAgent paper's 256 new tokens and 16,384 tokens an image at
    # top-1
    image_rag = reads["image_rag_top1"]
    assert (image_rag["prompt"], image_rag["max_new_tokens"]) == ("m3docrag", 256)
    assert image_rag["image_max_pixels"] == 16384 * 28 * 28
    # the text baseline reads whole pages with a chat prompt and 256 new tokens
    text_rag = reads["text_rag_colbert_top1"]
    assert (text_rag["prompt"], text_rag["max_new_tokens"]) == ("chat", 256)
    pages = [
        json.loads(line)
        for line in next((work / "results" / "pages").rglob("pages.jsonl")).read_text().splitlines()
    ]
    assert {page["dpi"] for row in pages for page in row.get("pages", [row])} == {144}
