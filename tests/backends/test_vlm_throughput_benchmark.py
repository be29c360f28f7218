"""benchmarks/vlm_throughput.py at its tiny shape on CPU: the same script as the GPU run."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "vlm_throughput.py"


def test_tiny_shape_runs_on_cpu_and_writes_its_report(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("vlm_throughput", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = script.main(
        [
            "--device",
            "cpu",
            "--shape",
            "tiny",
            "--precisions",
            "fp32",
            "--batch-sizes",
            "1",
            "2",
            "--pages",
            "1",
            "2",
            "--new-tokens",
            "3",
            "--repeats",
            "1",
            "--max-pixels",
            str(112 * 112),
            "--out",
            str(tmp_path / "tiny.json"),
        ]
    )
    report = json.loads(out.read_text())
    assert report["model"]["shape"] == "tiny"
    assert report["device"]["kind"] == "cpu"
    rows = report["results"]["fp32"]
    assert [(r["pages"], r["batch_size"]) for r in rows] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    for row in rows:
        assert row["prefill_tokens_per_s"] > 0
        assert row["decode_tokens_per_s"] > 0
        assert row["peak_memory_mb"] > 0
        assert row["image_tokens_mean"] > 0
    two = [r for r in rows if r["batch_size"] == 2]
    assert all(r["prompt_tokens_range"][0] < r["prompt_tokens_range"][1] for r in two)
    one_page, two_pages = rows[0], rows[2]
    assert two_pages["image_tokens_mean"] == 2 * one_page["image_tokens_mean"]
    assert report["targets"] == {}  # set for batch 16 and nf4, which this run leaves out
