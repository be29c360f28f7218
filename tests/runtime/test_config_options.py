"""Config mistakes are caught when Snakemake parses the workflow (``snakemake -n``), before any
job runs, with messages that name the entry and the key; each implementation's
options are read from its spec (docqa.runtime.spec)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.workflow import default_config, snakemake, workflow_copy


def edited(section: str, name: str, entry: dict) -> dict:
    config = default_config()
    config[section][name] = entry
    return config


CASES = {
    "a misspelt method option": (
        edited("methods", "text_rag_top1", {"type": "text_rag", "retriever": "bm25", "topk": 2}),
        "methods.text_rag_top1.topk: method type text_rag takes no option 'topk'; "
        "did you mean 'top_k'?",
    ),
    "an unknown method type": (
        edited("methods", "oracle_pages", {"type": "oracle_page"}),
        "methods.oracle_pages.type: 'oracle_page' is not a registered method type; "
        "did you mean 'oracle_pages'?",
    ),
    "an option the method does not take": (
        edited("methods", "oracle_pages", {"type": "oracle_pages", "top_k": 2}),
        "methods.oracle_pages.top_k: method type oracle_pages takes no option 'top_k'",
    ),
    "a negative sandbox limit": (
        edited("methods", "docpilot", {"type": "docpilot", "solve_memory_mb": -512}),
        "methods.docpilot.solve_memory_mb: must be at least 1 (got -512)",
    ),
    "a step limit of zero": (
        edited("methods", "docpilot", {"type": "docpilot", "max_steps": 0}),
        "methods.docpilot.max_steps: must be at least 1 (got 0)",
    ),
    "a misspelt adapter": (
        edited("datasets", "synthslides", {"adapter": "synthslide", "metric": "slideagent"}),
        "datasets.synthslides.adapter: 'synthslide' is not a registered adapter; "
        "did you mean 'synthslides'?",
    ),
    "a misspelt adapter option": (
        edited(
            "datasets",
            "synthslides",
            {"adapter": "synthslides", "options": {"deks": 2}, "metric": "slideagent"},
        ),
        "datasets.synthslides.options.deks: adapter synthslides takes no option 'deks'; "
        "did you mean 'decks'?",
    ),
    "a misspelt metric option": (
        edited("metrics", "slideagent", {"overal": "per_question"}),
        "metrics.slideagent.overal: metric slideagent takes no option 'overal'",
    ),
    "a misspelt retriever option": (
        edited("retrievers", "bm25", {"type": "bm25", "k": 1.2}),
        "retrievers.bm25.k: retriever type bm25 takes no option 'k'; did you mean 'k1'?",
    ),
    "a misspelt model option": (
        edited("models", "gemma3-270m", {"backend": "embedded", "max_batchsize": 4}),
        "models.gemma3-270m.max_batchsize: backend embedded takes no option 'max_batchsize'",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_config_mistake_fails_the_dry_run_naming_entry_and_key(tmp_path: Path, case: str) -> None:
    config, message = CASES[case]
    result = snakemake(workflow_copy(tmp_path, config), "-n")
    assert result.returncode != 0
    assert message in result.stdout + result.stderr, result.stderr[-3000:]


def test_a_dataset_root_that_does_not_exist_is_named_without_a_download(tmp_path: Path) -> None:
    config = edited(
        "datasets",
        "synthslides",
        {"adapter": "slidevqa", "options": {"root": "my/slidevqa"}, "metric": "slidevqa"},
    )
    config["metrics"]["slidevqa"] = {}
    result = snakemake(workflow_copy(tmp_path, config), "-n")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "datasets.synthslides.options.root: the folder 'my/slidevqa' does not exist" in output
    assert "download" not in output.split("config error:", 1)[1].split("File ", 1)[0].replace(
        "nothing is downloaded", ""
    )


def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path)
    lines = (work / "config" / "config.yaml").read_text().splitlines()
    number = next(i for i, line in enumerate(lines) if line.startswith("    metric:"))
    lines[number] = "   metric: slideagent"  # one space short of its siblings
    (work / "config" / "config.yaml").write_text("\n".join(lines) + "\n")
    result = snakemake(work, "-n")
    assert result.returncode != 0
    assert f"config/config.yaml:{number + 1}:" in result.stdout + result.stderr, result.stderr
