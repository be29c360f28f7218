"""Where a local model runs, and how much memory it took.

``device`` in a model's config entry: ``auto`` (every visible GPU through accelerate's
``device_map="auto"``, else the CPU), ``cuda`` / ``cuda:N`` (one GPU; ``cuda`` with several
visible GPUs also spreads the model over all of them), or ``cpu``.
"""

from __future__ import annotations

import resource
from typing import Any

import torch


def device_map(model: str, device: str) -> Any:
    """The ``device_map`` for ``from_pretrained``; an error naming the model and the fix when the
    configured device is not there."""
    if device == "auto":
        return "auto" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        return "cpu"
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise RuntimeError(
                f"model {model}: device {device!r} but no CUDA GPU is visible to this job; run it "
                f"on a GPU node (models.{model}.gpus sets the Snakemake gpu resource) or set "
                f"models.{model}.device: cpu"
            )
        if device == "cuda":
            return "auto" if torch.cuda.device_count() > 1 else "cuda:0"
        index = int(device.split(":", 1)[1])
        if index >= torch.cuda.device_count():
            raise RuntimeError(
                f"model {model}: device {device!r} but only {torch.cuda.device_count()} GPU(s) "
                f"are visible; set models.{model}.device to auto, cuda or cuda:0"
            )
        return device
    raise ValueError(f"model {model}: device {device!r}: use auto, cpu, cuda or cuda:N")


def cuda_devices(model: Any) -> list[int]:
    """The GPUs a loaded model's parameters sit on."""
    return sorted({p.device.index or 0 for p in model.parameters() if p.device.type == "cuda"})


def reset_peak(gpus: list[int]) -> None:
    for index in gpus:
        torch.cuda.reset_peak_memory_stats(index)


def peak_memory_mb(gpus: list[int]) -> float:
    """Peak GPU memory allocated since ``reset_peak``, summed over the model's GPUs; on CPU the
    process's peak resident memory (Linux reports KiB)."""
    if gpus:
        return sum(torch.cuda.max_memory_allocated(index) for index in gpus) / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def is_out_of_memory(error: BaseException) -> bool:
    """CUDA's OutOfMemoryError, or the CPU allocator refusing an allocation."""
    if isinstance(error, torch.OutOfMemoryError):
        return True
    text = str(error)
    return isinstance(error, RuntimeError) and (
        "can't allocate memory" in text or "out of memory" in text.lower()
    )


def free_memory(gpus: list[int]) -> None:
    import gc

    gc.collect()
    if gpus:
        torch.cuda.empty_cache()
