"""Dataset adapters: each prepares one dataset's documents and questions under a folder.

An adapter is a function ``prepare(out_dir, options)`` registered by name. It writes
``out_dir/documents.jsonl`` (``Document`` rows), ``out_dir/questions.jsonl`` (``Question`` rows,
0-based evidence pages) and the documents themselves under ``out_dir/docs/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from docqa.registry import Registry

PrepareDataset = Callable[[Path, dict[str, Any]], None]

DATASETS: Registry[PrepareDataset] = Registry("dataset")


def load_adapters() -> None:
    """Import every adapter module so that it registers itself."""
    from docqa.datasets import synthslides  # noqa: F401
