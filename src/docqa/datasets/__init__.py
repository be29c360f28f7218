"""Dataset adapters: each prepares one dataset's documents and questions under a folder.

An adapter is a function ``prepare(out_dir, options)`` registered by name. It writes
``out_dir/documents.jsonl`` (``Document`` rows), ``out_dir/questions.jsonl`` (``Question`` rows,
0-based evidence pages) and the documents themselves under ``out_dir/docs/``. The adapters of
downloaded benchmarks share :mod:`docqa.datasets.convert`; each also offers
``load_questions(root)`` over a folder in its download's layout.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Callable

from docqa.registry import Registry

PrepareDataset = Callable[[Path, dict[str, Any]], None]

DATASETS: Registry[PrepareDataset] = Registry("dataset")

#: modules that register an adapter; add yours here
ADAPTER_MODULES = (
    "synthslides",
    "mmlongbench_doc",
    "longdocurl",
    "slidevqa",
    "realmmrag",
    "mdocagent",
    "docbench",
    "finragbench_v",
    "madqa",
)


def load_adapters() -> None:
    """Import every adapter module so that it registers itself."""
    for name in ADAPTER_MODULES:
        importlib.import_module(f"docqa.datasets.{name}")
