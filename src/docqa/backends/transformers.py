"""The ``transformers`` backend: a prepared Hub or local model, VLM or text-only, in the precision
its config entry asks for.

A model type that ``AutoModelForImageTextToText`` serves runs as a ``TransformersVLM``; any other
(Llama-3.1-8B and the like) as a ``TransformersLM`` that reads each image part as the page's
marked OCR text, with its chat template unless ``prompt_format: raw`` says otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.backends import BACKENDS
from docqa.backends.adapters import apply_adapter, check_adapter
from docqa.backends.base import Backend
from docqa.backends.devices import device_map
from docqa.backends.loading import load_errors
from docqa.backends.model_families import is_vlm
from docqa.backends.preparation import read_model_card, weights_folder
from docqa.backends.quantization import check_precision, load_options, precision_identity
from docqa.backends.transformers_lm import LMSettings, TransformersLM
from docqa.backends.vlm import TransformersVLM, VLMSettings

#: LMSettings.dtype for each precision (the dtype of what stays unquantized)
LM_DTYPES = {
    "bf16": "bfloat16",
    "fp16": "float16",
    "fp32": "float32",
    "int8": "float16",
    "nf4": "bfloat16",
}


@BACKENDS.register("transformers")
def create_transformers(model_cfg: dict[str, Any], model_dir: Path) -> Backend:
    card = read_model_card(model_dir)
    name = card["name"]
    weights = weights_folder(card)
    settings = VLMSettings.from_config(model_cfg)
    check_precision(name, settings.precision)
    identity = {**card["identity"], **precision_identity(settings.precision)}
    backend: TransformersVLM | TransformersLM
    if is_vlm(card["model_type"]):
        backend = TransformersVLM(name, weights, identity, settings)
    else:
        backend = _text_model(name, weights, identity, settings, model_cfg)
    if "adapter" in card:  # a trained adapter (docqa.backends.adapters), merged when it can be
        adapter = check_adapter(name, Path(card["adapter"]["path"]))
        merge = settings.precision not in ("int8", "nf4")
        backend.model = apply_adapter(backend.model, adapter, merge=merge)
    return backend


def _text_model(
    name: str,
    weights: Path,
    identity: dict[str, Any],
    settings: VLMSettings,
    model_cfg: dict[str, Any],
) -> TransformersLM:
    placement = device_map(name, settings.device)
    lm_settings = LMSettings.from_config(
        {
            "prompt_format": "chat",
            **model_cfg,
            "dtype": LM_DTYPES[settings.precision],
            "device": "cpu" if placement == "cpu" else "cuda",
        }
    )
    options = {**load_options(settings.precision), "device_map": placement}
    with load_errors(name, weights, settings.precision, settings.device):
        return TransformersLM(weights, {**identity, "engine": "transformers"}, lm_settings, options)
