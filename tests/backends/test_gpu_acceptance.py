"""benchmarks/gpu_acceptance.py end to end in its CPU mode: the same script and code paths as the
GPU run (bf16 and nf4 loads, batched generation, the agents through run_inference under the
scripted policy, ColQwen2 and ColPali indexing and search), at tiny shapes, in a subprocess as
the GPU machine runs it. A typo anywhere in the script fails here, not on the scarce GPU."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "gpu_acceptance.py"
METHODS = ("text_rag", "mdocagent", "docpilot")


def _numbers(value: Any) -> list[float]:
    """Every number in a JSON value."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    return []


def _run_script(*options: str) -> subprocess.CompletedProcess[str]:
    """The script in CPU mode, as the GPU machine runs it: a fresh interpreter, src on the path."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "CUDA_VISIBLE_DEVICES": ""}
    command = [sys.executable, str(SCRIPT), "--device", "cpu", "--threads", "2", *options]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gpu-acceptance")


@pytest.fixture(scope="module")
def report(work: Path) -> dict[str, Any]:
    out = work / "report.json"
    run = _run_script(
        "--prepare",
        "--inputs",
        str(work / "inputs"),
        "--out",
        str(out),
        "--questions",
        "2",
        "--sequential-questions",
        "1",
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"wrote {out}" in run.stdout
    return json.loads(out.read_text())


@pytest.mark.slow
def test_every_section_ran_and_every_number_is_finite(report: dict[str, Any]) -> None:
    assert report["mode"] == "cpu"
    assert report["skipped"] == []
    assert report["failed"] == {}
    assert report["targets_apply"] is False  # the targets are set for the 7B shape on a GPU
    for section in ("build_model", "load_bf16", "vlm_bf16", "load_nf4", "vlm_nf4"):
        assert report["seconds"][section] >= 0
    assert all(math.isfinite(n) for n in _numbers(report))
    env = report["environment"]
    assert env["torch"]
    assert env["transformers"]
    assert env["bitsandbytes"]
    assert env["gpu"] is None


@pytest.mark.slow
def test_vlm_throughput_in_both_precisions(report: dict[str, Any]) -> None:
    vlm = report["vlm_throughput"]
    assert vlm["model"]["shape"] == "tiny"
    assert vlm["model"]["parameters"] > 0
    for precision in ("bf16", "nf4"):
        rows = vlm["results"][precision]
        assert [(r["pages"], r["batch_size"]) for r in rows] == [(1, 1), (1, 2), (2, 1), (2, 2)]
        for row in rows:
            assert row["prefill_tokens_per_s"] > 0
            assert row["decode_tokens_per_s"] > 0
            assert row["peak_memory_mb"] > 0
            assert row["image_tokens_mean"] > 0


@pytest.mark.slow
def test_each_agent_went_as_scripted_through_the_real_model(report: dict[str, Any]) -> None:
    agentic = report["agentic"]
    assert agentic["tokenizer"]["chars_per_token_on_page_texts"] > 1
    for method in METHODS:
        result = agentic["methods"][method]
        for run, questions in (("sequential", 1), ("concurrent", 2)):
            row = result[run]
            assert row["questions"] == questions, (method, run, row)
            assert row["as_scripted"] == questions, (method, run, row)
            assert row["errors"] == [], (method, run, row)
            assert row["questions_per_hour"] > 0
            assert row["prompt_tokens_per_call"] > 0
            assert row["new_tokens_per_call"] >= 1
        assert result["sequential"]["largest_batch"] == 1
        assert result["concurrent"]["model_calls"] == 2 * result["sequential"]["model_calls"]
        assert result["speedup"] > 0
    calls = {m: agentic["methods"][m]["sequential"]["calls_per_question"] for m in METHODS}
    assert calls == {"text_rag": 1, "mdocagent": 5, "docpilot": 13}
    # the agents that read pages send their images to the model
    assert agentic["methods"]["mdocagent"]["sequential"]["image_tokens_per_call"] > 0
    assert agentic["methods"]["docpilot"]["sequential"]["image_tokens_per_call"] > 0
    # both ratios are checked against the target (not met on a CPU, and not binding there)
    assert set(report["targets"]) == {
        "mdocagent_questions_per_hour_concurrent_over_sequential",
        "docpilot_questions_per_hour_concurrent_over_sequential",
    }


@pytest.mark.slow
def test_page_image_retrievers_index_and_answer_queries(report: dict[str, Any]) -> None:
    for name in ("colqwen2", "colpali"):
        result = report["retrieval"][name]
        assert result["shape"] == "tiny"
        assert result["pages"] == 4
        assert result["pages_per_s"] > 0
        assert result["vectors_per_page"] > 0
        assert result["queries"] == 3
        assert result["query_ms_median"] > 0


@pytest.mark.slow
def test_a_failing_section_is_recorded_and_the_others_still_run(
    report: dict[str, Any], work: Path
) -> None:
    out = work / "failing.json"
    run = _run_script(
        *("--inputs", str(work / "inputs"), "--out", str(out), "--sections", "retrieval"),
        *("--retrievers", "colbert", "colpali", "--retrieval-pages", "2", "--queries", "1"),
    )
    assert run.returncode == 1
    assert "sections failed: retrieval_colbert" in run.stderr
    failing = json.loads(out.read_text())
    assert "KeyError: 'colbert'" in failing["failed"]["retrieval_colbert"]["error"]
    assert failing["retrieval"]["colpali"]["pages"] == 2
    assert "vlm_throughput" not in failing
    assert "agentic" not in failing


def _script(name: str = "gpu_acceptance") -> Any:
    """A module of benchmarks/ (its folder on the path, as when the script runs)."""
    import importlib

    sys.path.insert(0, str(SCRIPT.parent))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(SCRIPT.parent))


@pytest.mark.parametrize(
    ("name", "billions", "image_tokens"),
    [("colqwen2", 2.209, (600, 768)), ("colpali", 2.94, (1024, 1024))],
)
def test_the_real_retriever_shapes_match_the_published_models(
    name: str, billions: float, image_tokens: tuple[int, int], tmp_path: Path
) -> None:
    """The GPU run's ColQwen2 (Qwen2-VL-2B) and ColPali (PaliGemma-3B-448), built on the meta
    device: their parameter counts, and the image tokens of a 16:9 slide."""
    import torch
    from PIL import Image

    retrievers = _script("random_retrievers")
    model_class, config, processor = retrievers.RETRIEVER_PARTS[name]("real", ["revenue by region"])
    with torch.device("meta"):
        model = model_class._from_config(config, dtype=torch.bfloat16)
    assert round(sum(p.numel() for p in model.parameters()) / 1e9, 2) == round(billions, 2)
    Image.new("RGB", (2000, 1125), "white").save(tmp_path / "slide.png")
    with Image.open(tmp_path / "slide.png") as image:
        inputs = processor(images=[image.convert("RGB")], return_tensors="pt")
    image_token = config.vlm_config.image_token_id
    count = int((inputs["input_ids"] == image_token).sum())
    assert image_tokens[0] <= count <= image_tokens[1]


def test_both_modes_set_every_setting_the_run_reads() -> None:
    """The GPU run's settings come from MODES["gpu"]: each one is an option, none is left
    unset, and the CPU mode sets the same ones."""
    script = _script()
    assert set(script.MODES["gpu"]) == set(script.MODES["cpu"])
    gpu = script.parse_args(["--device", "cuda"])
    assert gpu.mode == "gpu"
    assert gpu.shape == "7b"
    assert gpu.retriever_shape == "real"
    assert gpu.precisions == ["bf16", "nf4"]
    assert gpu.batch_sizes == [1, 4, 16]
    assert gpu.pages == [1, 3]
    assert gpu.concurrency == 32
    assert gpu.max_batch_size == 16
    options = vars(script.parse_args(["--device", "cpu", "--questions", "7"]))
    assert options["questions"] == 7
    assert options["shape"] == "tiny"
    for key in script.MODES["gpu"]:
        assert key in options, key
        assert options[key] is not None or key == "reply_token_cap", key  # None: no cap


def test_a_question_counts_as_scripted_only_when_nothing_was_refused_or_replaced() -> None:
    script = _script()
    expected = ["navigate", "solve", "summary"]
    clean = {
        "trace": [
            {"action": "navigate", "fallbacks": []},
            {"action": "solve", "fallbacks": [], "sandbox": {"kind": "ok"}},
            {"step": "summary", "failures": {"bad_reply": 0}},
        ],
        "usage": {"fallbacks": 0},
    }
    assert script.went_as_scripted(clean, expected)
    assert not script.went_as_scripted(clean, ["navigate", "summary"])
    broken = [
        {**clean, "error": "RuntimeError: backend"},
        {**clean, "usage": {"fallbacks": 1}},
        {
            **clean,
            "trace": [{**clean["trace"][0], "fallbacks": ["bad_reply"]}, *clean["trace"][1:]],
        },
        {**clean, "trace": [*clean["trace"][:2], {"step": "summary", "failures": {"x": 1}}]},
        {
            **clean,
            "trace": [clean["trace"][0], {"action": "solve", "sandbox": {"kind": "timeout"}}]
            + clean["trace"][2:],
        },
    ]
    for row in broken:
        assert not script.went_as_scripted(row, expected), row
