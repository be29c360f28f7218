"""``pages.json``: the page count of a document's index and what it was built with.

The searcher reads it back and checks that the index was built with the settings it is loaded
with, so a stale index is a clear error instead of rankings from another model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MANIFEST = "pages.json"


def write_manifest(out_dir: Path, pages: int, **built_with: Any) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / MANIFEST).write_text(json.dumps({"pages": pages, **built_with}, indent=1) + "\n")


def read_manifest(index_dir: Path, **expected: Any) -> dict[str, Any]:
    """The manifest of ``index_dir``; each ``expected`` key must match what the index holds."""
    path = index_dir / MANIFEST
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: {index_dir} is not a complete index; rerun the index stage"
        )
    manifest = json.loads(path.read_text())
    for key, value in expected.items():
        if manifest.get(key) != value:
            raise ValueError(
                f"{index_dir}: the index was built with {key}={manifest.get(key)!r} but is "
                f"loaded with {key}={value!r}; rerun the index stage for this retriever"
            )
    return manifest
