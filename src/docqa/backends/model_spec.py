"""A configured model as the stages pass it around: its config entry and its prepared folder.

The infer and knowledge stages, the training stages and DocPilot's trajectory synthesis take a
:class:`ModelSpec`; :func:`docqa.backends.create_backend` makes its backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ModelSpec:
    """A configured model: its config entry and the folder its prepare_model job wrote."""

    config: dict[str, Any]
    folder: Path
