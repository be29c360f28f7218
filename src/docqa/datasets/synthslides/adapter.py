"""The ``synthslides`` dataset: slide decks generated locally, answers known by construction.

Options (all optional): ``seed`` (0), ``decks`` (6), ``slides_per_deck`` ([8, 12]),
``questions_per_deck`` (10) and ``corrupt_decks`` (0: broken documents for robustness tests).
Evidence pages are 0-based already.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.datasets import DATASETS
from docqa.datasets.synthslides.dataset import build_dataset
from docqa.datasets.synthslides.options import parse_options


@DATASETS.register("synthslides")
def prepare(out_dir: Path, options: dict[str, Any]) -> None:
    """Generate the decks and their questions under ``out_dir``; unknown options are errors."""
    build_dataset(Path(out_dir), parse_options(options))
