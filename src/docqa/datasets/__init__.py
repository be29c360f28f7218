"""Dataset adapters: each prepares one dataset's documents and questions under a folder.

An adapter is a function ``prepare(out_dir, options)`` registered by name with its option spec
(``DATASETS.register("slidevqa", options=SlideVQAOptions)``); ``options`` is the dataset's
``options:`` entry validated by that spec (:func:`prepare` does it). It writes
``out_dir/documents.jsonl`` (``Document`` rows), ``out_dir/questions.jsonl`` (``Question`` rows,
0-based evidence pages) and the documents themselves under ``out_dir/docs/``. The adapters of
downloaded benchmarks share :mod:`docqa.datasets.convert` and its options; each also offers
``load_questions(root)`` over a folder in its download's layout.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from docqa.runtime.registry import Registry
from docqa.runtime.spec import Options, check_entry

PrepareDataset = Callable[[Path, Any], None]

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


def resolve_options(adapter: str, values: Mapping[str, Any]) -> Options:
    """Adapter ``adapter``'s options: a dataset's ``options:`` entry validated by the adapter's
    registered spec, defaults filled in; a ``ValueError`` names each bad key (as the config
    check does)."""
    spec = DATASETS.options(adapter)
    problems = check_entry(spec, values, "options", f"adapter {adapter}")
    if problems:
        raise ValueError("; ".join(problems))
    return spec.model_validate(dict(values))


def prepare(adapter: str, out_dir: Path, values: Mapping[str, Any]) -> None:
    """Run adapter ``adapter`` with the options ``values`` (validated first, so a bad option
    fails before anything is written) into ``out_dir``."""
    options = resolve_options(adapter, values)
    DATASETS.get(adapter)(Path(out_dir), options)
