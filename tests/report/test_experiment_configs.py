"""Every paper experiment config validates, names only defined things, plans a DAG with
``snakemake -n``, and its header's documented ``--config`` override swaps the models."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from helpers.experiments import CONFIGS, EXPERIMENTS, configfiles, merged
from helpers.workflow import ROOT, snakemake, workflow_copy
from snakemake.utils import validate

from docqa.methods import METHODS, create_method
from docqa.workflow.config_check import check_references, experiment_grid

# Method types other helpers are registering now; until then their entries are checked by the
# schema and the dry run only.
UPCOMING_TYPES = {"vanilla", "image_rag", "slideagent"}
# Configs that build on another experiment's methods and retrievers.
OVERRIDE = re.compile(r"^# override: --config '(?P<value>.+)'$", re.MULTILINE)
# Report outputs each experiment's grid must plan (its paper table and its own figures).
PLANNED = {
    "mdocagent_main.yaml": ["tables/mdocagent_main.tex", "figures/score_by_top_k.png"],
    "mdocagent_longdocurl_sources.yaml": ["tables/mdocagent_longdocurl_sources.tex"],
    "slideagent.yaml": ["tables/slideagent.tex"],
    "docpilot.yaml": [
        "tables/docpilot.tex",
        "figures/recall_by_round.png",
        "figures/calls_per_action.png",
    ],
    "quantization.yaml": ["tables/quantization.tex", "figures/quantization.png"],
    "docpilot_training.yaml": ["training/docpilot-4b/loss.png"],
    "docpilot_training_cpu.yaml": ["training/docpilot-270m/loss.png"],
}


def _override(name: str) -> str:
    match = OVERRIDE.search((EXPERIMENTS / name).read_text())
    assert match, f"{name}: the header documents no '# override: --config ...' line"
    return match["value"]


def test_every_paper_experiment_has_a_config() -> None:
    assert set(CONFIGS) >= {
        "mdocagent_main.yaml",
        "mdocagent_longdocurl_sources.yaml",
        "slideagent.yaml",
        "docpilot.yaml",
        "quantization.yaml",
    }


@pytest.mark.parametrize("name", CONFIGS)
def test_experiment_config_is_valid(name: str) -> None:
    config = merged(name)
    validate(config, str(ROOT / "config" / "config.schema.yaml"))
    check_references(config)
    METHODS.load_all()
    used = {method for _, method, _ in experiment_grid(config)}
    for method in sorted(used):
        entry = config["methods"][method]
        if entry["type"] in METHODS.names():
            create_method(entry)  # options a registered method does not take fail here
        else:
            assert entry["type"] in UPCOMING_TYPES, f"{name}: {method}: unknown type"
    for table in config["report"]["tables"]:
        for dataset in table.get("datasets", []):
            assert dataset in config["datasets"], f"{name}: table {table['name']}: {dataset}"


@pytest.mark.parametrize("name", CONFIGS)
def test_documented_override_swaps_the_models_in_a_dry_run(tmp_path: Path, name: str) -> None:
    override = yaml.safe_load(_override(name).split("=", 1)[1])
    swapped = {model for experiment in override for model in experiment["models"]}
    before = {model for _, _, model in experiment_grid(merged(name))}
    result = snakemake(
        workflow_copy(tmp_path),
        "-n",
        "--configfile",
        *configfiles(name),
        "--config",
        _override(name),
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    planned = set(re.findall(r"results/runs/[^/\s]+/[^/\s]+/([^/\s]+)/predictions", result.stdout))
    # a training section evaluates its own models whatever the grid says
    trained = {
        model
        for entry in merged(name).get("training", {}).values()
        for model in entry.get("evaluate", {}).get("models", [])
    }
    assert planned - trained == swapped - trained, (planned, swapped)
    assert before - swapped, f"{name}: the override swaps no model"
    for output in PLANNED[name]:
        assert f"results/{output}" in result.stdout, output


def test_override_line_is_a_valid_shell_word() -> None:
    for name in CONFIGS:
        text = (EXPERIMENTS / name).read_text()
        line = next(line for line in text.splitlines() if line.startswith("# override:"))
        assert shlex.split(line.removeprefix("# override: "))[0] == "--config"
