"""The paper experiment configs as Snakemake merges them, for the tests that check them."""

from __future__ import annotations

import yaml
from snakemake.utils import update_config

from helpers.workflow import ROOT

EXPERIMENTS = ROOT / "config" / "experiments"
# Configs that build on another experiment's methods and retrievers.
BASES = {
    "mdocagent_longdocurl_sources.yaml": ["mdocagent_main.yaml"],
    "docpilot_training.yaml": ["docpilot.yaml"],
}
CONFIGS = sorted(path.name for path in EXPERIMENTS.glob("*.yaml"))


def configfiles(name: str) -> list[str]:
    return [
        "config/datasets.yaml",
        "config/models.yaml",
        "config/methods.yaml",
        *(f"config/experiments/{base}" for base in BASES.get(name, [])),
        f"config/experiments/{name}",
    ]


def merged(name: str) -> dict:
    """The config Snakemake runs: config.yaml updated by each --configfile in turn."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for path in configfiles(name):
        update_config(config, yaml.safe_load((ROOT / path).read_text()))
    return config
