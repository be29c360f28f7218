"""The ``synthslides`` dataset: slide decks generated locally, answers known by construction.

Its options are :class:`~docqa.datasets.synthslides.options.SynthOptions` (all optional;
``docqa options dataset synthslides`` lists them). Evidence pages are 0-based already.
"""

from __future__ import annotations

from pathlib import Path

from docqa.datasets import DATASETS
from docqa.datasets.synthslides.options import SynthOptions


@DATASETS.register("synthslides", options=SynthOptions)
def prepare(out_dir: Path, options: SynthOptions) -> None:
    """Generate the decks and their questions under ``out_dir``."""
    # imported here: the generator draws with matplotlib, which the workflow's parse skips
    from docqa.datasets.synthslides.dataset import build_dataset

    build_dataset(Path(out_dir), options)
