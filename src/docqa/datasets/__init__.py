"""Dataset adapters: each prepares one dataset's documents and questions under a folder.

An adapter is a function ``prepare(out_dir, options)`` registered by name. It writes
``out_dir/documents.jsonl`` (``Document`` rows), ``out_dir/questions.jsonl`` (``Question`` rows,
0-based evidence pages) and the documents themselves under ``out_dir/docs/``. The adapters of
downloaded benchmarks share :mod:`docqa.datasets.convert`; each also offers
``load_questions(root)`` over a folder in its download's layout.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from docqa.runtime.registry import Registry

PrepareDataset = Callable[[Path, dict[str, Any]], None]

#: registered name → the module that registers it; add yours here
DATASETS: Registry[PrepareDataset] = Registry(
    "dataset",
    {
        "synthslides": "docqa.datasets.synthslides.adapter",
        "mmlongbench_doc": "docqa.datasets.mmlongbench_doc",
        "longdocurl": "docqa.datasets.longdocurl",
        "slidevqa": "docqa.datasets.slidevqa",
        "realmmrag": "docqa.datasets.realmmrag",
        "mdocagent": "docqa.datasets.mdocagent",
        "docbench": "docqa.datasets.docbench",
        "finragbench_v": "docqa.datasets.finragbench_v",
        "madqa": "docqa.datasets.madqa",
        "local": "docqa.datasets.local",
    },
)
