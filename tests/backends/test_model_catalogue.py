"""config/models.yaml: the papers' models validate against the schema and their backends' option
specs next to the default config, each pinned to a commit; every model entry of every config
validates; and the config check names a bad model key."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.workflow import default_config, snakemake, workflow_copy
from snakemake.utils import validate

from docqa.backends import BACKENDS
from docqa.runtime.spec import check_entry
from docqa.workflow.config_check import ConfigError, check_options, check_references

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = str(ROOT / "config" / "config.schema.yaml")


def with_catalogue() -> dict[str, Any]:
    """config.yaml updated by models.yaml, as ``--configfile config.yaml models.yaml`` does."""
    config = default_config()
    catalogue = yaml.safe_load((ROOT / "config" / "models.yaml").read_text())
    assert set(catalogue) == {"models"}
    config["models"].update(catalogue["models"])
    return config


def test_catalogue_validates_and_pins_every_hub_model() -> None:
    config = with_catalogue()
    validate(copy.deepcopy(config), SCHEMA)
    check_references(config)
    check_options(config)
    models = config["models"]
    families = {
        "Qwen/Qwen2-VL-7B-Instruct",
        "Qwen/Qwen2.5-VL-7B-Instruct",
        "llava-hf/llava-v1.6-mistral-7b-hf",
        "llava-hf/llava-onevision-qwen2-7b-ov-hf",
        "microsoft/Phi-3.5-vision-instruct",
        "HuggingFaceTB/SmolVLM-Instruct",
        "meta-llama/Llama-3.1-8B-Instruct",
    }
    assert families <= {entry.get("hf_id") for entry in models.values()}
    for name, entry in models.items():
        if "hf_id" in entry:
            assert re.fullmatch(r"[0-9a-f]{40}", entry["revision"]), name
    assert {"nf4", "int8", "bf16"} <= {entry.get("precision") for entry in models.values()}
    assert models["gpt-4o"]["api_key_env"] == "OPENAI_API_KEY"
    assert models["qwen2.5-vl-7b-vllm-bnb4"]["quantization"] == "bitsandbytes"


@pytest.mark.parametrize(
    ("entry", "named"),
    [
        (
            {"backend": "transformers", "hf_id": "Qwen/Qwen2.5-VL-7B-Instruct", "revision": "main"},
            "revision",
        ),
        ({"backend": "transformers", "path": "models/x", "precison": "nf4"}, "precison"),
        ({"backend": "transformers", "path": "models/x", "precision": "int4"}, "precision"),
        ({"backend": "openai", "base_url": "https://api.openai.com/v1"}, "model"),
        ({"backend": "vllm", "path": "models/x", "quantization": "gptq"}, "quantization"),
        ({"backend": "transformers"}, "path"),
        ({"backend": "openai", "base_url": "x", "model": "m"}, "base_url"),
        ({"backend": "embedded", "max_batch_size": 0}, "max_batch_size"),
        ({"backend": "gold_teacher", "adapter": "a"}, "adapter"),
    ],
)
def test_a_bad_model_entry_is_refused_by_name(entry: dict[str, Any], named: str) -> None:
    config = default_config()
    config["models"]["broken"] = entry
    validate(copy.deepcopy(config), SCHEMA)  # structure only: the backend's spec has the rest
    with pytest.raises(ConfigError, match=rf"models\.broken(\.{named}:|: .*{named})"):
        check_options(config)


CONFIG_FILES = [ROOT / "config" / "config.yaml", ROOT / "config" / "models.yaml"]
CONFIG_FILES += sorted((ROOT / "config" / "experiments").glob("*.yaml"))
MODEL_ENTRIES = [
    (path.relative_to(ROOT).as_posix(), name)
    for path in CONFIG_FILES
    for name in (yaml.safe_load(path.read_text()).get("models") or {})
]


@pytest.mark.parametrize(
    ("path", "name"), MODEL_ENTRIES, ids=[f"{p}:{n}" for p, n in MODEL_ENTRIES]
)
def test_every_model_entry_of_the_configs_validates(path: str, name: str) -> None:
    entry = yaml.safe_load((ROOT / path).read_text())["models"][name]
    spec = BACKENDS.options(entry["backend"])
    assert check_entry(spec, entry, f"models.{name}", entry["backend"]) == []
    options = spec.model_validate({k: v for k, v in entry.items() if k != "backend"})
    assert options.model_dump(exclude_unset=True) == {
        k: v for k, v in entry.items() if k != "backend"
    }  # nothing dropped or converted


def test_every_backend_declares_its_options_with_help() -> None:
    for name in BACKENDS.modules:  # docqa's own (a test may register one of its own)
        spec = BACKENDS.options(name)
        assert spec.entry_keys == ("backend",), name
        assert all(field.description for field in spec.model_fields.values()), name
    assert BACKENDS.options("transformers").prepare_keys() == (
        "backend", "hf_id", "revision", "hf_cache", "path", "adapter"
    )  # fmt: skip
    assert BACKENDS.options("openai").prepare_keys() == ("backend",)


def test_backend_modules_import_no_model_library() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from docqa.backends import BACKENDS; BACKENDS.load_all(); "
        "print(sorted(m for m in ('torch', 'transformers', 'vllm') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


def test_snakemake_plans_a_catalogue_model_with_its_preparation(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path)
    grid = (
        "experiments=[{datasets: [synthslides], methods: [oracle_pages], "
        "models: [qwen2.5-vl-7b-nf4]}]"
    )
    result = snakemake(
        work, "-n", "--configfile", "config/config.yaml", "config/models.yaml", "--config", grid
    )
    assert result.returncode == 0, result.stderr
    assert "results/models/qwen2.5-vl-7b-nf4" in result.stdout
    assert (
        "results/runs/synthslides/oracle_pages/qwen2.5-vl-7b-nf4/predictions.jsonl" in result.stdout
    )
