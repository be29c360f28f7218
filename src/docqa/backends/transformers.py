"""The ``transformers`` backend: a prepared Hub or local model, VLM or text-only, in the precision
its config entry asks for.

A model type that ``AutoModelForImageTextToText`` serves runs as a ``TransformersVLM``; any other
(Llama-3.1-8B and the like) as a ``TransformersLM`` that reads each image part as the page's
marked OCR text, with its chat template unless ``prompt_format: raw`` says otherwise.

This module declares the options and the factory; the factory imports torch, transformers and
the implementations when it creates a model.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from docqa.backends import BACKENDS
from docqa.backends.base import Backend, HubModelOptions, prepare_field
from docqa.backends.preparation import read_model_card, weights_folder
from docqa.runtime.spec import Field

if TYPE_CHECKING:
    from docqa.backends.transformers_lm import TransformersLM

#: LMSettings.dtype for each precision (the dtype of what stays unquantized)
LM_DTYPES = {
    "bf16": "bfloat16",
    "fp16": "float16",
    "fp32": "float32",
    "int8": "float16",
    "nf4": "bfloat16",
}


class TransformersOptions(HubModelOptions):
    max_batch_size: int = Field(8, ge=1, description="requests answered in one batch")
    precision: Literal["bf16", "fp16", "fp32", "int8", "nf4"] = Field(
        "bf16", description="int8 and nf4: bitsandbytes (nf4: double quantization, bf16 compute)"
    )
    device: str = Field(
        "auto",
        pattern=r"^(auto|cpu|cuda(:[0-9]+)?)$",
        description="auto: every visible GPU (device_map auto), else the CPU",
    )
    attn_implementation: Literal["eager", "sdpa", "flash_attention_2"] = Field(
        "sdpa", description="transformers' attention kernel"
    )
    oom_retry_max_pixels: int | None = Field(
        None,
        ge=784,
        description="pixel budget of the one retry after an out-of-memory (null: max_pixels / 4)",
    )
    prompt_format: Literal["raw", "chat"] = Field(
        "chat", description="text-only models only: raw few-shot text, or the chat template"
    )
    max_input_tokens: int | None = Field(
        None, ge=1, description="text-only models only: longer prompts lose their middle"
    )
    adapter: str | None = prepare_field(
        None,
        "a trained PEFT adapter folder on the weights "
        "(results/training/<name>/<stage>/adapter; docs/training.md)",
    )


@BACKENDS.register("transformers", options=TransformersOptions)
def create_transformers(options: TransformersOptions, model_dir: Path) -> Backend:
    from docqa.backends.adapters import apply_adapter, check_adapter
    from docqa.backends.model_families import is_vlm
    from docqa.backends.quantization import precision_identity
    from docqa.backends.vlm import TransformersVLM

    card = read_model_card(model_dir)
    name = card["name"]
    weights = weights_folder(card)
    identity = {**card["identity"], **precision_identity(options.precision)}
    backend: TransformersVLM | TransformersLM
    if is_vlm(card["model_type"]):
        backend = TransformersVLM(name, weights, identity, options)
    else:
        backend = _text_model(name, weights, identity, options)
    if "adapter" in card:  # a trained adapter (docqa.backends.adapters), merged when it can be
        adapter = check_adapter(name, Path(card["adapter"]["path"]))
        merge = options.precision not in ("int8", "nf4")
        backend.model = apply_adapter(backend.model, adapter, merge=merge)
    return backend


def _text_model(
    name: str, weights: Path, identity: dict[str, Any], options: TransformersOptions
) -> TransformersLM:
    from docqa.backends.devices import device_map
    from docqa.backends.loading import load_errors
    from docqa.backends.quantization import load_options
    from docqa.backends.transformers_lm import LMSettings, TransformersLM

    placement = device_map(name, options.device)
    lm_settings = LMSettings(
        prompt_format=options.prompt_format,
        dtype=LM_DTYPES[options.precision],
        device="cpu" if placement == "cpu" else "cuda",
        max_batch_size=options.max_batch_size,
        max_input_tokens=options.max_input_tokens,
        threads=options.threads,
        attn_implementation=options.attn_implementation,
    )
    loading = {**load_options(options.precision), "device_map": placement}
    with load_errors(name, weights, options.precision, options.device):
        return TransformersLM(weights, {**identity, "engine": "transformers"}, lm_settings, loading)
