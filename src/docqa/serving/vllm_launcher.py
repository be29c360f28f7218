"""The ``vllm serve`` command line for a ``backend: vllm`` model of the config.

The entry's vLLM options (``tensor_parallel_size``, ``quantization``, ``max_model_len``,
``gpu_memory_utilization``, ``dtype``, ``max_images``, ``max_batch_size``, ``seed``,
``trust_remote_code``, and ``max_pixels`` for models whose processor takes it) become the
server's flags, read with the same ``VLLMOptions`` as the in-process ``vllm`` backend, so a
served model runs with the settings the offline one would. The weights are the model's prepared
folder (the prepare_model rule's ``results/models/<name>``: pinned, and read offline); its
config names the model family, which says whether the processor takes the pixel budget. The
server answers under the model's config name (``--served-model-name``).

vLLM pins its own torch, so it lives in an environment of its own
(``envs/vllm/environment.yaml``); the command's first words (``vllm`` by default) say how to
reach it, e.g. ``conda run --no-capture-output -n docqa-vllm vllm``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docqa.backends.model_families import family_of
from docqa.backends.preparation import read_model_card, weights_folder
from docqa.backends.vllm import VLLMOptions


def vllm_command(
    name: str,
    model_cfg: dict[str, Any],
    model_dir: Path,
    *,
    host: str,
    port: int,
    executable: Sequence[str] = ("vllm",),
) -> list[str]:
    """The command that serves model ``name`` (config entry ``model_cfg``, prepared in
    ``model_dir``) on ``host:port``."""
    if model_cfg.get("backend") != "vllm":
        raise ValueError(
            f"model {name} has backend {model_cfg.get('backend')!r}; --engine vllm serves "
            "backend: vllm entries (vLLM's outputs are not transformers': give the vLLM twin "
            "a name of its own, like qwen2.5-vl-7b-vllm-bnb4 in config/models.yaml)"
        )
    settings = VLLMOptions.of_entry(model_cfg)
    card = read_model_card(model_dir)
    command = [*executable, "serve", str(weights_folder(card)), "--served-model-name", name]
    command += [
        "--host", host,
        "--port", str(port),
        "--tensor-parallel-size", str(settings.tensor_parallel_size),
        "--dtype", settings.dtype,
        "--gpu-memory-utilization", str(settings.gpu_memory_utilization),
        "--max-num-seqs", str(settings.max_batch_size),
        "--seed", str(settings.seed),
        "--limit-mm-per-prompt", json.dumps({"image": settings.max_images}),
    ]  # fmt: skip
    if settings.quantization:
        command += ["--quantization", settings.quantization]
    if settings.max_model_len:
        command += ["--max-model-len", str(settings.max_model_len)]
    processor_kwargs = _processor_kwargs(card.get("model_type") or "", settings)
    if processor_kwargs:
        command += ["--mm-processor-kwargs", json.dumps(processor_kwargs)]
    if settings.trust_remote_code:
        command.append("--trust-remote-code")
    return command


def client_entry(
    name: str, model_cfg: dict[str, Any], model_dir: Path, base_url: str
) -> dict[str, Any]:
    """The ``models:`` entry with which docqa jobs use the served model; its ``revision`` is the
    weights' (Hub commit, or a local folder's hash), so the cache keeps them apart."""
    identity = read_model_card(model_dir)["identity"]
    return {
        "backend": "openai",
        "base_url": base_url,
        "model": name,
        "revision": identity.get("revision") or identity.get("sha256"),
        "concurrency": VLLMOptions.of_entry(model_cfg).max_batch_size,
    }


def _processor_kwargs(model_type: str, settings: VLLMOptions) -> dict[str, int]:
    """The pixel budget for processors that take it (Qwen-VL), as the offline backend sets it."""
    if family_of(model_type).budget != "processor":
        return {}
    budget = {"max_pixels": settings.max_pixels, "min_pixels": settings.min_pixels}
    return {key: value for key, value in budget.items() if value is not None}
