"""config/models.yaml: the papers' models validate against the schema next to the default config,
each pinned to a commit, and the schema names a bad model key."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.workflow import default_config, snakemake, workflow_copy
from snakemake.utils import validate

from docqa.workflow.config_check import check_references

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
    ],
)
def test_a_bad_model_entry_is_refused_by_name(entry: dict[str, Any], named: str) -> None:
    config = default_config()
    config["models"]["broken"] = entry
    with pytest.raises(Exception, match=named):
        validate(config, SCHEMA)


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
