"""A small real run for the report tests: one synthslides deck, rendered and OCR'd by tesseract,
answered by a tiny random-weight Qwen2-VL on CPU (text RAG at top-1 and top-4, the oracle
pages and DocPilot), scored, reported, and the HTML report built with Snakemake."""

from __future__ import annotations

from pathlib import Path

from helpers.tiny_models import build_tiny_vlm, tiny_model_entry
from helpers.workflow import default_config, snakemake, workflow_copy

MODEL = "tiny-qwen2-vl"
METHODS = ["text_rag_top1", "text_rag_top4", "oracle_pages", "docpilot"]


def small_config(weights: Path) -> dict:
    config = default_config("methods")
    config["datasets"]["synthslides"]["options"] = {"seed": 3, "decks": 1, "questions_per_deck": 4}
    config["models"] = {MODEL: tiny_model_entry(weights)}
    config["methods"]["docpilot"]["max_steps"] = 3
    config["experiments"] = [{"datasets": ["synthslides"], "methods": METHODS, "models": [MODEL]}]
    return config


def build_small_run(root: Path) -> Path:
    """The workflow copy under ``root`` after the run and ``--report results/report.html``."""
    weights = build_tiny_vlm("qwen2_vl", root / "weights")
    work = workflow_copy(root, small_config(weights))
    for args in ((), ("--report", "results/report.html")):
        result = snakemake(work, *args, timeout=1200)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return work
