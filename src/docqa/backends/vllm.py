"""The ``vllm`` backend: the same requests through ``vllm.LLM.chat`` in this process, on one GPU
or ``tensor_parallel_size`` of them, in bf16, bitsandbytes 4-bit or a pre-quantized AWQ
checkpoint.

vLLM is not a docqa dependency: every vLLM release pins its own torch and an older transformers
(vllm 0.33.0: torch 2.14.0, transformers<5.21), so it cannot share docqa's environment. Install it
in an environment of its own (``pip install vllm==0.33.0``, then docqa with ``pip install
--no-deps -e .``), or run ``vllm serve`` and use ``backend: openai``. The module imports vllm
only when a vllm model is created.

Its outputs are not the transformers backend's: other kernels, batching and sampling, and no
reproducibility guarantee across hardware or versions. So the identity says ``engine: vllm``
with vLLM's version, the cache never mixes the two, and a vLLM run is a model of its own name in
the config and in the tables.
"""

from __future__ import annotations

import json
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from docqa.backends import BACKENDS
from docqa.backends.base import Backend, Completion, HubModelOptions
from docqa.backends.chat_format import openai_messages
from docqa.backends.model_families import family_of
from docqa.backends.pixels import check_pages
from docqa.backends.preparation import read_model_card, weights_folder
from docqa.backends.request import ChatRequest
from docqa.core.prediction import Usage
from docqa.runtime.spec import Field

#: the release docqa's vLLM notes were checked against (import-guard message only)
VLLM_RELEASE = "0.33.0"


class VLLMOptions(HubModelOptions):
    max_batch_size: int = Field(64, ge=1, description="sequences in flight at once (max_num_seqs)")
    quantization: Literal["bitsandbytes", "awq"] | None = Field(
        None, description="bitsandbytes: 4-bit in flight; awq: an AWQ checkpoint; null: none"
    )
    tensor_parallel_size: int = Field(1, ge=1, description="GPUs the model is split over")
    dtype: Literal["bfloat16", "float16", "auto"] = Field(
        "bfloat16", description="weights and compute"
    )
    max_model_len: int | None = Field(
        None, ge=1, description="context length (null: the model's own)"
    )
    gpu_memory_utilization: float = Field(
        0.9, gt=0, le=1, description="share of each GPU vLLM reserves"
    )
    max_images: int = Field(8, ge=1, description="most page images per request")
    seed: int = Field(0, description="sampling seed")


def vllm_identity(
    weights_identity: dict[str, Any], options: VLLMOptions, vllm_version: str
) -> dict[str, Any]:
    """What the cache keys on for a vLLM model: the weights, ``engine: vllm`` and its version, and
    every setting that changes outputs."""
    return {
        **weights_identity,
        "engine": "vllm",
        "vllm": vllm_version,
        "quantization": options.quantization,
        "dtype": options.dtype,
        "tensor_parallel_size": options.tensor_parallel_size,
        "max_pixels": options.max_pixels,
        "min_pixels": options.min_pixels,
        "seed": options.seed,
    }


class VLLMOffline(Backend):
    def __init__(self, name: str, weights: Path, identity: dict[str, Any], options: VLLMOptions):
        import torch
        from vllm import LLM

        self.name = name
        self.options = options
        self.max_batch_size = options.max_batch_size
        self._identity = identity
        config = json.loads((weights / "config.json").read_text())
        self._image_token = config.get("image_token_id", config.get("image_token_index"))
        processor_kwargs = {}
        if family_of(config.get("model_type", "")).budget == "processor":
            processor_kwargs = {
                key: value
                for key, value in (
                    ("max_pixels", options.max_pixels),
                    ("min_pixels", options.min_pixels),
                )
                if value is not None
            }
        self.llm = LLM(
            model=str(weights),
            quantization=options.quantization,
            tensor_parallel_size=options.tensor_parallel_size,
            dtype=options.dtype,
            max_model_len=options.max_model_len,
            gpu_memory_utilization=options.gpu_memory_utilization,
            limit_mm_per_prompt={"image": options.max_images},
            mm_processor_kwargs=processor_kwargs or None,
            max_num_seqs=options.max_batch_size,
            seed=options.seed,
            trust_remote_code=options.trust_remote_code,
        )
        self._gpus = list(range(min(options.tensor_parallel_size, torch.cuda.device_count())))
        self.context_tokens = self.llm.llm_engine.model_config.max_model_len

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    def validate(self, request: ChatRequest) -> None:
        check_pages(request.images)
        if len(request.images) > self.options.max_images:
            raise ValueError(
                f"model {self.name}: a request with {len(request.images)} images, more than "
                f"models.{self.name}.max_images ({self.options.max_images}); raise it"
            )

    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        from vllm import SamplingParams

        started = time.perf_counter()
        conversations = [
            # a request's own budget shrinks its images before they are sent; the engine's
            # processor cap (max_pixels at launch) still bounds it from above
            openai_messages(
                r,
                vision=True,
                max_pixels=(
                    self.options.max_pixels
                    if r.generation.max_pixels is None
                    else r.generation.max_pixels
                ),
            )
            for r in requests
        ]
        sampling = [
            SamplingParams(
                temperature=r.generation.temperature,
                max_tokens=r.generation.max_new_tokens,
                stop=list(r.generation.stop) or None,
                seed=self.options.seed,
            )
            for r in requests
        ]
        outputs = self.llm.chat(conversations, sampling_params=sampling, use_tqdm=False)
        seconds = (time.perf_counter() - started) / len(requests)
        used_mb = self._gpu_memory_in_use_mb()
        completions = []
        for output in outputs:
            prompt = list(output.prompt_token_ids or [])
            generated = output.outputs[0]
            usage = Usage(
                calls=1,
                tokens_in=len(prompt),
                tokens_out=len(generated.token_ids),
                image_tokens=prompt.count(self._image_token)
                if self._image_token is not None
                else 0,
                seconds=seconds,
                peak_memory_mb=used_mb,
            )
            completions.append(Completion(generated.text, usage))
        return completions

    def close(self) -> None:
        del self.llm

    def _gpu_memory_in_use_mb(self) -> float:
        """GPU memory in use on the engine's GPUs. vLLM reserves ``gpu_memory_utilization`` of
        each GPU for weights and KV cache up front (in its own engine process), so this is what
        the model holds, not a per-batch peak."""
        import torch

        used = 0
        for index in self._gpus:
            free, total = torch.cuda.mem_get_info(index)
            used += total - free
        return used / 2**20


@BACKENDS.register("vllm", options=VLLMOptions)
def create_vllm(options: VLLMOptions, model_dir: Path) -> VLLMOffline:
    card = read_model_card(model_dir)
    name = card["name"]
    try:
        version = metadata.version("vllm")
    except metadata.PackageNotFoundError:
        raise RuntimeError(
            f"model {name}: backend vllm needs the vllm package, which docqa's environment "
            f"cannot hold (vllm pins its own torch); install vllm=={VLLM_RELEASE} in an "
            f"environment of its own and docqa there with `pip install --no-deps -e .`, or run "
            f"`vllm serve` and set models.{name}.backend: openai"
        ) from None
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError(
            f"model {name}: backend vllm runs only on a GPU and none is visible to this job; run "
            f"it on a GPU node (models.{name}.gpus sets the Snakemake gpu resource) or use "
            f"backend: transformers on CPU"
        )
    weights = weights_folder(card)
    identity = vllm_identity(card["identity"], options, version)
    return VLLMOffline(name, weights, identity, options)
