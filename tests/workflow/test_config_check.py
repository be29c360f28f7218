"""The config is validated before anything runs, and errors name the offending key."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.workflow import default_config, snakemake, workflow_copy

from docqa.workflow.config_check import (
    ConfigError,
    check_options,
    check_references,
    experiment_grid,
)


def test_default_config_grid() -> None:
    grid = experiment_grid(default_config())
    assert ("synthslides", "text_rag_top4", "gemma3-270m") in grid
    assert len(grid) == len(set(grid)) == 3


def test_unknown_reference_is_named() -> None:
    config = default_config()
    config["experiments"][0]["methods"].append("no_such_method")
    config["methods"]["text_rag_top1"]["retriever"] = "colbert"
    with pytest.raises(ConfigError) as error:
        check_references(config)
    assert "experiments[0].methods: 'no_such_method'" in str(error.value)
    assert "methods.text_rag_top1.retriever: 'colbert'" in str(error.value)


def test_snakemake_rejects_a_bad_key_by_name(tmp_path: Path) -> None:
    config = default_config()
    config["render"]["dpl"] = 150  # a typo of dpi
    work = workflow_copy(tmp_path, config)
    result = snakemake(work, "-n")
    assert result.returncode != 0
    assert "dpl" in result.stderr + result.stdout


def test_snakemake_rejects_a_wrong_type(tmp_path: Path) -> None:
    config = default_config()
    config["render"]["dpi"] = "high"
    result = snakemake(workflow_copy(tmp_path, config), "-n")
    assert result.returncode != 0
    assert "dpi" in result.stderr + result.stdout


def test_dry_run_of_the_default_config_plans_every_stage(tmp_path: Path) -> None:
    result = snakemake(workflow_copy(tmp_path), "-n")
    assert result.returncode == 0, result.stderr
    for rule in (
        "prepare_dataset",
        "render_pages",
        "text_pages",
        "build_index",
        "prepare_model",
        "infer",
        "score",
        "report",
    ):
        assert rule in result.stdout, rule


def test_lint_is_clean() -> None:
    from helpers.workflow import ROOT

    result = snakemake(ROOT, "--lint")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Lints for" not in result.stdout + result.stderr, result.stdout + result.stderr


def test_training_names_a_method_whose_type_declares_trajectory_training(tmp_path: Path) -> None:
    """The check reads the method type's declaration (``trajectory_training``), not its name."""
    from helpers.training import training_config

    config = training_config(tmp_path / "student")
    check_references(config)  # docpilot declares it
    config["methods"]["text_rag_top1"] = {"type": "text_rag", "retriever": "bm25", "top_k": 1}
    config["training"]["tiny"]["method"] = "text_rag_top1"
    with pytest.raises(ConfigError) as error:
        check_references(config)
    assert (
        "training.tiny.method: 'text_rag_top1' is a text_rag method, which training cannot learn "
        "from (its type does not declare trajectory_training); name a method entry of type "
        "docpilot"
    ) in str(error.value)


def test_an_entry_the_catalogue_defines_names_the_catalogue_file_to_add() -> None:
    """A paper config's dataset override given without config/datasets.yaml says which file
    defines the dataset, instead of "None is not a registered adapter"."""
    config = {"datasets": {"slidevqa": {"options": {"split": "test"}}}}
    with pytest.raises(ConfigError) as raised:
        check_options(config)
    assert "datasets.slidevqa: no adapter given; 'slidevqa' is defined in config/datasets.yaml" in (
        str(raised.value)
    )
    assert "--configfile config/datasets.yaml YOUR.yaml" in str(raised.value)
    config = {"datasets": {"mine": {"options": {"split": "test"}}}}
    with pytest.raises(
        ConfigError, match=r"datasets.mine: no adapter given; give the entry one of"
    ):
        check_options(config)
