"""benchmarks/retrieval.py loads (its helpers come from the tests) and counts the dense
encoder's work from the model's own config."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "retrieval.py"


def test_the_dense_compute_floor_counts_the_encoders_matrix_products() -> None:
    spec = importlib.util.spec_from_file_location("retrieval_benchmark", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    floor = script.dense_compute_floor(tokens=20, batch_queries=4)
    # all-MiniLM-L6-v2: 6 layers, hidden 384, FFN 1536; per token and layer 4 h^2 + 2 h f MACs
    assert floor["gflop_per_query"] == pytest.approx(
        2 * 6 * (4 * 384**2 + 2 * 384 * 1536) * 20 / 1e9, abs=1e-3
    )
    expected_ms = 1000 * floor["gflop_per_query"] / floor["gemm_gflops"]
    assert floor["floor_ms_per_query"] == pytest.approx(expected_ms, rel=0.05)
