"""Trained adapters on top of a model: a model entry's ``adapter:`` (a PEFT folder).

The training stage (``docqa.training.train``) writes a LoRA adapter; a model entry
``{backend: transformers, path: <base weights>, adapter: <adapter folder>}`` runs the base with
it, like any other model. The adapter is merged into the weights where they are plain tensors
(inference then costs what the base costs); on a quantized base (int8, nf4) it stays a separate
layer, as PEFT runs it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ADAPTER_CONFIG = "adapter_config.json"


def check_adapter(name: str, folder: Path) -> Path:
    """The adapter folder, or an error naming the model and the fix."""
    if not (folder / ADAPTER_CONFIG).is_file():
        raise FileNotFoundError(
            f"model {name!r}: adapter {folder} has no {ADAPTER_CONFIG}; point "
            f"models.{name}.adapter at the adapter folder a training stage wrote "
            "(results/training/<name>/<stage>/adapter)"
        )
    return folder


def apply_adapter(model: Any, folder: Path, merge: bool = True) -> Any:
    """``model`` with the PEFT adapter in ``folder``, merged when ``merge``, in eval mode."""
    from peft import PeftModel

    adapted = PeftModel.from_pretrained(model, str(folder), is_trainable=False)
    return (adapted.merge_and_unload() if merge else adapted).eval()
