"""Helpers for tests that run the Snakemake workflow in a scratch copy of the repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def workflow_copy(tmp_path: Path, config: dict | None = None) -> Path:
    """Snakefile, rules and config copied under ``tmp_path``; ``config`` replaces config.yaml."""
    work = tmp_path / "wf"
    work.mkdir()
    shutil.copy(ROOT / "Snakefile", work)
    shutil.copytree(ROOT / "rules", work / "rules", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "config", work / "config")
    shutil.copytree(ROOT / "envs", work / "envs")
    if config is not None:
        (work / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return work


def default_config(*catalogues: str) -> dict:
    """config/config.yaml, updated by each catalogue named (``"methods"`` for
    config/methods.yaml) as ``--configfile config/<name>.yaml`` updates it."""
    from snakemake.utils import update_config

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for name in catalogues:
        update_config(config, yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text()))
    return config


def snakemake(work: Path, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    """Run snakemake in ``work`` with the test's interpreter; output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", *args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
