"""Precision of a transformers model: how its weights are loaded and what the cache keys on.

``precision`` in a model's config entry (``TransformersOptions``) is one of:

- ``bf16`` / ``fp16`` / ``fp32``: the weights in that dtype (``fp32`` for tiny models on CPU);
- ``int8``: bitsandbytes LLM.int8() linear layers, float16 for the rest;
- ``nf4``: bitsandbytes 4-bit NormalFloat with double quantization and bfloat16 compute.

bitsandbytes has a CPU path too (slow, but it lets the tests load and run int8 and nf4 models).
Quantized models are placed by ``device_map`` at load time; they cannot be moved afterwards.
"""

from __future__ import annotations

from typing import Any

import torch

#: the dtype of the weights that stay unquantized (embeddings, norms, lm_head) and of compute
DTYPES = {
    "bf16": torch.bfloat16,
    "fp16": torch.float16,
    "fp32": torch.float32,
    "int8": torch.float16,
    "nf4": torch.bfloat16,
}

#: the loader settings that define each precision, recorded in the model's identity
QUANTIZATION = {
    "int8": {"method": "bitsandbytes", "load_in_8bit": True},
    "nf4": {
        "method": "bitsandbytes",
        "load_in_4bit": True,
        "bnb_4bit_quant_type": "nf4",
        "bnb_4bit_use_double_quant": True,
        "bnb_4bit_compute_dtype": "bfloat16",
    },
}


def load_options(precision: str) -> dict[str, Any]:
    """``from_pretrained`` keyword arguments for ``precision`` (dtype and quantization)."""
    options: dict[str, Any] = {"dtype": DTYPES[precision]}
    if precision in QUANTIZATION:
        from transformers import BitsAndBytesConfig

        settings = {k: v for k, v in QUANTIZATION[precision].items() if k != "method"}
        if "bnb_4bit_compute_dtype" in settings:
            settings["bnb_4bit_compute_dtype"] = DTYPES[precision]
        options["quantization_config"] = BitsAndBytesConfig(**settings)
    return options


def precision_identity(precision: str) -> dict[str, Any]:
    """What the response cache keys on: the precision and, when quantized, its exact method and
    the version of the library that quantized it (its kernels decide the outputs)."""
    identity: dict[str, Any] = {"precision": precision}
    if precision in QUANTIZATION:
        from importlib import metadata

        identity["quantization"] = {
            **QUANTIZATION[precision],
            "bitsandbytes": metadata.version("bitsandbytes"),
        }
    return identity
