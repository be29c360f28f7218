"""Model backends: one interface (``Backend``) for every model, created by name from the config.

A backend module registers a factory ``(model_cfg, model_dir) -> Backend`` under the name that
``models.<name>.backend`` selects; ``model_dir`` is the folder the prepare_model rule wrote.
Backend modules import torch and friends, so they are imported on first use, not with this
package (the cache and the client stay light).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from docqa.backends.base import Backend
from docqa.runtime.registry import Registry

BackendFactory = Callable[[dict[str, Any], Path], Backend]

#: registered name → the module that registers it; add yours here
BACKENDS: Registry[BackendFactory] = Registry(
    "backend",
    {
        "embedded": "docqa.backends.embedded",
        "transformers": "docqa.backends.transformers",
        "openai": "docqa.backends.openai",
        "vllm": "docqa.backends.vllm",
        "gold_teacher": "docqa.training.gold_teacher",
    },
)


def create_backend(model_cfg: dict[str, Any], model_dir: Path) -> Backend:
    """The backend that ``model_cfg["backend"]`` names, on the prepared model in ``model_dir``."""
    return BACKENDS.get(model_cfg["backend"])(model_cfg, Path(model_dir))
