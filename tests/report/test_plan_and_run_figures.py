"""Which figures a config plans, and the run-comparison and agent figures drawn from real
score files."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.scored_runs import scored_run
from helpers.workflow import default_config
from PIL import Image

from docqa.report.agent_figures import plot_calls_per_action, plot_recall_by_round
from docqa.report.figures import plot_score_by_kind
from docqa.report.inputs import load_scores
from docqa.report.plan import quantization_groups, report_figures, report_tables, top_k_series
from docqa.report.run_figures import plot_quantization, plot_score_by_top_k, plot_score_vs_cost
from docqa.workflow.config_check import experiment_grid

ANSWERS = ["17", "0", "blue", "3", "0", "green"]


def test_default_config_plans_top_k_but_no_agent_or_quantization_figure() -> None:
    config = default_config()
    figures = report_figures(config, experiment_grid(config))
    assert figures == ["score_by_kind", "retrieval_recall", "score_vs_cost", "score_by_top_k"]
    assert report_tables(config) == ["main"]


def test_docpilot_and_a_bf16_nf4_pair_plan_their_figures() -> None:
    config = default_config("methods")
    config["models"]["big"] = {"backend": "transformers", "hf_id": "o/m", "revision": "a" * 40}
    config["models"]["big-nf4"] = {**config["models"]["big"], "precision": "nf4"}
    config["experiments"] = [
        {
            "datasets": ["synthslides"],
            "methods": ["docpilot"],
            "models": ["big", "big-nf4", "gemma3-270m"],
        }
    ]
    grid = experiment_grid(config)
    assert report_figures(config, grid)[3:] == [
        "recall_by_round",
        "calls_per_action",
        "quantization",
    ]
    assert quantization_groups(config, grid) == {"o/m": ["big", "big-nf4"]}
    assert top_k_series(config, grid) == {}


def test_ablations_are_no_point_of_the_top_k_series() -> None:
    """An ablation at top-1 must not stand in for the full method's top-1 point."""
    config = default_config("methods")
    config["experiments"] = [
        {
            "datasets": ["synthslides"],
            "methods": ["mdocagent_top1", "mdocagent_top4", "mdocagent_top1_without_text"],
            "models": ["gemma3-270m"],
        }
    ]
    series = top_k_series(config, experiment_grid(config))
    assert series == {("mdocagent", "gemma3-270m"): {1: "mdocagent_top1", 4: "mdocagent_top4"}}


def _is_png(path: Path) -> bool:
    with Image.open(path) as image:
        return image.format == "PNG" and image.size[0] > 200


def test_run_figures(tmp_path: Path) -> None:
    runs = [
        load_scores(
            scored_run(
                tmp_path,
                "synth",
                f"rag_top{k}",
                model,
                ANSWERS,
                calls=k,
                seconds=k * 2.0,
                tokens_out=20 * k,
                peak_memory_mb=memory,
            )
        )
        for k in (1, 4)
        for model, memory in (("m", 16000.0), ("m-nf4", 6000.0))
    ]
    series = {("text_rag", model): {1: "rag_top1", 4: "rag_top4"} for model in ("m", "m-nf4")}
    out = tmp_path / "figures"
    plot_score_vs_cost(runs, out / "cost.png", out / "cost.pdf", dpi=100)
    plot_score_by_top_k(runs, series, out / "k.png", out / "k.pdf", dpi=100)
    plot_quantization(runs, {"o/m": ["m", "m-nf4"]}, out / "q.png", out / "q.pdf", dpi=100)
    for name in ("cost", "k", "q"):
        assert _is_png(out / f"{name}.png")
        assert (out / f"{name}.pdf").read_bytes().startswith(b"%PDF")
    # the dpi setting reaches the PNG: half the dpi, about half the width
    plot_score_vs_cost(runs, out / "small.png", out / "small.pdf", dpi=50)
    with Image.open(out / "cost.png") as big, Image.open(out / "small.png") as small:
        assert abs(big.size[0] - 2 * small.size[0]) <= 2


def test_agent_figures_from_trace_summaries(tmp_path: Path) -> None:
    traces = [
        [
            {
                "step": "summary",
                "recall_by_round": [0.5, 1.0][: 1 + i % 2],
                "calls_per_action": {"navigate": 1 + i % 2, "extract": 1},
                "steps": 3,
                "navigation_rounds": 1 + i % 2,
                "pages_retrieved": 1,
            }
        ]
        for i in range(6)
    ]
    runs = [
        load_scores(scored_run(tmp_path, "synth", "docpilot", "m", ANSWERS, traces=traces)),
        load_scores(scored_run(tmp_path, "synth", "text_rag_top1", "m", ANSWERS)),
    ]
    assert runs[0].summary["agent"]["recall_by_round"] == [50.0, 75.0]
    out = tmp_path / "figures"
    plot_recall_by_round(runs, out / "r.png", out / "r.pdf", dpi=100)
    plot_calls_per_action(runs, out / "c.png", out / "c.pdf", dpi=100)
    assert _is_png(out / "r.png")
    assert _is_png(out / "c.png")


def test_score_by_kind_adds_an_evidence_source_panel_when_questions_have_one(
    tmp_path: Path,
) -> None:
    tagged = scored_run(tmp_path, "synth", "vanilla", "m", ANSWERS)
    untagged = tmp_path / "untagged.json"
    data = tagged.read_text().replace('"evidence_source": {', '"unused": {')
    untagged.write_text(data)
    out = tmp_path / "figures"
    plot_score_by_kind([tagged], out / "both.png", out / "both.pdf", dpi=50)
    plot_score_by_kind([untagged], out / "kind.png", out / "kind.pdf", dpi=50)
    with Image.open(out / "both.png") as both, Image.open(out / "kind.png") as kind:
        assert both.size[0] == kind.size[0]
        assert both.size[1] > 1.5 * kind.size[1]


def test_a_table_naming_an_unknown_dataset_or_a_name_twice_is_an_error() -> None:
    config = default_config()
    config["report"]["tables"].append(
        {"name": "x", "title": "x", "columns": "dataset", "datasets": ["synthslide"]}
    )
    with pytest.raises(ValueError, match=r"report.tables\[1\].datasets: 'synthslide'"):
        report_tables(config)
    config["report"]["tables"][1] = {**config["report"]["tables"][0]}
    with pytest.raises(ValueError, match=r"report.tables\[0\].name: 'main' is used twice"):
        report_tables(config)
