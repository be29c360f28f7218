"""The training rules change nothing without a ``training:`` section, plan the whole chain with
one, and keep the workflow's parse free of model and image libraries."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from helpers.training import training_config
from helpers.workflow import snakemake, workflow_copy


def planned(output: str) -> list[str]:
    """``rule: outputs`` of each job of a dry run, sorted (the format of default_jobs.txt)."""
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", output):
        match = re.match(r"(?:local)?rule (\w+):", block)
        outputs = re.search(r"^\s+output: (.*)$", block, re.M)
        if match and outputs:
            jobs.append(f"{match.group(1)}: {outputs.group(1)}")
    return sorted(jobs)


def test_a_training_section_plans_synthesis_filtering_data_and_both_stages(
    tmp_path: Path,
) -> None:
    work = workflow_copy(tmp_path, training_config(tmp_path / "student"))
    result = snakemake(work, "-n", "results/training/tiny/loss.png")
    assert result.returncode == 0, result.stderr[-3000:]
    rules = [job.split(":")[0] for job in planned(result.stdout)]
    for rule in ("synthesize_trajectories", "filter_trajectories", "build_sft", "training_figures"):
        assert rules.count(rule) == 1, rule
    assert rules.count("train") == 2


def test_the_workflow_helpers_import_no_model_or_image_library() -> None:
    code = (
        "import sys, docqa.workflow.snakefile;"
        "print([m for m in ('torch', 'PIL', 'pytesseract', 'transformers', 'trl', 'peft')"
        " if m in sys.modules])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
