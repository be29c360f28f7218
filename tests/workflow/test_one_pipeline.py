"""The rules and ``docqa ask`` read one declaration of each fact they share (issue 26): a config
check changed in one place refuses the config in ``snakemake -n``, in ``docqa ask`` and in
``docqa config show`` alike; a model's preparation keys changed in one place change what the
prepare_model rule and ``docqa ask`` prepare alike; and a model entry with an ``adapter`` is
prepared by ``docqa ask`` as a model of its own, not as its base."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers.docqa_ask import ask
from helpers.workflow import ROOT, default_config, snakemake, workflow_copy

REAL = ROOT / "tests" / "data" / "real_pdfs"
#: where the preparation keys are declared: the transformers backend's spec marks `adapter`
DECLARATION = Path("docqa/backends/transformers.py")
DECLARED = "adapter: str | None = prepare_field("
#: the same field, no longer marked as a preparation key
UNMARKED = "adapter: str | None = (lambda default, text: Field(default, description=text))("


def docqa(work: Path, *args: str, src: Path = ROOT / "src") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docqa.cli", *args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(src)},
    )


def test_a_config_check_changed_in_one_place_reaches_the_rules_ask_and_config_show(
    tmp_path: Path,
) -> None:
    work = workflow_copy(tmp_path)
    assert docqa(work, "config", "show").returncode == 0
    # one place: the schema says render.dpi may be at most 150 (the default config has 200)
    schema_path = work / "config" / "config.schema.yaml"
    schema = yaml.safe_load(schema_path.read_text())
    schema["properties"]["render"]["properties"]["dpi"]["maximum"] = 150
    schema_path.write_text(yaml.safe_dump(schema, sort_keys=False))
    message = "render.dpi: 200 is greater than the maximum of 150"

    planned = snakemake(work, "-n")
    assert planned.returncode != 0
    assert message in planned.stdout + planned.stderr
    asked = ask(work, str(REAL / "local_crazyones.pdf"), "What is in it?")
    assert asked.returncode == 2
    assert message in asked.stderr
    assert not (work / "results" / "ask").exists()  # refused before any stage
    shown = docqa(work, "config", "show")
    assert shown.returncode == 2
    assert message in shown.stderr


def local_model(tmp_path: Path) -> tuple[Path, Path]:
    """A transformers folder (what preparing it reads: config.json) and a trained adapter."""
    weights, adapter = tmp_path / "weights", tmp_path / "adapter"
    weights.mkdir()
    (weights / "config.json").write_text(json.dumps({"model_type": "gemma3_text"}))
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text(json.dumps({"r": 8}))
    return weights, adapter


def with_student(tmp_path: Path) -> dict:
    weights, adapter = local_model(tmp_path)
    config = default_config()
    config["models"]["base"] = {"backend": "transformers", "path": str(weights)}
    config["models"]["student"] = {**config["models"]["base"], "adapter": str(adapter)}
    return config


def test_ask_prepares_a_model_with_an_adapter_as_a_model_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docqa.ask import model_folder
    from docqa.workflow.prepared_models import models_cache

    config = with_student(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    base = json.loads((model_folder("base", config["models"]["base"]) / "model.json").read_text())
    student_dir = model_folder("student", config["models"]["student"])
    student = json.loads((student_dir / "model.json").read_text())
    assert student_dir.parent == models_cache() == tmp_path / "cache" / "docqa" / "models"
    assert student["adapter"]["path"] == config["models"]["student"]["adapter"]
    assert "adapter" not in base
    assert student["identity"] != base["identity"]  # the response cache keys on it
    assert student["identity"]["adapter_sha256"] == student["adapter"]["sha256"]

    # another adapter is another model: ask prepares it again, as the rule reruns
    other = tmp_path / "retrained"
    shutil.copytree(config["models"]["student"]["adapter"], other)
    (other / "adapter_config.json").write_text(json.dumps({"r": 16}))
    retrained = {**config["models"]["student"], "adapter": str(other)}
    again = json.loads((model_folder("student", retrained) / "model.json").read_text())
    assert again["adapter"]["path"] == str(other)
    assert again["identity"] != student["identity"]


def test_a_prepare_key_changed_in_one_place_reaches_the_rule_and_ask(tmp_path: Path) -> None:
    # one place, in a copy of the package: the preparation keys no longer carry `adapter`
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__"))
    declaration = (src / DECLARATION).read_text()
    assert DECLARED in declaration
    (src / DECLARATION).write_text(declaration.replace(DECLARED, UNMARKED))
    config = with_student(tmp_path)
    work = workflow_copy(tmp_path, config)

    rule = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1", "results/models/student"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert rule.returncode == 0, rule.stderr[-3000:]
    by_rule = json.loads((work / "results/models/student/model.json").read_text())

    asked = tmp_path / "asked"
    asked.mkdir()
    probe = (
        "import json, sys\n"
        "from docqa.ask import model_folder\n"
        "entry = json.loads(sys.argv[1])\n"
        "print(model_folder('student', entry) / 'model.json')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(config["models"]["student"])],
        cwd=asked,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(src), "XDG_CACHE_HOME": str(tmp_path / "cache")},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    by_ask = json.loads((asked / result.stdout.strip()).read_text())
    assert "adapter" not in by_rule
    assert "adapter" not in by_ask
    assert by_ask["identity"] == by_rule["identity"]


def test_the_rule_files_spell_no_results_path() -> None:
    """Every path of the rule files comes from the layout (docqa.workflow.layout)."""
    spelled = [
        f"{path.name}:{number}"
        for path in sorted((ROOT / "rules").glob("*.smk"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if '"results/' in line or "'results/" in line
    ]
    assert not spelled, f"take these paths from RESULTS (docqa.workflow.layout): {spelled}"
